package assembly

import (
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
	"github.com/helios-agents/helios/kernel/sandbox"
	"github.com/helios-agents/helios/kernel/telemetry"
)

// MCPConfig is the "mcp" key.
type MCPConfig struct {
	// Servers are the MCP servers whose tools the model gets (as
	// mcp__<name>__<tool>) and whose skills join the catalog (as source
	// mcp:<name>), by name: ^[a-zA-Z0-9_-]{1,32}$. They start with the
	// kernel, in name order.
	Servers map[string]MCPServerConfig `json:"servers"`
}

// MCPServerConfig is one entry of "mcp.servers", in the shape of
// .mcp.json: a command spoken to over stdio, or the URL of a streamable
// HTTP server. In command, args, env values, url and header values,
// ${NAME} is the kernel's variable NAME and ${NAME:-default} the same with a
// default; the model's API key and HELIOS_* variables cannot be used.
type MCPServerConfig struct {
	// Type is "stdio" or "http"; optional, it must agree with command or
	// url.
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
	// Default: the work dir.
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

// varRef is one ${NAME} or ${NAME:-default} in a value.
var varRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$\{([^}:]*)(:-([^}]*))?\}`) })

var varName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })

// mcpServerNames returns the configured names in order.
func mcpServerNames(c MCPConfig) []string {
	names := make([]string, 0, len(c.Servers))
	for n := range c.Servers {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// mcpPath is the JSON path of a server's key; a name outside the pattern
// (spaces, quotes) is quoted.
func mcpPath(name string, key ...string) string {
	p := "mcp.servers."
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
	for _, name := range mcpServerNames(c.MCP) {
		s := c.MCP.Servers[name]
		at := func(k ...string) string { return mcpPath(name, k...) }
		if !mcpclient.ValidServerName(name) {
			add(at(), "a server's name must match ^[a-zA-Z0-9_-]{1,32}$ (it becomes part of tool names)")
		}
		switch {
		case s.Command != "" && s.URL != "":
			add(at(), "both command and url: a server is either a command (stdio) or a url (streamable HTTP)")
		case s.Command == "" && s.URL == "":
			add(at(), "neither command nor url")
		}
		switch s.Type {
		case "", "stdio", "http":
		case "sse":
			add(at("type"), `"sse" (the HTTP+SSE transport of 2024) is not supported; use a streamable HTTP server ("http")`)
		default:
			add(at("type"), "unknown value %q (want stdio or http)", s.Type)
		}
		if s.Type == "stdio" && s.URL != "" || s.Type == "http" && s.Command != "" {
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

// mcpServerConfigs turns the "mcp" key into the servers' configs, in name
// order: variables expanded, the command resolved against base (the config
// file's folder), the environment the allowlisted one of box plus the
// server's env, the bearer token read. Every problem is an error naming its
// JSON path; a disabled server's variables are not read.
func mcpServerConfigs(cfg Config, base, workDir string, box sandbox.Config) ([]mcpclient.ServerConfig, error) {
	if p := mcpProblems(cfg); len(p) > 0 {
		return nil, fmt.Errorf("%w: %s", ErrConfig, strings.Join(p, "; "))
	}
	getenv := os.LookupEnv
	var out []mcpclient.ServerConfig
	var problems []string
	for _, name := range mcpServerNames(cfg.MCP) {
		s := cfg.MCP.Servers[name]
		sc := mcpclient.ServerConfig{
			Name:         name,
			Disabled:     s.Enabled != nil && !*s.Enabled,
			Timeout:      time.Duration(s.Timeout),
			StartTimeout: time.Duration(s.StartTimeout),
		}
		if sc.Disabled {
			sc.Command, sc.URL = s.Command, s.URL
			out = append(out, sc)
			continue
		}
		ex := func(path []string, v string) string {
			r, err := expand(v, getenv)
			if err != nil {
				problems = append(problems, mcpPath(name, path...)+": "+err.Error())
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
			sc.Dir = resolve(workDir, s.Cwd)
		}
		sc.URL = ex([]string{"url"}, s.URL)
		if s.URL != "" {
			if err := mcpclient.CheckURL(sc.URL); err != nil {
				problems = append(problems, mcpPath(name, "url")+": "+err.Error())
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
				problems = append(problems, mcpPath(name, "bearerTokenEnv")+fmt.Sprintf(": the variable %s is unset or empty", s.BearerTokenEnv))
			}
		}
		out = append(out, sc)
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("%w: %s", ErrConfig, strings.Join(problems, "; "))
	}
	return out, nil
}

// openMCP starts the configured MCP servers, each in the background, and
// adds them to opened so that a failed assembly stops them. The kernel
// stops them on Close: each is an io.Closer.
func openMCP(cfg Config, base, workDir string, box sandbox.Config, opts Options, tel *telemetry.T, opened *[]io.Closer) ([]kernel.Capability, error) {
	if len(cfg.MCP.Servers) == 0 || opts.NoMCP {
		return nil, nil
	}
	configs, err := mcpServerConfigs(cfg, base, workDir, box)
	if err != nil {
		return nil, err
	}
	servers, err := mcpclient.Start(mcpclient.Config{
		Servers:   configs,
		WorkDir:   workDir,
		MaxOutput: cfg.Tools.MaxOutput,
		Logger:    opts.Logger,
		Telemetry: tel,
	})
	if err != nil {
		return nil, fmt.Errorf("%w: mcp.servers: %w", ErrConfig, err)
	}
	caps := make([]kernel.Capability, len(servers))
	for i, s := range servers {
		*opened = append(*opened, s)
		caps[i] = s
	}
	return caps, nil
}
