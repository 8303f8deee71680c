package skillinstall

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/helios-agents/helios/caps/agentplugins"
)

// PluginStateFile is the state and lock file of a plugins root,
// <root>/helios-plugins.json, written only by the plugin installer.
const PluginStateFile = agentplugins.StateFile

// PluginState is helios-plugins.json, as agentplugins reads it: every
// installed plugin, locked by commit and by the digest of each of its files
// (never by a version string), with what the user turned off and approved.
type PluginState = agentplugins.State

// PluginLocked is one installed plugin of the state file.
type PluginLocked = agentplugins.PluginState

// PluginApproval records what the user approved: the run digest of the
// plugin's code-running parts and the commands they were shown. nil or an
// empty digest keeps hooks, MCP servers and executables off.
type PluginApproval = agentplugins.Approval

// ReadPluginState reads a state file; a missing one is an empty state. A
// corrupted one is an error naming the file, the JSON position or the
// plugin and key, and the reason.
func ReadPluginState(file string) (PluginState, error) {
	data, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return PluginState{Version: LockVersion, Plugins: map[string]PluginLocked{}}, nil
	}
	if err != nil {
		return PluginState{}, fmt.Errorf("read plugin state %s: %w", file, err)
	}
	s, err := parsePluginState(data)
	if err != nil {
		return PluginState{}, fmt.Errorf("read plugin state %s: %w: %w", file, ErrCorruptLock, err)
	}
	return s, nil
}

func parsePluginState(data []byte) (PluginState, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var s PluginState
	if err := dec.Decode(&s); err != nil {
		return PluginState{}, jsonError(data, dec, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return PluginState{}, fmt.Errorf("%s: more after the state's object", position(data, dec.InputOffset()))
	}
	switch {
	case s.Version == 0:
		return PluginState{}, errors.New(`no "version"`)
	case s.Version != LockVersion:
		return PluginState{}, fmt.Errorf("version %d is not the version %d this helios reads", s.Version, LockVersion)
	}
	for name, p := range s.Plugins {
		l := Locked{Name: name, Source: p.Source, Commit: p.Commit, Path: p.Path, Files: p.Files}
		if err := checkLocked(l); err != nil {
			return PluginState{}, fmt.Errorf("plugins.%s: %w", name, err)
		}
		if p.Approved != nil && p.Approved.Digest != "" && !isDigest(p.Approved.Digest) {
			return PluginState{}, fmt.Errorf("plugins.%s.approved.digest: %q is not sha256:<64 hex digits>", name, p.Approved.Digest)
		}
	}
	if s.Plugins == nil {
		s.Plugins = map[string]PluginLocked{}
	}
	return s, nil
}

// encode is the state's bytes: keys sorted (encoding/json sorts map keys),
// two-space indented, a final newline.
func encodeState(s PluginState) ([]byte, error) {
	for name, p := range s.Plugins {
		slices.Sort(p.DisabledSkills)
		p.DisabledSkills = slices.Compact(p.DisabledSkills)
		s.Plugins[name] = p
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}
