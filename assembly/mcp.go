package assembly

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/http/httpguts"

	"github.com/helios-agents/helios/caps/mcpclient"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/telemetry"
	"github.com/helios-agents/helios/runpin"
	"github.com/helios-agents/helios/sandbox"
)

// MCPConfig is the "mcp" key.
type MCPConfig struct {
	// Servers are the MCP servers whose tools the model gets (as
	// mcp__<name>__<tool>) and whose skills join the catalog (as source
	// mcp:<name>), by name: ^[a-zA-Z0-9_-]{1,56}$. They start with the
	// kernel, in name order.
	Servers map[string]MCPServerConfig `json:"servers"`
}

// MCPServerConfig is one entry of "mcp.servers", in the shape of
// .mcp.json: a command spoken to over stdio, or the URL of a streamable
// HTTP server. In command, args, env values, url and header values,
// ${NAME} (or Cursor's ${env:NAME}) is the kernel's variable NAME and
// ${NAME:-default} the same with a default; the model's API key and
// HELIOS_* variables cannot be used.
type MCPServerConfig struct {
	// Type is "stdio", "http" (streamable HTTP) or "sse" (the HTTP+SSE
	// transport of 2024, which Claude Code and Cursor still take);
	// optional, "stdio" must agree with command and the others with url.
	Type string `json:"type"`
	// Command starts a stdio server: a name on PATH, or a path (relative to
	// the config file's folder).
	Command string `json:"command"`
	// Args are its arguments.
	Args []string `json:"args"`
	// Env is added to the environment the server gets: the one the model's
	// commands get (PATH HOME USER LOGNAME SHELL TERM LANG LC_* TMPDIR TZ,
	// tools.passEnv, tools.env), never model.apiKeyEnv or HELIOS_*.
	Env map[string]string `json:"env"`
	// Cwd is the server's working directory, relative to the work dir.
	// Default: a folder the model cannot write (see serverDir), so that
	// what a server finds from its folder (npx's node_modules/.bin,
	// python -m's modules) is never the model's.
	Cwd string `json:"cwd"`
	// URL is a streamable HTTP server's endpoint.
	URL string `json:"url"`
	// BearerTokenEnv names the variable holding the token sent as
	// "Authorization: Bearer …". It must be set when the kernel starts.
	BearerTokenEnv string `json:"bearerTokenEnv"`
	// Headers are sent with every request.
	Headers map[string]string `json:"headers"`
	// Enabled: false keeps the server off. Default true.
	Enabled *bool `json:"enabled"`
	// Timeout bounds each call to the server. Default "60s".
	Timeout Duration `json:"timeout"`
	// StartTimeout bounds a start: process, handshake and tool list; the
	// first model request waits for a starting server at most this long.
	// Default "30s".
	StartTimeout Duration `json:"startTimeout"`
}

