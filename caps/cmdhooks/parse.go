package cmdhooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Source is the "hooks" key of a config once read: its settings, where
// they came from and what is wrong with them.
type Source struct {
	// Settings are the hooks.
	Settings Settings
	// File is the hooks file the key named (absolute); "" when the key
	// held the settings themselves.
	File string
	// PluginRoot is the plugin folder when File is <root>/hooks/hooks.json
	// (a Claude Code plugin's layout): its commands get CLAUDE_PLUGIN_ROOT.
	PluginRoot string
	// Description is the hooks file's top-level "description".
	Description string
	// Problems are what makes the settings unusable, each "json.path:
	// reason" (prefixed with File when there is one). Check's problems
	// are not among them.
	Problems []string
	// Warnings name each key a newer Claude Code may write that Helios
	// does not know, by JSON path: ignored, the rest runs.
	Warnings []string
}

// MaxFileSize bounds a hooks file: a few KiB in practice.
const MaxFileSize = 1 << 20

// copilotHint says what Helios reads instead of a GitHub Copilot hooks file.
const copilotHint = `this is a GitHub Copilot hooks file ("version": 1, commands under "bash"/"powershell", events like "sessionStart"): ` +
	`Helios reads Claude Code's shape: {"hooks": {"SessionStart": [{"matcher": "", "hooks": [{"type": "command", "command": "..."}]}]}}`

// Parse reads the value of the config's "hooks" key: an object in the
// shape of Claude Code's settings' "hooks", or a string naming a hooks file
// ({"description": "...", "hooks": {...}}, a Claude Code plugin's
// hooks/hooks.json) relative to dir, the config's folder. It reports every
// problem at once, never stopping at the first.
func Parse(raw json.RawMessage, dir string) Source {
	var name string
	if err := json.Unmarshal(raw, &name); err == nil {
		return ParseFile(resolve(dir, name))
	}
	var src Source
	p := &parser{src: &src}
	obj, ok := p.object(raw, "hooks")
	if !ok {
		return src
	}
	if _, copilot := obj["version"]; copilot {
		p.problem("hooks", copilotHint)
		return src
	}
	if inner, ok := obj["hooks"]; ok && kindOf(inner) == "an object" {
		p.problem("hooks.hooks", `this is the shape of a hooks file ({"description": ..., "hooks": {...}}): `+
			`save it as a file and name it ("hooks": "hooks/hooks.json"), or put its "hooks" object here`)
		return src
	}
	src.Settings = p.settings(obj, "hooks")
	return src
}

// ParseFile reads the hooks file at path (absolute), as Parse does.
func ParseFile(path string) Source {
	src := Source{File: path}
	if filepath.Base(path) == "hooks.json" && filepath.Base(filepath.Dir(path)) == "hooks" {
		src.PluginRoot = filepath.Dir(filepath.Dir(path))
	}
	data, err := readLimited(path)
	if err != nil {
		src.Problems = append(src.Problems, "hooks: "+err.Error())
		return src
	}
	p := &parser{src: &src, prefix: path + ": "}
	var raw json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		p.problem("(top level)", "not valid JSON: "+err.Error())
		return src
	}
	obj, ok := p.object(raw, "(top level)")
	if !ok {
		return src
	}
	if _, copilot := obj["version"]; copilot {
		p.problem("(top level)", copilotHint)
		return src
	}
	hooks, ok := obj["hooks"]
	if !ok {
		p.problem("hooks", `missing: a hooks file is {"description": "...", "hooks": {"PreToolUse": [...], ...}}`)
		return src
	}
	for _, key := range sortedKeys(obj) {
		switch key {
		case "hooks":
		case "description":
			if err := json.Unmarshal(obj[key], &src.Description); err != nil {
				p.problem("description", "want a string, got "+kindOf(obj[key]))
			}
		default:
			p.unknown(key)
		}
	}
	if events, ok := p.object(hooks, "hooks"); ok {
		src.Settings = p.settings(events, "hooks")
	}
	return src
}

// readLimited reads the file at path, refusing one over MaxFileSize.
func readLimited(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read the hooks file: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("read the hooks file: %w", err)
	}
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("%s: over the limit of %d bytes for a hooks file", path, MaxFileSize)
	}
	return data, nil
}

// parser decodes leniently, collecting every problem and unknown key.
type parser struct {
	src    *Source
	prefix string // the file, for problems and warnings
}

func (p *parser) problem(path, reason string) {
	p.src.Problems = append(p.src.Problems, p.prefix+path+": "+reason)
}

func (p *parser) unknown(path string) {
	p.src.Warnings = append(p.src.Warnings, p.prefix+path+": unknown field (of a newer Claude Code?): ignored")
}

