package agentplugins

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/helios-agents/helios/frontmatter"
)

// RootVars are the variables a plugin's hooks and servers may use for the
// plugin's installed folder, one per dialect; all three mean the same folder.
var RootVars = []string{"CLAUDE_PLUGIN_ROOT", "PLUGIN_ROOT", "CODEX_PLUGIN_ROOT"}

// Describe turns the plugin in dir, read as m, into its parts. Every part
// either appears in Parts or yields a warning naming the plugin, the part and
// the reason.
func Describe(dir string, m Manifest) (Parts, []Warning) {
	return describe(dir, m, true)
}

// DescribeForRun is Describe without the agents: Parts.Agents and AgentDefs
// are nil, and an agent that cannot be read is no warning. A run does not
// use agents (they run when subagents exist), and walking and parsing them
// was a third of the start time with a large marketplace installed;
// `helios plugins list` and `check` read them.
func DescribeForRun(dir string, m Manifest) (Parts, []Warning) {
	return describe(dir, m, false)
}

func describe(dir string, m Manifest, parseAgents bool) (Parts, []Warning) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Parts{}, []Warning{{Plugin: m.Name, Part: "plugin", Path: dir, Reason: err.Error()}}
	}
	var p Parts
	var warns []Warning
	warn := func(part, path, reason string) {
		warns = append(warns, Warning{Plugin: m.Name, Part: part, Path: path, Reason: reason})
	}

	for _, rel := range m.Skills {
		root := filepath.Join(abs, filepath.FromSlash(rel))
		if err := noLinkOut(abs, rel); err != nil {
			warn("skills", rel, err.Error())
			continue
		}
		if hasSkill(root) {
			p.Skills = appendNew(p.Skills, root)
		} else if isFile(root, "SKILL.md") || isFile(root, "skill.md") {
			// A path naming one skill folder: its parent is read as the root.
			p.Skills = appendNew(p.Skills, filepath.Dir(root))
		} else {
			warn("skills", rel, "holds no <skill>/SKILL.md")
		}
	}
	for _, rel := range m.Commands {
		files := mdFiles(abs, rel, "commands", warn)
		if len(files) == 0 {
			warn("commands", rel, "holds no .md command")
		}
		p.Commands = append(p.Commands, files...)
	}
	for _, rel := range m.Agents {
		if !parseAgents {
			break
		}
		files := mdFiles(abs, rel, "agents", warn)
		if len(files) == 0 {
			warn("agents", rel, "holds no .md agent")
		}
		for _, f := range files {
			a, err := readAgent(f)
			if err != nil {
				warn("agents", relTo(abs, f), err.Error())
				continue
			}
			p.Agents = append(p.Agents, f)
			p.AgentDefs = append(p.AgentDefs, a)
		}
	}

	if hooks, path, err := hooksOf(abs, m); err != nil {
		warn("hooks", path, err.Error())
	} else if hooks != nil {
		if missing := missingFiles(abs, hookCommands(hooks)); len(missing) > 0 {
			for _, f := range missing {
				warn("hooks", path, fmt.Sprintf("a command names %s, which the plugin does not ship", f))
			}
		} else {
			p.Hooks = hooks
		}
	}

	for _, name := range sortedKeys(m.MCPServers) {
		where := m.MCPFile
		if where == "" {
			where = "mcpServers"
		}
		var obj map[string]any
		if err := json.Unmarshal(m.MCPServers[name], &obj); err != nil {
			warn("mcp", where+" "+name, "not an object: "+err.Error())
			continue
		}
		if strings.Contains(name, "__") || strings.Contains(m.Name, "__") {
			warn("mcp", where+" "+name, "a server name may not hold \"__\"")
			continue
		}
		if missing := missingFiles(abs, serverStrings(obj)); len(missing) > 0 {
			warn("mcp", where+" "+name, fmt.Sprintf("names %s, which the plugin does not ship", strings.Join(missing, ", ")))
			continue
		}
		if p.MCPServers == nil {
			p.MCPServers = map[string]json.RawMessage{}
		}
		p.MCPServers[ServerName(m.Name, name)] = json.RawMessage(expandRoot(string(m.MCPServers[name]), abs, true))
	}

	if m.Helios != nil {
		if isFile(abs, m.Helios.Executable) {
			p.Executable = filepath.Join(abs, filepath.FromSlash(m.Helios.Executable))
		} else {
			warn("helios", m.Helios.Executable, "the executable is missing")
		}
	}
	return p, warns
}

// ServerName is the mcp.servers name of a plugin's server, Claude Code's
// plugin_<plugin>_<server>.
func ServerName(plugin, server string) string {
	return "plugin_" + plugin + "_" + server
}

