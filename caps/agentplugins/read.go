package agentplugins

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// ErrNotPlugin is returned by ReadPlugin for a folder with no manifest and
// none of the default part folders or files.
var ErrNotPlugin = errors.New("not a plugin")

// manifestFiles are the manifests in the order they are looked for; the
// first present wins.
var manifestFiles = []struct {
	file    string
	dialect Dialect
}{
	{".claude-plugin/plugin.json", DialectClaude},
	{".codex-plugin/plugin.json", DialectCodex},
	{"plugin.json", DialectAgentPlugins},
}

// maxManifest bounds a manifest or server file read.
const maxManifest = 1 << 20

// rawManifest is what the three dialects share; fields they spell
// differently are decoded as json.RawMessage.
type rawManifest struct {
	Name        string          `json:"name"`
	Version     json.RawMessage `json:"version"`
	Description string          `json:"description"`
	Skills      json.RawMessage `json:"skills"`
	Commands    json.RawMessage `json:"commands"`
	Agents      json.RawMessage `json:"agents"`
	Hooks       json.RawMessage `json:"hooks"`
	MCPServers  json.RawMessage `json:"mcpServers"`
	Helios      *HeliosPart     `json:"helios"`
	// Extensions holds vendor fields; github/awesome-copilot declares its
	// plugins' parts under "com.github.awesome-copilot".
	Extensions map[string]json.RawMessage `json:"extensions"`
}

// vendorParts is the part fields a vendor extension may declare.
type vendorParts struct {
	Skills     json.RawMessage `json:"skills"`
	Commands   json.RawMessage `json:"commands"`
	Agents     json.RawMessage `json:"agents"`
	MCPServers json.RawMessage `json:"mcpServers"`
}

// awesomeCopilot is the extension key of github/awesome-copilot's manifests.
const awesomeCopilot = "com.github.awesome-copilot"

// fromExtension fills the part fields the manifest leaves empty from its
// awesome-copilot extension, where that repository's plugins declare them.
func (r *rawManifest) fromExtension() {
	ext, ok := r.Extensions[awesomeCopilot]
	if !ok {
		return
	}
	var v vendorParts
	if json.Unmarshal(ext, &v) != nil {
		return
	}
	for _, f := range []struct{ dst, src *json.RawMessage }{
		{&r.Skills, &v.Skills}, {&r.Commands, &v.Commands}, {&r.Agents, &v.Agents}, {&r.MCPServers, &v.MCPServers},
	} {
		if len(*f.dst) == 0 {
			*f.dst = *f.src
		}
	}
}

