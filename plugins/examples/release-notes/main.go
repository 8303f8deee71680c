// Command release-notes is an example Helios plugin, built with plugins/sdk:
// a skill that drafts release notes from the git history (with its
// scripts/collect.sh), a tool that formats a commit list, a context:prepare
// handler that points the model at the skill, and a tool:before handler that
// refuses to delete or force-push tags.
//
// `make plugins` builds it into bin/plugins/release-notes/ together with its
// EXTENSION.md and skills/ folder, which the SDK reads beside the executable.
//
// For tests and debugging, RELEASE_NOTES_DEBUG_DIR names a folder where the
// plugin appends "start <pid>" when it starts and "<point> <pid>" for every
// hook call to calls.log, and where, while a file named stall exists, its
// context:prepare handler waits (until the call is cancelled) instead of
// answering: a hung handler on demand.
package main

import (
	"context"
	"github.com/helios-agents/helios/internal/pluginprobe"
	"slices"

	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/hookwire"
	"github.com/helios-agents/helios/plugins/sdk"
)

func main() {
	p := &releaseNotes{probe: pluginprobe.FromEnv()}
	p.probe.Trace("start")
	sdk.Serve(p, sdk.Config{})
}

// skillName is the plugin's skill, which its prepare handler points at.
const skillName = "release-notes"

type releaseNotes struct {
	probe pluginprobe.Dir // tests' window into the plugin; off unless configured
}

var _ sdk.Plugin = (*releaseNotes)(nil)

func (p *releaseNotes) Hooks() []sdk.Hook {
	return []sdk.Hook{
		sdk.ContextPrepare("", p.prepare),
		sdk.ToolBefore("guard-tags", p.guardTags),
	}
}

func (p *releaseNotes) Tools() []contract.Tool {
	return []contract.Tool{formatTool()}
}

// prepare reminds the model of the skill while the model can see it: a
// catalog without it (hidden, or incomplete) gets nothing.
func (p *releaseNotes) prepare(ctx context.Context, in hookwire.Prepare) (string, bool, error) {
	p.probe.Trace("context:prepare")
	if err := p.probe.Stall(ctx); err != nil {
		return "", false, err
	}
	if !slices.ContainsFunc(in.Skills, func(s hookwire.Skill) bool { return s.Name == skillName }) {
		return "", false, nil
	}
	return "Release notes: when the user asks for release notes or what changed since the last release, load the release-notes skill before anything else; it collects the commits for you.", true, nil
}