// object decodes raw as a JSON object, or reports what it is instead.
func (p *parser) object(raw json.RawMessage, path string) (map[string]json.RawMessage, bool) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		p.problem(path, "want an object, got "+kindOf(raw))
		return nil, false
	}
	return obj, true
}

// list decodes raw as a JSON list, or reports what it is instead.
func (p *parser) list(raw json.RawMessage, path string) ([]json.RawMessage, bool) {
	var l []json.RawMessage
	if err := json.Unmarshal(raw, &l); err != nil {
		p.problem(path, "want a list, got "+kindOf(raw))
		return nil, false
	}
	return l, true
}

// settings decodes the events object at path.
func (p *parser) settings(obj map[string]json.RawMessage, path string) Settings {
	s := Settings{}
	for _, event := range sortedKeys(obj) {
		at := path + "." + event
		groups, ok := p.list(obj[event], at)
		if !ok {
			continue
		}
		for i, raw := range groups {
			s[event] = append(s[event], p.group(raw, at+"["+strconv.Itoa(i)+"]"))
		}
		if s[event] == nil {
			s[event] = []Group{}
		}
	}
	return s
}

// group decodes one matcher group.
func (p *parser) group(raw json.RawMessage, path string) Group {
	var g Group
	obj, ok := p.object(raw, path)
	if !ok {
		return g
	}
	for _, key := range sortedKeys(obj) {
		at := path + "." + key
		switch key {
		case "matcher":
			value(p, obj[key], at, &g.Matcher)
		case "hooks":
			cmds, ok := p.list(obj[key], at)
			if !ok {
				continue
			}
			for j, c := range cmds {
				g.Hooks = append(g.Hooks, p.command(c, at+"["+strconv.Itoa(j)+"]"))
			}
		default:
			p.unknown(at)
		}
	}
	return g
}

// otherTypesKeys are the keys of Claude Code's hook types Helios does not
// run: a hook of such a type is one problem (its type), not one per key.
var otherTypesKeys = []string{"prompt", "model", "url", "headers", "allowedEnvVars", "server", "tool", "input"}

// copilotKeys are the keys of a GitHub Copilot hook command.
var copilotKeys = []string{"bash", "powershell", "timeoutSec", "cwd", "env"}

// command decodes one hook.
func (p *parser) command(raw json.RawMessage, path string) Command {
	var c Command
	obj, ok := p.object(raw, path)
	if !ok {
		return c
	}
	if _, hasCmd := obj["command"]; !hasCmd {
		if _, bash := obj["bash"]; bash {
			p.problem(path, copilotHint)
			return Command{Type: "command", Command: "-"} // one problem, not three
		}
	}
	var typ string
	if t, ok := obj["type"]; ok {
		_ = json.Unmarshal(t, &typ)
	}
	for _, key := range sortedKeys(obj) {
		at := path + "." + key
		v := obj[key]
		switch key {
		case "type":
			value(p, v, at, &c.Type)
		case "command":
			value(p, v, at, &c.Command)
		case "timeout":
			value(p, v, at, &c.Timeout)
		case "async":
			value(p, v, at, &c.Async)
		case "shell":
			value(p, v, at, &c.Shell)
		case "once":
			value(p, v, at, &c.Once)
		case "statusMessage":
			value(p, v, at, &c.StatusMessage)
		case "if":
			value(p, v, at, &c.If)
		case "prompt":
			value(p, v, at, &c.Prompt)
		default:
			if typ != "command" && typ != "" && slices.Contains(otherTypesKeys, key) {
				continue // the type is the problem
			}
			if slices.Contains(copilotKeys, key) {
				p.problem(at, `a GitHub Copilot hook key: `+copilotHint)
				continue
			}
			p.unknown(at)
		}
	}
	return c
}

// value decodes raw into *dst, or reports the kind it wanted and leaves
// *dst as it was.
func value[T any](p *parser, raw json.RawMessage, path string, dst *T) {
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return
	}
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		want := "a string"
		switch any(dst).(type) {
		case *bool:
			want = "a boolean"
		case **float64:
			want = "a number"
		}
		p.problem(path, "want "+want+", got "+kindOf(raw))
		return
	}
	*dst = v
}

func sortedKeys(m map[string]json.RawMessage) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

func kindOf(raw json.RawMessage) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return "nothing"
	}
	switch t[0] {
	case '{':
		return "an object"
	case '[':
		return "a list"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// resolve makes name absolute against dir.
func resolve(dir, name string) string {
	if strings.HasPrefix(name, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			name = filepath.Join(home, name[2:])
		}
	}
	if !filepath.IsAbs(name) {
		name = filepath.Join(dir, name)
	}
	if abs, err := filepath.Abs(name); err == nil {
		return abs
	}
	return name
}
