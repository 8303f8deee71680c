// Command no-force-push is the smallest useful Helios plugin: a tool:before
// guard that refuses force pushes. Copy this folder, build it with go build,
// and list the executable under "plugins" in helios.config.json.
package main

import (
	"context"
	"encoding/json"
	"regexp"

	"github.com/helios-agents/helios/plugins/sdk"
)

type plugin struct{}

func (plugin) Hooks() []sdk.Hook {
	return []sdk.Hook{sdk.ToolBefore("no-force-push", noForcePush)}
}

var forcePush = regexp.MustCompile(`\bgit\s+push\b[^;&|]*\s(--force\S*|-f)\b`)

// noForcePush denies Bash commands that force-push and passes on the rest.
func noForcePush(_ context.Context, in sdk.ToolBeforeIn) (sdk.ToolDecision, bool, error) {
	var args struct {
		Command string `json:"command"`
	}
	if in.Call.Name != "Bash" || json.Unmarshal(in.Call.Arguments, &args) != nil || !forcePush.MatchString(args.Command) {
		return sdk.ToolDecision{}, false, nil
	}
	return sdk.ToolDecision{Deny: true, Reason: "force pushes rewrite shared history; ask the user to run it by hand"}, true, nil
}

func main() { sdk.Serve(plugin{}, sdk.Config{}) }
