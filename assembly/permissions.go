package assembly

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"

	"github.com/helios-agents/helios/caps/permissions"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/skills"
)

// UserSettingsFile is where the user's own settings live, under the home
// directory: its "permissions" key (Claude Code's shape) applies under the
// project's, in every work dir, trusted or not.
const UserSettingsFile = ".helios/settings.json"

// permissionProblems checks the "permissions" key of the config read from
// source (may be ""): each rule parses, the mode is one of the four. Each
// problem names the JSON path and, for a rule, the position in it.
func permissionProblems(c permissions.Config, source string) []string {
	_, err := permissions.Compile([]permissions.Layer{{Source: source, Config: c}})
	var out []string
	for _, e := range leafErrors(err) {
		msg := e.Error()
		if source == "" {
			msg = strings.TrimPrefix(msg, ": ")
		}
		out = append(out, msg)
	}
	return out
}

// leafErrors flattens errors.Join trees.
func leafErrors(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, leafErrors(e)...)
		}
		return out
	}
	return []error{err}
}

// readUserPermissions reads the "permissions" key of the user's settings
// file (UserSettingsFile under home). A missing file is no rules; a file
// that cannot be read or decoded, or whose permissions are bad, is an
// error naming the file and the JSON path. Other keys are not Helios's to
// judge and are left alone.
func readUserPermissions(home string) (permissions.Config, string, error) {
	var c permissions.Config
	path := filepath.Join(home, UserSettingsFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return c, path, nil
	}
	if err != nil {
		return c, path, fmt.Errorf("%w: user settings: %w", ErrConfig, err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return c, path, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		return c, path, fmt.Errorf("%w: %s: %s", ErrConfig, path, syntaxError(data, err))
	}
	if raw, ok := obj["permissions"]; ok {
		if err := decodeStrict(raw, reflect.ValueOf(&c).Elem(), "permissions"); err != nil {
			return c, path, fmt.Errorf("%w: %s: %w", ErrConfig, path, err)
		}
	}
	if p := permissionProblems(c, path); len(p) > 0 {
		return c, path, fmt.Errorf("%w: %s", ErrConfig, strings.Join(p, "; "))
	}
	return c, path, nil
}

// CompilePermissions compiles the permission rules a session in workDir
// obeys: cfg's (read from the folder base; "./" in its rules is base) over
// the user's UserSettingsFile ("./" is ~/.helios). It is the one reader of
// both files, for the kernel and for `helios permissions check`, so the two
// never disagree. A bad rule, mode or key in either file is an ErrConfig
// naming the file and the JSON path.
func CompilePermissions(cfg Config, base, workDir string) (*permissions.Set, error) {
	layers, _, err := permissionLayers(cfg, base, workDir)
	if err != nil {
		return nil, err
	}
	return compileLayers(layers)
}

// permissionSet is the kernel's Permissions port over CompilePermissions'
// set; nil when neither file holds a rule or a mode: every call runs, as
// without the key.
func permissionSet(cfg Config, base, workDir string) (kernel.Permissions, error) {
	layers, empty, err := permissionLayers(cfg, base, workDir)
	if err != nil || empty {
		return nil, err
	}
	set, err := compileLayers(layers)
	if err != nil {
		return nil, err
	}
	return &permissionDecider{set: set, parsed: map[string]parsedRule{}}, nil
}

// permissionLayers reads the user's permissions and lays the project's over
// them; empty is true when neither holds a rule or a mode.
func permissionLayers(cfg Config, base, workDir string) (layers []permissions.Layer, empty bool, err error) {
	// Without a home directory there are no user settings to read (and
	// "~/" in a rule matches nothing); that is no reason to refuse a run.
	var user permissions.Config
	userFile := ""
	home, err := os.UserHomeDir()
	if err == nil {
		if user, userFile, err = readUserPermissions(home); err != nil {
			return nil, false, err
		}
	}
	return []permissions.Layer{
		{Source: filepath.Join(base, ConfigFileName), Config: cfg.Permissions, Dirs: permissions.Dirs{Project: base, Home: home, Work: workDir}},
		{Source: userFile, Config: user, Dirs: permissions.Dirs{Project: filepath.Dir(userFile), Home: home, Work: workDir}},
	}, isEmptyPermissions(cfg.Permissions) && isEmptyPermissions(user), nil
}

func compileLayers(layers []permissions.Layer) (*permissions.Set, error) {
	set, err := permissions.Compile(layers)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return set, nil
}

// readDenied is what Glob and Grep leave out of what they list and search:
// the files a Read deny rule covers (nil without rules).
func readDenied(p kernel.Permissions) func(string) bool {
	d, ok := p.(*permissionDecider)
	if !ok {
		return nil
	}
	return func(path string) bool {
		_, denied := d.set.ReadDenied(path)
		return denied
	}
}

func isEmptyPermissions(c permissions.Config) bool {
	return len(c.Allow) == 0 && len(c.Ask) == 0 && len(c.Deny) == 0 && c.DefaultMode == ""
}

// permissionDecider is the kernel's Permissions port over a compiled set.
// Pre-approved rules (allowed-tools) come as text; each is parsed once.
type permissionDecider struct {
	set *permissions.Set

	mu     sync.Mutex
	parsed map[string]parsedRule
}

type parsedRule struct {
	rule permissions.Rule
	ok   bool
}

func (p *permissionDecider) Decide(_ context.Context, q kernel.PermissionQuery) kernel.PermissionDecision {
	call := permissions.Call{Tool: q.Call.Name, Input: q.Call.Arguments}
	if q.Skill != "" {
		// A skill's own tool (tools mode) is decided as the catalog tool
		// loading it: Skill(name) rules, and plan mode's read-only tools.
		in, _ := json.Marshal(map[string]string{"name": q.Skill})
		call = permissions.Call{Tool: skills.SkillToolName, Input: in}
	}
	d := p.set.Decide(call, p.rules(q.Preapproved))
	return kernel.PermissionDecision{Behavior: string(d.Behavior), Rule: d.Rule, List: d.List, Reason: d.Reason}
}

// Mode is the rules' defaultMode: a subagent's permissionMode that would
// widen it is refused (kernel.AgentDef.PermissionMode).
func (p *permissionDecider) Mode() string { return string(p.set.Mode()) }

// rules parses pre-approved rules; one that does not parse approves
// nothing (the skill's validation names it).
func (p *permissionDecider) rules(texts []string) []permissions.Rule {
	if len(texts) == 0 {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]permissions.Rule, 0, len(texts))
	for _, t := range texts {
		r, seen := p.parsed[t]
		if !seen {
			rule, err := permissions.ParseRule(t)
			r = parsedRule{rule: rule, ok: err == nil}
			p.parsed[t] = r
		}
		if r.ok {
			out = append(out, r.rule)
		}
	}
	return out
}