// ReadPlugin reads the plugin in dir: .claude-plugin/plugin.json,
// .codex-plugin/plugin.json or plugin.json (the first present), or a bare
// folder holding skills/, commands/, agents/, hooks/hooks.json, .mcp.json or
// mcp.json, named after the folder. A manifest that is not JSON, a path that
// leaves the folder or a symlink pointing out of it is an error naming the
// plugin and the path; a field it cannot use is a warning.
func ReadPlugin(dir string) (Manifest, []Warning, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Manifest{}, nil, fmt.Errorf("read plugin %s: %w", dir, err)
	}
	m := Manifest{Name: filepath.Base(abs), Dialect: DialectFolder}
	var raw rawManifest
	var file string
	for _, mf := range manifestFiles {
		data, err := readInside(abs, mf.file)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return Manifest{}, nil, fmt.Errorf("plugin %s: manifest %s: %w", m.Name, mf.file, err)
		}
		if err := json.Unmarshal(data, &raw); err != nil {
			return Manifest{}, nil, fmt.Errorf("plugin %s: manifest %s: not JSON: %w", m.Name, filepath.Join(abs, mf.file), err)
		}
		raw.fromExtension()
		m.Dialect, file = mf.dialect, mf.file
		break
	}
	var warns []Warning
	warn := func(part, p, reason string) {
		warns = append(warns, Warning{Plugin: m.Name, Part: part, Path: p, Reason: reason})
	}
	if file != "" {
		if raw.Name != "" {
			m.Name = raw.Name
		} else {
			warn("manifest", file, "no \"name\"; the folder's name is used")
		}
		m.Description = raw.Description
		m.Version = versionString(raw.Version)
		m.Helios = raw.Helios
	}

	// Declared paths add to the default folders, as Claude Code reads them.
	for _, f := range []struct {
		part string
		raw  json.RawMessage
		def  string
		dst  *[]string
	}{
		{"skills", raw.Skills, "skills", &m.Skills},
		{"commands", raw.Commands, "commands", &m.Commands},
		{"agents", raw.Agents, "agents", &m.Agents},
	} {
		declared, err := pathList(f.raw)
		if err != nil {
			return Manifest{}, warns, fmt.Errorf("plugin %s: manifest %s: %q: %w", m.Name, file, f.part, err)
		}
		if isDir(abs, f.def) {
			declared = append([]string{f.def}, declared...)
		}
		for _, p := range declared {
			clean, err := inside(abs, p)
			if err != nil {
				return Manifest{}, warns, fmt.Errorf("plugin %s: %s path %q: %w", m.Name, f.part, p, err)
			}
			if _, err := os.Stat(filepath.Join(abs, clean)); err != nil {
				warn(f.part, p, "declared but missing")
				continue
			}
			if !contains(*f.dst, clean) {
				*f.dst = append(*f.dst, clean)
			}
		}
	}

	if err := readHooks(abs, &m, raw.Hooks, file, warn); err != nil {
		return Manifest{}, warns, err
	}
	if err := readMCP(abs, &m, raw.MCPServers, file, warn); err != nil {
		return Manifest{}, warns, err
	}
	if m.Helios != nil {
		if m.Helios.Executable == "" {
			warn("helios", file, "\"helios\" names no \"executable\"")
			m.Helios = nil
		} else if clean, err := inside(abs, m.Helios.Executable); err != nil {
			return Manifest{}, warns, fmt.Errorf("plugin %s: helios executable %q: %w", m.Name, m.Helios.Executable, err)
		} else {
			m.Helios.Executable = clean
		}
	}
	if file == "" && len(m.Skills)+len(m.Commands)+len(m.Agents) == 0 && m.Hooks == "" && len(m.MCPServers) == 0 {
		return Manifest{}, nil, fmt.Errorf("plugin %s: %s: %w (no manifest, skills/, commands/, agents/, hooks/hooks.json or .mcp.json)", m.Name, abs, ErrNotPlugin)
	}
	return m, warns, nil
}

// readHooks fills m.Hooks or m.HooksInline: the manifest's "hooks" (a path,
// a list of paths — the first used — or an inline object), else
// hooks/hooks.json when present.
func readHooks(abs string, m *Manifest, raw json.RawMessage, file string, warn func(part, p, reason string)) error {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0 || string(raw) == "null":
	case string(raw) == "{}":
		// Codex's manifests say "hooks": {} for none.
	case raw[0] == '{':
		m.HooksInline = raw
		return nil
	default:
		paths, err := pathList(raw)
		if err != nil {
			return fmt.Errorf("plugin %s: manifest %s: \"hooks\": %w", m.Name, file, err)
		}
		for i, p := range paths {
			clean, err := inside(abs, p)
			if err != nil {
				return fmt.Errorf("plugin %s: hooks path %q: %w", m.Name, p, err)
			}
			if i > 0 {
				warn("hooks", p, "only the first hooks file is read")
				continue
			}
			m.Hooks = clean
		}
		if m.Hooks != "" {
			return nil
		}
	}
	if isFile(abs, "hooks/hooks.json") {
		m.Hooks = "hooks/hooks.json"
	}
	return nil
}