// varRef is one ${NAME} or ${NAME:-default} in a value; ${env:NAME} is
// Cursor's spelling of ${NAME}.
var varRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$\{(?:env:)?([^}:]*)(:-([^}]*))?\}`) })

var varName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })

// The two keys that hold MCP servers: Helios's own, and Claude Code's and
// Cursor's (a pasted .mcp.json).
const (
	mcpServersKey    = "mcp.servers"
	mcpServersKeyAlt = "mcpServers"
)

// mcpEntry is one configured server and the key that holds it.
type mcpEntry struct {
	name, key string
	MCPServerConfig
}

// mcpEntries returns the servers of mcp.servers and mcpServers in name
// order (a name in both comes twice, mcp.servers first; mcpProblems
// refuses that).
func mcpEntries(c Config) []mcpEntry {
	out := make([]mcpEntry, 0, len(c.MCP.Servers)+len(c.MCPServers))
	for n, s := range c.MCP.Servers {
		out = append(out, mcpEntry{n, mcpServersKey, s})
	}
	for n, s := range c.MCPServers {
		out = append(out, mcpEntry{n, mcpServersKeyAlt, s})
	}
	slices.SortFunc(out, func(a, b mcpEntry) int { return cmp.Or(cmp.Compare(a.name, b.name), cmp.Compare(a.key, b.key)) })
	return out
}

// mcpPath is the JSON path of a server's key under mcp.servers or
// mcpServers; a name outside the pattern (spaces, quotes) is quoted.
func mcpPath(e mcpEntry, key ...string) string {
	p, name := e.key+".", e.name
	if mcpclient.ValidServerName(name) {
		p += name
	} else {
		p += strconv.Quote(name)
	}
	for _, k := range key {
		p += "." + k
	}
	return p
}

// mcpProblems checks the "mcp" key without looking at the environment:
// names, one transport per server and only its keys, URLs, header and
// variable names, and that no value reaches for the model's API key or a
// HELIOS_* variable.
func mcpProblems(c Config) []string {
	var out []string
	add := func(path, format string, a ...any) { out = append(out, path+": "+fmt.Sprintf(format, a...)) }
	deny := denyEnv(c)
	entries := mcpEntries(c)
	for i, e := range entries {
		name, s := e.name, e.MCPServerConfig
		at := func(k ...string) string { return mcpPath(e, k...) }
		if !mcpclient.ValidServerName(name) {
			add(at(), "a server's name must match ^[a-zA-Z0-9_-]{1,%d}$ (it becomes part of tool names, at most 64 characters)", mcpclient.MaxServerName)
		}
		if strings.Contains(name, "__") {
			add(at(), `a server's name may not contain "__": tools are named mcp__<server>__<tool>, so server "a__b" with tool "c" would be server "a" with tool "b__c"`)
		}
		if i > 0 && entries[i-1].name == name {
			add(at(), "also configured in %s: a name is one server; keep one of the two", mcpPath(entries[i-1]))
		}
		switch {
		case s.Command != "" && s.URL != "":
			add(at(), "both command and url: a server is either a command (stdio) or a url (streamable HTTP)")
		case s.Command == "" && s.URL == "":
			add(at(), "neither command nor url")
		}
		switch s.Type {
		case "", "stdio", "http", "sse":
		default:
			add(at("type"), "unknown value %q (want stdio, http or sse)", s.Type)
		}
		if s.Type == "stdio" && s.URL != "" || (s.Type == "http" || s.Type == "sse") && s.Command != "" {
			add(at("type"), "%q does not agree with the server's %s", s.Type, map[bool]string{true: "url", false: "command"}[s.URL != ""])
		}
		if s.URL != "" {
			for k, set := range map[string]bool{"args": s.Args != nil, "env": s.Env != nil, "cwd": s.Cwd != ""} {
				if set {
					add(at(k), "only a command (stdio) server takes %s", k)
				}
			}
			if !varRef().MatchString(s.URL) {
				if err := mcpclient.CheckURL(s.URL); err != nil {
					add(at("url"), "%v", err)
				}
			}
		}
		if s.Command != "" {
			for k, set := range map[string]bool{"bearerTokenEnv": s.BearerTokenEnv != "", "headers": s.Headers != nil} {
				if set {
					add(at(k), "only a url (streamable HTTP) server takes %s", k)
				}
			}
		}
		for _, k := range sortedStrings(s.Env) {
			if err := sandbox.CheckEnvName(k, deny); err != nil {
				add(at("env", k), "%v", err)
			}
		}
		for _, k := range sortedStrings(s.Headers) {
			switch {
			case !httpguts.ValidHeaderFieldName(k):
				add(at("headers", k), "not a header name")
			case !httpguts.ValidHeaderFieldValue(s.Headers[k]):
				add(at("headers", k), "the value holds a line break or a control character")
			case strings.EqualFold(k, "Authorization") && s.BearerTokenEnv != "":
				add(at("headers", k), "set by bearerTokenEnv already")
			}
		}
		if s.BearerTokenEnv != "" {
			if !varName().MatchString(s.BearerTokenEnv) {
				add(at("bearerTokenEnv"), "%q is not a variable name", s.BearerTokenEnv)
			} else if slices.Contains(deny, s.BearerTokenEnv) {
				add(at("bearerTokenEnv"), "%s holds the model's API key (model.apiKeyEnv), which is never sent to an MCP server", s.BearerTokenEnv)
			}
		}
		for _, v := range mcpValues(s) {
			for _, m := range varRef().FindAllStringSubmatch(v.value, -1) {
				switch ref := m[1]; {
				case !varName().MatchString(ref):
					add(at(v.path...), "${%s}: not a variable name", ref)
				case slices.Contains(deny, ref):
					add(at(v.path...), "${%s} is the model's API key (model.apiKeyEnv), which never reaches an MCP server", ref)
				case strings.HasPrefix(ref, sandbox.ReservedPrefix):
					add(at(v.path...), "${%s}: %s* variables configure Helios and never reach an MCP server", ref, sandbox.ReservedPrefix)
				}
			}
		}
	}
	return out
}

