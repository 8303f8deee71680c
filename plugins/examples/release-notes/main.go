// Command release-notes is an example Helios plugin, built with plugins/sdk:
// a skill that drafts release notes from the git history (with its
// scripts/collect.sh), a tool that formats a commit list, a context:prepare
// handler that points the model at the skill, and a tool:before handler that
// refuses to delete or force-push tags.
//
// `make plugins` builds it into bin/plugins/release-notes/ together with its
// EXTENSION.md and skills/ folder, which the SDK reads beside the executable.
//
// It imports plugins/sdk and nothing else of Helios, so the folder can be
// copied out of this repository as it is.
package main

import (
	"context"
	"slices"

	"github.com/helios-agents/helios/plugins/sdk"
)

func main() {
	sdk.Serve(&releaseNotes{}, sdk.Config{})
}

// skillName is the plugin's skill, which its prepare handler points at.
const skillName = "release-notes"

type releaseNotes struct{}

var (
	_ sdk.HookProvider = (*releaseNotes)(nil)
	_ sdk.ToolProvider = (*releaseNotes)(nil)
)

func (p *releaseNotes) Hooks() []sdk.Hook {
	return []sdk.Hook{
		sdk.ContextPrepare("", p.prepare),
		sdk.ToolBefore("guard-tags", p.guardTags),
	}
}

func (p *releaseNotes) Tools() []sdk.Tool {
	return []sdk.Tool{formatTool()}
}

// prepare reminds the model of the skill while the model can see it: a
// catalog without it (hidden, or incomplete) gets nothing.
func (p *releaseNotes) prepare(_ context.Context, in sdk.PrepareIn) (string, bool, error) {
	if !slices.ContainsFunc(in.Skills, func(s sdk.Skill) bool { return s.Name == skillName }) {
		return "", false, nil
	}
	return "Release notes: when the user asks for release notes or what changed since the last release, load the release-notes skill before anything else; it collects the commits for you.", true, nil
}
