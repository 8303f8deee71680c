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
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/hookwire"
	"github.com/helios-agents/helios/plugins/sdk"
)

func main() {
	p := &releaseNotes{debugDir: os.Getenv("RELEASE_NOTES_DEBUG_DIR")}
	p.trace("start")
	sdk.Serve(p, sdk.Config{})
}

// skillName is the plugin's skill, which its prepare handler points at.
const skillName = "release-notes"

type releaseNotes struct {
	debugDir string
	mu       sync.Mutex // serializes calls.log appends
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
	p.trace("context:prepare")
	if err := p.stall(ctx); err != nil {
		return "", false, err
	}
	if !slices.ContainsFunc(in.Skills, func(s hookwire.Skill) bool { return s.Name == skillName }) {
		return "", false, nil
	}
	return "Release notes: when the user asks for release notes or what changed since the last release, load the release-notes skill before anything else; it collects the commits for you.", true, nil
}

// trace appends a line to calls.log when debugging.
func (p *releaseNotes) trace(what string) {
	if p.debugDir == "" {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	f, err := os.OpenFile(filepath.Join(p.debugDir, "calls.log"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	fmt.Fprintf(f, "%s %d\n", what, os.Getpid())
	f.Close()
}

// stall waits while <debug dir>/stall exists, or until ctx is done.
func (p *releaseNotes) stall(ctx context.Context) error {
	if p.debugDir == "" {
		return nil
	}
	for {
		if _, err := os.Stat(filepath.Join(p.debugDir, "stall")); err != nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}