// denyEnv names the variables that never reach a server: the model's key.
func denyEnv(c Config) []string {
	if key := apiKeyEnv(c.Model); key != "" {
		return []string{key}
	}
	return nil
}

// mcpValue is one value of a server's config that may hold ${NAME}.
type mcpValue struct {
	path  []string
	value string
}

func mcpValues(s MCPServerConfig) []mcpValue {
	vs := []mcpValue{{[]string{"command"}, s.Command}, {[]string{"url"}, s.URL}}
	for i, a := range s.Args {
		vs = append(vs, mcpValue{[]string{fmt.Sprintf("args[%d]", i)}, a})
	}
	for _, k := range sortedStrings(s.Env) {
		vs = append(vs, mcpValue{[]string{"env", k}, s.Env[k]})
	}
	for _, k := range sortedStrings(s.Headers) {
		vs = append(vs, mcpValue{[]string{"headers", k}, s.Headers[k]})
	}
	return vs
}

// expand replaces each ${NAME} of v with the variable's value (or its
// default); an unset variable without a default is an error naming it.
func expand(v string, getenv func(string) (string, bool)) (string, error) {
	var missing []string
	out := varRef().ReplaceAllStringFunc(v, func(ref string) string {
		m := varRef().FindStringSubmatch(ref)
		if val, ok := getenv(m[1]); ok {
			return val
		}
		if m[2] != "" {
			return m[3]
		}
		missing = append(missing, m[1])
		return ref
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("${%s} is unset", strings.Join(missing, "}, ${"))
	}
	return out, nil
}

// foreignDialects are the top-level keys other agents keep MCP servers
// under, with the file they come from.
var foreignDialects = map[string]string{
	"mcp_servers":     "Codex's key (config.toml's [mcp_servers.NAME] tables)",
	"servers":         "VS Code's key (.vscode/mcp.json)",
	"inputs":          "VS Code's prompted inputs (.vscode/mcp.json); Helios prompts for nothing: use ${NAME} for a variable of the environment",
	"context_servers": "Zed's key (settings.json)",
}

// foreignMCPKeys names each top-level key of raw that holds MCP servers in
// another agent's dialect, and what Helios expects instead.
func foreignMCPKeys(raw json.RawMessage) []string {
	var top map[string]json.RawMessage
	if json.Unmarshal(raw, &top) != nil {
		return nil // not an object: decodeStrict says so
	}
	var out []string
	for _, k := range sortedKeys(top) {
		if what, ok := foreignDialects[k]; ok {
			out = append(out, fmt.Sprintf(`%s: this is %s; Helios reads MCP servers from "mcpServers" (Claude Code's and Cursor's .mcp.json: `+
				`{"mcpServers": {"NAME": {"command", "args", "env"} or {"type": "http", "url", "headers"}}}) or "mcp.servers" (the same shape)`, k, what))
		}
	}
	return out
}

// mcpServerConfigs turns mcp.servers and mcpServers into the servers'
// configs, in name order: variables expanded, the command resolved against
// base (the config file's folder), the environment the allowlisted one of
// box plus the server's env, the bearer token read. A server that needs a
// variable that is unset (a ${NAME} without a default, its bearerTokenEnv)
// or whose URL is no URL once expanded is disabled, and one warning per
// such server names it, its JSON paths and the variables: the other
// servers run. A disabled server's variables are not read.
func mcpServerConfigs(cfg Config, base, workDir string, box sandbox.Config) ([]mcpclient.ServerConfig, []contract.Warning, error) {
	if p := mcpProblems(cfg); len(p) > 0 {
		return nil, nil, fmt.Errorf("%w: %s", ErrConfig, strings.Join(p, "; "))
	}
	getenv := os.LookupEnv
	var out []mcpclient.ServerConfig
	var warnings []contract.Warning
	for _, e := range mcpEntries(cfg) {
		name, s := e.name, e.MCPServerConfig
		sc := mcpclient.ServerConfig{
			Name:         name,
			Disabled:     s.Enabled != nil && !*s.Enabled,
			Timeout:      time.Duration(s.Timeout),
			StartTimeout: time.Duration(s.StartTimeout),
		}
		if sc.Disabled {
			sc.Command, sc.URL, sc.SSE = s.Command, s.URL, s.Type == "sse"
			out = append(out, sc)
			continue
		}
		var problems []string
		ex := func(path []string, v string) string {
			r, err := expand(v, getenv)
			if err != nil {
				problems = append(problems, mcpPath(e, path...)+": "+err.Error())
			}
			return r
		}
		sc.Command = ex([]string{"command"}, s.Command)
		if strings.ContainsRune(sc.Command, filepath.Separator) {
			sc.Command = resolve(base, sc.Command)
		}
		for i, a := range s.Args {
			sc.Args = append(sc.Args, ex([]string{fmt.Sprintf("args[%d]", i)}, a))
		}
		if s.Command != "" {
			var env []string
			for _, k := range sortedStrings(s.Env) {
				env = append(env, k+"="+ex([]string{"env", k}, s.Env[k]))
			}
			sc.Env = sandbox.Environ(box, env...)
			sc.Dir = serverDir(s.Cwd, base, workDir, box)
		}
		sc.URL, sc.SSE = ex([]string{"url"}, s.URL), s.Type == "sse"
		if s.URL != "" && len(problems) == 0 {
			if err := mcpclient.CheckURL(sc.URL); err != nil {
				problems = append(problems, mcpPath(e, "url")+": "+err.Error())
			}
		}
		for _, k := range sortedStrings(s.Headers) {
			if sc.Headers == nil {
				sc.Headers = map[string]string{}
			}
			sc.Headers[k] = ex([]string{"headers", k}, s.Headers[k])
		}
		if s.BearerTokenEnv != "" {
			if tok, _ := getenv(s.BearerTokenEnv); tok != "" {
				sc.BearerToken = tok
			} else {
				problems = append(problems, mcpPath(e, "bearerTokenEnv")+fmt.Sprintf(": the variable %s is unset or empty", s.BearerTokenEnv))
			}
		}
		if len(problems) > 0 {
			why := strings.Join(problems, "; ")
			warnings = append(warnings, contract.Warning{Source: "config", Path: mcpPath(e), Message: fmt.Sprintf("MCP server %q is off: %s", name, why)})
			// Nothing half-expanded is kept: the server is shown as
			// configured, and never started.
			sc = mcpclient.ServerConfig{Name: name, Disabled: true, DisabledReason: why, Command: s.Command, URL: s.URL, SSE: s.Type == "sse"}
		}
		out = append(out, sc)
	}
	return out, warnings, nil
}

// openMCP starts the configured MCP servers, each in the background, and
// adds them to opened so that a failed assembly stops them. The kernel
// stops them on Close: each is an io.Closer.
func openMCP(cfg Config, base, workDir string, box sandbox.Config, opts Options, pins *runpin.Pins, tel *telemetry.T, opened *[]io.Closer) ([]kernel.Capability, error) {
	if len(cfg.MCP.Servers)+len(cfg.MCPServers) == 0 || opts.NoMCP {
		return nil, nil
	}
	configs, warnings, err := mcpServerConfigs(cfg, base, workDir, box)
	if err != nil {
		return nil, err
	}
	for _, w := range warnings {
		if opts.Logger != nil {
			opts.Logger.Warn(w.Message)
		}
		if opts.OnWarning != nil {
			opts.OnWarning(w)
		}
	}
	servers, err := mcpclient.Start(mcpclient.Config{
		Servers:   configs,
		WorkDir:   workDir,
		MaxOutput: cfg.Tools.MaxOutput,
		Logger:    opts.Logger,
		Telemetry: tel,
		Pins:      pins,
	})
	if err != nil {
		return nil, fmt.Errorf("%w: MCP servers: %w", ErrConfig, err)
	}
	caps := make([]kernel.Capability, len(servers))
	for i, s := range servers {
		*opened = append(*opened, s)
		caps[i] = s
	}
	return caps, nil
}

// serverDir is a stdio server's working directory: cwd, relative to the
// work dir, when the config sets one; else a folder the model's commands
// cannot write: the config's folder when it lies outside the work dir and
// tools.sandbox.writable, else the home directory, else "/".
func serverDir(cwd, base, workDir string, box sandbox.Config) string {
	if cwd != "" {
		return resolve(workDir, cwd)
	}
	writable := func(dir string) bool {
		for _, root := range append([]string{workDir}, box.Writable...) {
			if within(root, dir) {
				return true
			}
			if r, err := filepath.EvalSymlinks(root); err == nil {
				if d, err := filepath.EvalSymlinks(dir); err == nil && within(r, d) {
					return true
				}
			}
		}
		return false
	}
	for _, dir := range []string{base, homeDir()} {
		if dir != "" && !writable(dir) {
			return dir
		}
	}
	return "/"
}

// homeDir is the user's home directory, "" when unknown.
func homeDir() string {
	h, _ := os.UserHomeDir()
	return h
}
