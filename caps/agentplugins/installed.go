package agentplugins

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// StateFile is the state and lock file of a plugins root, written by the
// installer only.
const StateFile = "helios-plugins.json"

// State is the content of StateFile.
type State struct {
	Version int                    `json:"version"`
	Plugins map[string]PluginState `json:"plugins"`
}

// PluginState is one installed plugin's record.
type PluginState struct {
	Source      string `json:"source"`
	Ref         string `json:"ref,omitempty"`
	Commit      string `json:"commit,omitempty"`
	Path        string `json:"path,omitempty"`
	Marketplace string `json:"marketplace,omitempty"`
	// MarketplaceAt is the folder of the marketplace file in Source's
	// repository ("." for its root), for a plugin that lies in the
	// marketplace's own repository: update reads the marketplace there
	// again and follows the plugin when its entry moved.
	MarketplaceAt  string            `json:"marketplaceAt,omitempty"`
	Files          map[string]string `json:"files,omitempty"`
	Enabled        bool              `json:"enabled"`
	DisabledSkills []string          `json:"disabledSkills,omitempty"`
	Approved       *Approval         `json:"approved,omitempty"`
}

// Approval is what a person approved: the RunDigest then and the list shown.
type Approval struct {
	Digest   string   `json:"digest"`
	Commands []string `json:"commands,omitempty"`
}

// ReadState reads root's StateFile; a missing file is an empty state.
func ReadState(root string) (State, error) {
	file := filepath.Join(root, StateFile)
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return State{Version: 1}, nil
	}
	if err != nil {
		return State{}, fmt.Errorf("read %s: %w", file, err)
	}
	var st State
	if err := json.Unmarshal(data, &st); err != nil {
		return State{}, fmt.Errorf("read %s: not JSON: %w", file, err)
	}
	if st.Version != 1 {
		return State{}, fmt.Errorf("read %s: \"version\": %d is not 1", file, st.Version)
	}
	return st, nil
}

// ApproveHint is how a person approves a plugin's code-running parts.
func ApproveHint(name string) string {
	return "run `helios plugins approve " + name + "` to approve"
}

// LoadInstalled reads root's StateFile and each plugin it lists, in name
// order. A plugin that cannot be read is left out with a warning; the others
// load. Approved is true only when the recorded digest equals RunDigest now.
func LoadInstalled(root, scope string) ([]Installed, []Warning) {
	return loadInstalled(root, scope, Describe)
}

// LoadInstalledForRun is LoadInstalled without the agents (see
// DescribeForRun): what a run mounts, at the cost a run can afford.
func LoadInstalledForRun(root, scope string) ([]Installed, []Warning) {
	return loadInstalled(root, scope, DescribeForRun)
}

func loadInstalled(root, scope string, describe func(string, Manifest) (Parts, []Warning)) ([]Installed, []Warning) {
	st, err := ReadState(root)
	if err != nil {
		return nil, []Warning{{Plugin: "*", Part: "state", Path: filepath.Join(root, StateFile), Reason: err.Error()}}
	}
	var out []Installed
	var warns []Warning
	names := make([]string, 0, len(st.Plugins))
	for n := range st.Plugins {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		rec := st.Plugins[name]
		dir := filepath.Join(root, name)
		if name == "" || filepath.Base(name) != name || name == "." || name == ".." {
			warns = append(warns, Warning{Plugin: name, Part: "state", Path: filepath.Join(root, StateFile), Reason: "not a plugin folder name"})
			continue
		}
		m, w, err := ReadPlugin(dir)
		warns = append(warns, w...)
		if err != nil {
			// The error names the plugin already.
			warns = append(warns, Warning{Plugin: name, Reason: strings.TrimPrefix(err.Error(), "plugin "+name+": ")})
			continue
		}
		m.Name = name
		inst := Installed{Name: name, Root: dir, Scope: scope, Manifest: m, Enabled: rec.Enabled, DisabledSkills: rec.DisabledSkills}
		parts, w := describe(dir, m)
		warns = append(warns, w...)
		inst.Parts = parts
		digest, runs, err := RunDigest(dir, parts)
		if err != nil {
			warns = append(warns, Warning{Plugin: name, Part: "approval", Path: dir, Reason: err.Error()})
		}
		inst.Digest, inst.Runs = digest, runs
		inst.Approved = err == nil && rec.Approved != nil && rec.Approved.Digest != "" && rec.Approved.Digest == digest
		out = append(out, inst)
	}
	return out, warns
}

// The scopes of an installed root.
const (
	ScopeUser    = "user"
	ScopeProject = "project"
)

// Root is an installed plugins root and its scope.
type Root struct {
	Dir   string
	Scope string
}

// UserRoot is the user's installed plugins root, ~/.helios/plugins.
func UserRoot() (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find the user plugins root: %w", err)
	}
	return filepath.Join(home, ".helios", "plugins"), nil
}

// ProjectRoot is a work dir's installed plugins root, <work>/.helios/plugins.
func ProjectRoot(workDir string) string {
	return filepath.Join(workDir, ".helios", "plugins")
}