// hooksOf is the plugin's hooks settings (event → groups): the manifest's
// inline object, or its hooks file, unwrapped from {"hooks": {...}} when
// the file is in the plugin-file shape.
func hooksOf(abs string, m Manifest) (json.RawMessage, string, error) {
	data, where := []byte(m.HooksInline), "manifest hooks"
	if m.Hooks != "" {
		var err error
		where = m.Hooks
		data, err = readInside(abs, m.Hooks)
		if err != nil {
			return nil, where, err
		}
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, where, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		return nil, where, fmt.Errorf("not JSON: %w", err)
	}
	if inner, ok := obj["hooks"]; ok {
		data = inner
		if err := json.Unmarshal(data, &obj); err != nil {
			return nil, where, fmt.Errorf("\"hooks\" is not an object: %w", err)
		}
	}
	if len(obj) == 0 {
		return nil, where, errors.New("declares no hook")
	}
	return json.RawMessage(data), where, nil
}

// hookCommands lists every "command" string in a hooks settings object.
func hookCommands(hooks json.RawMessage) []string {
	var settings map[string][]struct {
		Hooks []struct {
			Command string `json:"command"`
		} `json:"hooks"`
	}
	if json.Unmarshal(hooks, &settings) != nil {
		return nil
	}
	var out []string
	for _, ev := range sortedKeys(settings) {
		for _, g := range settings[ev] {
			for _, h := range g.Hooks {
				if h.Command != "" {
					out = append(out, h.Command)
				}
			}
		}
	}
	return out
}

// serverStrings are the strings of a server that can name a file: its
// command and arguments.
func serverStrings(obj map[string]any) []string {
	var out []string
	if c, ok := obj["command"].(string); ok {
		out = append(out, c)
	}
	if args, ok := obj["args"].([]any); ok {
		for _, a := range args {
			if s, ok := a.(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

// rootRef matches a root variable (${V}, ${V:-default} or $V) followed by
// a path inside the plugin.
var rootRef = regexp.MustCompile(`\$(?:\{(?:CLAUDE_PLUGIN_ROOT|PLUGIN_ROOT|CODEX_PLUGIN_ROOT)(?::-[^}]*)?\}|(?:CLAUDE_PLUGIN_ROOT|PLUGIN_ROOT|CODEX_PLUGIN_ROOT)\b)"?((?:/[^\s"'$;&|<>()` + "`" + `]+)*)`)

// rootVar matches the root variable alone, in the same three spellings.
var rootVar = regexp.MustCompile(`\$(?:\{(?:CLAUDE_PLUGIN_ROOT|PLUGIN_ROOT|CODEX_PLUGIN_ROOT)(?::-[^}]*)?\}|(?:CLAUDE_PLUGIN_ROOT|PLUGIN_ROOT|CODEX_PLUGIN_ROOT)\b)`)

// filesNamed are the paths inside the plugin that the strings name through
// a root variable, slash-separated and relative.
func filesNamed(ss []string) []string {
	var out []string
	for _, s := range ss {
		for _, m := range rootRef.FindAllStringSubmatch(s, -1) {
			rel := strings.TrimPrefix(m[1], "/")
			if rel != "" && !contains(out, rel) {
				out = append(out, rel)
			}
		}
	}
	return out
}

// missingFiles are the files the strings name inside the plugin that it does
// not ship (or that leave it).
func missingFiles(abs string, ss []string) []string {
	var out []string
	for _, rel := range filesNamed(ss) {
		clean, err := inside(abs, rel)
		if err != nil {
			out = append(out, rel+" ("+err.Error()+")")
			continue
		}
		if _, err := os.Stat(filepath.Join(abs, filepath.FromSlash(clean))); err != nil {
			out = append(out, "${CLAUDE_PLUGIN_ROOT}/"+clean)
		}
	}
	return out
}

// expandRoot replaces the root variables in s by dir; in JSON text the
// folder is escaped as a JSON string's content.
func expandRoot(s, dir string, inJSON bool) string {
	if inJSON {
		b, _ := json.Marshal(dir)
		dir = string(b[1 : len(b)-1])
	}
	return rootVar.ReplaceAllLiteralString(s, dir)
}

// RunDigest is the sha256 of exactly the plugin's parts that run code — each
// hook command, each MCP server's command, args and env keys, the content of
// every file those name inside the plugin, and the Helios executable — and
// the list of what runs, as shown for approval. Skills, commands and agents
// do not enter it: they change without a new approval.
func RunDigest(dir string, p Parts) (string, []string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", nil, err
	}
	h := sha256.New()
	var runs []string
	var named []string
	put := func(kind, s string) {
		fmt.Fprintf(h, "%s\x00%d\x00%s\x00", kind, len(s), s)
	}
	for _, c := range hookCommands(p.Hooks) {
		put("hook", c)
		runs = append(runs, "hook: "+c)
		named = append(named, c)
	}
	for _, name := range sortedKeys(p.MCPServers) {
		var srv struct {
			Command string            `json:"command"`
			Args    []string          `json:"args"`
			Env     map[string]string `json:"env"`
			URL     string            `json:"url"`
		}
		if err := json.Unmarshal(p.MCPServers[name], &srv); err != nil {
			return "", nil, fmt.Errorf("digest mcp server %s: %w", name, err)
		}
		// Folder-independent: the installed folder is put back as the variable.
		unroot := func(s string) string { return strings.ReplaceAll(s, abs, "${CLAUDE_PLUGIN_ROOT}") }
		line := unroot(strings.TrimSpace(srv.Command + " " + strings.Join(srv.Args, " ")))
		if srv.URL != "" {
			line = srv.URL
		}
		put("mcp", name)
		put("run", line)
		for _, k := range sortedKeys(srv.Env) {
			put("env", k)
		}
		runs = append(runs, "mcp "+name+": "+line)
		named = append(named, unroot(srv.Command))
		for _, a := range srv.Args {
			named = append(named, unroot(a))
		}
	}
	files := filesNamed(named)
	if x := helios(abs, p); x != "" {
		files = append(files, x)
		runs = append(runs, "executable: "+x)
	}
	sort.Strings(files)
	for _, rel := range files {
		clean, err := inside(abs, rel)
		if err != nil {
			return "", nil, fmt.Errorf("digest %s: %w", rel, err)
		}
		data, err := os.ReadFile(filepath.Join(abs, filepath.FromSlash(clean)))
		if errors.Is(err, fs.ErrNotExist) {
			put("missing", clean)
			continue
		}
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) && isDir(abs, clean) {
				put("dir", clean)
				continue
			}
			return "", nil, fmt.Errorf("digest %s: %w", clean, err)
		}
		put("file", clean)
		sum := sha256.Sum256(data)
		h.Write(sum[:])
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), runs, nil
}

// helios is the Helios executable of p, relative to the plugin's folder.
func helios(abs string, p Parts) string {
	if p.Executable == "" {
		return ""
	}
	return relTo(abs, p.Executable)
}

// mdFiles lists the .md files of rel (a folder, walked, or one file), in
// code-point order; a symlink out is a warning.
func mdFiles(abs, rel, part string, warn func(part, path, reason string)) []string {
	root := filepath.Join(abs, filepath.FromSlash(rel))
	st, err := os.Stat(root)
	if err != nil {
		return nil
	}
	// The walk follows no symlink below root, so root checked once, only an
	// entry that is itself a symlink can lead out.
	if err := noLinkOut(abs, rel); err != nil {
		warn(part, rel, err.Error())
		return nil
	}
	if !st.IsDir() {
		if strings.HasSuffix(root, ".md") {
			return []string{root}
		}
		return nil
	}
	var out []string
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			warn(part, relTo(abs, p), err.Error())
			return nil
		}
		if p != root && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() || !strings.HasSuffix(d.Name(), ".md") {
			return nil
		}
		if d.Type()&fs.ModeSymlink == 0 {
			// A plain file or folder under a checked root: inside.
		} else if err := noLinkOut(abs, relTo(abs, p)); err != nil {
			warn(part, relTo(abs, p), err.Error())
			return nil
		}
		if strings.EqualFold(d.Name(), "README.md") {
			return nil
		}
		out = append(out, p)
		return nil
	})
	sort.Strings(out)
	return out
}