// readMCP fills m.MCPServers from the manifest's "mcpServers" (an object or a
// path to a server file), else .mcp.json, else mcp.json. A server file holds
// {"mcpServers": {...}} or the servers object itself.
func readMCP(abs string, m *Manifest, raw json.RawMessage, file string, warn func(part, p, reason string)) error {
	raw = bytes.TrimSpace(raw)
	var srvFile string
	switch {
	case len(raw) == 0 || string(raw) == "null":
		for _, f := range []string{".mcp.json", "mcp.json"} {
			if isFile(abs, f) {
				srvFile = f
				break
			}
		}
	case raw[0] == '{':
		servers := map[string]json.RawMessage{}
		if err := json.Unmarshal(raw, &servers); err != nil {
			return fmt.Errorf("plugin %s: manifest %s: \"mcpServers\": %w", m.Name, file, err)
		}
		m.MCPServers = servers
		return nil
	default:
		paths, err := pathList(raw)
		if err != nil {
			return fmt.Errorf("plugin %s: manifest %s: \"mcpServers\": %w", m.Name, file, err)
		}
		for i, p := range paths {
			clean, err := inside(abs, p)
			if err != nil {
				return fmt.Errorf("plugin %s: mcpServers path %q: %w", m.Name, p, err)
			}
			if i > 0 {
				warn("mcp", p, "only the first server file is read")
				continue
			}
			srvFile = clean
		}
	}
	if srvFile == "" {
		return nil
	}
	data, err := readInside(abs, srvFile)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			warn("mcp", srvFile, "declared but missing")
			return nil
		}
		return fmt.Errorf("plugin %s: mcp %s: %w", m.Name, srvFile, err)
	}
	var wrapped struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &wrapped); err != nil {
		warn("mcp", srvFile, "not JSON: "+err.Error())
		return nil
	}
	servers := wrapped.MCPServers
	if servers == nil {
		// The bare shape: the file is the servers object.
		if err := json.Unmarshal(data, &servers); err != nil {
			warn("mcp", srvFile, "not a servers object: "+err.Error())
			return nil
		}
	}
	m.MCPFile = srvFile
	m.MCPServers = servers
	return nil
}

// pathList decodes a manifest path field: a string or a list of strings.
func pathList(raw json.RawMessage) ([]string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var one string
	if err := json.Unmarshal(raw, &one); err == nil {
		return []string{one}, nil
	}
	var many []string
	if err := json.Unmarshal(raw, &many); err != nil {
		return nil, errors.New("want a path or a list of paths")
	}
	return many, nil
}

// versionString renders a manifest version given as a string or a number.
func versionString(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return strings.TrimSpace(string(raw))
}

// ErrOutside is a path or symlink that leaves the plugin's folder.
var ErrOutside = errors.New("leaves the plugin's folder")

// inside cleans p (relative, "./" allowed) and checks that it, and whatever
// symlinks it passes through, stay within root. It returns the clean
// slash-separated path.
func inside(root, p string) (string, error) {
	if p == "" {
		return "", errors.New("empty path")
	}
	if path.IsAbs(p) || filepath.IsAbs(p) {
		return "", fmt.Errorf("absolute path %w", ErrOutside)
	}
	clean := path.Clean(filepath.ToSlash(p))
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return "", ErrOutside
	}
	if err := noLinkOut(root, clean); err != nil {
		return "", err
	}
	return clean, nil
}

// noLinkOut resolves root/rel and refuses it when a symlink takes it out of
// root. A path that does not exist is not refused here.
func noLinkOut(root, rel string) error {
	// Cheap first: Lstat each component below root; with none a symlink the
	// path stays inside. Only a symlink (or an odd path) costs the full
	// resolution of both paths.
	if clean := path.Clean(filepath.ToSlash(rel)); clean != ".." && !strings.HasPrefix(clean, "../") && !path.IsAbs(clean) {
		p, linked := root, false
		for _, c := range strings.Split(clean, "/") {
			if c == "." {
				continue
			}
			p = filepath.Join(p, c)
			fi, err := os.Lstat(p)
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			if err != nil || fi.Mode()&fs.ModeSymlink != 0 {
				linked = true
				break
			}
		}
		if !linked {
			return nil
		}
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return err
	}
	real, err := filepath.EvalSymlinks(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	if !within(realRoot, real) {
		return fmt.Errorf("symlink to %s %w", real, ErrOutside)
	}
	return nil
}

func within(root, p string) bool {
	r, err := filepath.Rel(root, p)
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) && !filepath.IsAbs(r)
}

// readInside reads root/rel, bounded, refusing a symlink out of root.
func readInside(root, rel string) ([]byte, error) {
	if err := noLinkOut(root, rel); err != nil {
		return nil, err
	}
	f, err := os.Open(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	if st.Size() > maxManifest {
		return nil, fmt.Errorf("larger than %d bytes", maxManifest)
	}
	buf := make([]byte, st.Size())
	_, err = io.ReadFull(f, buf)
	return buf, err
}

func isDir(root, rel string) bool {
	st, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel)))
	return err == nil && st.IsDir()
}

func isFile(root, rel string) bool {
	st, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel)))
	return err == nil && st.Mode().IsRegular()
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