// hasSkill reports whether root has a child folder holding SKILL.md.
func hasSkill(root string) bool {
	ents, err := os.ReadDir(root)
	if err != nil {
		return false
	}
	for _, e := range ents {
		if isFile(filepath.Join(root, e.Name()), "SKILL.md") || isFile(filepath.Join(root, e.Name()), "skill.md") {
			return true
		}
	}
	return false
}

// readAgent parses a subagent definition.
func readAgent(file string) (Agent, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return Agent{}, err
	}
	doc, err := frontmatter.Parse(file, data)
	if err != nil {
		return Agent{}, err
	}
	a := Agent{File: file, Prompt: doc.Body}
	a.Name, _ = doc.Scalar("name")
	if a.Name == "" {
		a.Name = strings.TrimSuffix(filepath.Base(file), ".md")
	}
	a.Description, _ = doc.Scalar("description")
	if a.Description == "" {
		return Agent{}, errors.New("no \"description\" in the frontmatter")
	}
	a.Model, _ = doc.Scalar("model")
	if doc.Has("tools") {
		if s, ok := doc.Scalar("tools"); ok {
			for _, t := range strings.Split(s, ",") {
				if t = strings.TrimSpace(t); t != "" {
					a.Tools = append(a.Tools, t)
				}
			}
		} else {
			_ = doc.Decode("tools", &a.Tools)
		}
	}
	return a, nil
}

func relTo(abs, p string) string {
	r, err := filepath.Rel(abs, p)
	if err != nil {
		return p
	}
	return filepath.ToSlash(r)
}

func appendNew(list []string, s string) []string {
	if contains(list, s) {
		return list
	}
	return append(list, s)
}
