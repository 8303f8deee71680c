package assembly

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/helios-agents/helios/caps/cmdhooks"
	"github.com/helios-agents/helios/caps/permissions"
	"github.com/helios-agents/helios/kernel/bytesize"
)

// Config is the shape of helios.config.json. Every field is optional; the
// zero value means the documented default.
type Config struct {
	// WorkDir is the agent's work dir, relative to the config file's folder
	// ("." is that folder). Default: the current directory. The CLI's
	// --work-dir overrides it.
	WorkDir string `json:"workDir"`
	// Skills configures the skill sources and how they reach the model.
	Skills SkillsConfig `json:"skills"`
	// Extensions are local capability folders: each holds an EXTENSION.md
	// (frontmatter name and description) and optionally a skills/ root.
	Extensions []ExtensionConfig `json:"extensions"`
	// Plugins are out-of-process capabilities (see PluginConfig); their
	// hook handlers always run after every builtin.
	Plugins []PluginConfig `json:"plugins"`
	// Model is the model endpoint sessions talk to.
	Model ModelConfig `json:"model"`
	// Sessions configures the session log and the step loop.
	Sessions SessionsConfig `json:"sessions"`
	// Tools configures the builtin tools.
	Tools ToolsConfig `json:"tools"`
	// Telemetry configures OpenTelemetry traces and metrics. Off by default.
	Telemetry TelemetryConfig `json:"telemetry"`
	// MCP configures the MCP servers the kernel uses (see MCPConfig).
	MCP MCPConfig `json:"mcp"`
	// MCPServers are more MCP servers, under Claude Code's and Cursor's key:
	// a .mcp.json pasted as it is. Same shape as mcp.servers; a name is in
	// one of the two.
	MCPServers map[string]MCPServerConfig `json:"mcpServers"`
	// Hooks are the person's own hook commands, in the shape of the "hooks"
	// object of Claude Code's settings (see cmdhooks.Settings): event →
	// matcher groups → commands. They run unconfined, after every builtin
	// handler of their mount point and before every plugin's. In the file
	// the key may instead name a hooks file (cmdhooks.Parse), relative to
	// the config's folder; ParseConfig reads it into Hooks.
	Hooks cmdhooks.Settings `json:"hooks"`
	// Instructions configures the project instructions (AGENTS.md,
	// CLAUDE.md) sessions start with.
	Instructions InstructionsConfig `json:"instructions"`
	// Agents configures subagents: the Agent tool and the folders of agent
	// definitions (see AgentsConfig).
	Agents AgentsConfig `json:"agents"`
	// Permissions are the permission rules (C31), in the shape of Claude
	// Code's settings: allow, ask and deny lists of rules and defaultMode.
	// Paths in rules ("./x") are relative to the config's folder. The
	// "permissions" of ~/.helios/settings.json apply under these.
	Permissions permissions.Config `json:"permissions,omitempty"`

	// hooksFrom is where ParseConfig found Hooks, with what it found wrong
	// and what it warns about.
	hooksFrom cmdhooks.Source
}

// InstructionsConfig is the "instructions" key.
type InstructionsConfig struct {
	// Enabled turns the instructions on; default true. False: no
	// instruction file is read, sessions start without them.
	Enabled *bool `json:"enabled"`
	// MaxBytes is their budget in bytes; default 32768. Over it the
	// farthest files are cut first.
	MaxBytes int `json:"maxBytes"`
}

// On reports whether the instructions are on.
func (c InstructionsConfig) On() bool { return c.Enabled == nil || *c.Enabled }

// AgentsConfig is the "agents" key. Definitions are read from
// <work>/.helios/agents and <work>/.claude/agents (through the guarded
// port), ~/.helios/agents, ~/.claude/agents, then Dirs.
type AgentsConfig struct {
	// Enabled offers the Agent tool; default true. False: no subagents.
	Enabled *bool `json:"enabled"`
	// MaxConcurrent bounds the Agent calls of one step running at once;
	// default 4.
	MaxConcurrent int `json:"maxConcurrent"`
	// MaxDepth is how deep subagents nest; default 1 (a subagent cannot
	// start subagents).
	MaxDepth int `json:"maxDepth"`
	// Models maps a definition's model alias ("sonnet", "fast") to a model
	// name of the configured provider.
	Models map[string]string `json:"models"`
	// Dirs are more folders of agent files, relative to the config's
	// folder (a leading ~ is the home directory), read after the user's.
	Dirs []string `json:"dirs"`
}

// On reports whether subagents are on.
func (c AgentsConfig) On() bool { return c.Enabled == nil || *c.Enabled }

// TelemetryConfig is the "telemetry" key. The standard variables
// (OTEL_TRACES_EXPORTER, OTEL_METRICS_EXPORTER, OTEL_EXPORTER_OTLP_ENDPOINT,
// OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES) fill what it leaves out; what
// it sets wins.
type TelemetryConfig struct {
	// Traces and Metrics choose each signal's exporter.
	Traces  TelemetrySignal `json:"traces"`
	Metrics TelemetrySignal `json:"metrics"`
	// CaptureContent records prompts, completions, tool arguments and tool
	// results in spans. Default false: no content leaves the kernel.
	CaptureContent bool `json:"captureContent"`
	// ServiceName is service.name. Default OTEL_SERVICE_NAME, else "helios".
	ServiceName string `json:"serviceName"`
}

// TelemetrySignal is "telemetry.traces" or "telemetry.metrics".
type TelemetrySignal struct {
	// Exporter is "none" (default), "otlp-http", "otlp-grpc", "stdout" or
	// "file".
	Exporter Exporter `json:"exporter"`
	// Endpoint is the collector: a base URL for otlp-http
	// (http://localhost:4318), an address for otlp-grpc (localhost:4317).
	// Default OTEL_EXPORTER_OTLP_ENDPOINT, else the exporter's default.
	Endpoint string `json:"endpoint"`
	// Path is the file exporter's file, relative to the config file's
	// folder: one OTLP/JSON object per line, appended to.
	Path string `json:"path"`
}

// ModelConfig is the "model" key. Without a name (and, for "openai", a
// baseURL) no session can run (the skills and hooks commands still work).
type ModelConfig struct {
	// Provider is the API the endpoint speaks: "openai" (the default: any
	// OpenAI-compatible Chat Completions endpoint) or "anthropic"
	// (Anthropic's Messages API, with prompt caching).
	Provider Provider `json:"provider"`
	// BaseURL is the API root. For "openai", any OpenAI-compatible Chat
	// Completions endpoint: https://api.deepseek.com/v1,
	// https://api.openai.com/v1, http://localhost:11434/v1 (Ollama),
	// http://localhost:8080/v1 (vLLM, llama.cpp server). For "anthropic",
	// default https://api.anthropic.com (set it for a gateway).
	BaseURL string `json:"baseURL"`
	// Name is the model name the endpoint expects.
	Name string `json:"name"`
	// APIKeyEnv names the environment variable holding the API key (sent
	// as "Authorization: Bearer" to "openai", as x-api-key to
	// "anthropic"). Default "HELIOS_API_KEY"; "" means the endpoint needs
	// no key (a local server).
	APIKeyEnv *string `json:"apiKeyEnv"`
	// MaxRetries on 429 and 5xx answers (529 included); default 3.
	MaxRetries int `json:"maxRetries"`
	// Temperature, when set, is sent with each request.
	Temperature *float64 `json:"temperature"`
	// MaxTokens caps each answer; it must be positive. Unset: the server's
	// default for "openai"; for "anthropic" (where the API requires one)
	// the most the model family allows, up to 32000.
	MaxTokens *int `json:"maxTokens"`
	// PromptCacheKey sends the session ID as prompt_cache_key, so that
	// OpenAI serves a session's requests from the same prompt cache.
	// "openai" only; off by default, since not every compatible server
	// accepts the field.
	PromptCacheKey bool `json:"promptCacheKey"`
	// ContextWindow is the model's context window in tokens; a percentage
	// skills.catalog.budget is taken of it (4 characters a token). Default
	// 128000; it must be positive.
	ContextWindow *int `json:"contextWindow"`
}

// SessionsConfig is the "sessions" key.
type SessionsConfig struct {
	// Dir holds one JSONL file per session. Default ~/.helios/sessions.
	Dir string `json:"dir"`
	// MaxSteps bounds the steps of one turn. Default 50.
	MaxSteps int `json:"maxSteps"`
	// ContextBudget is the size in bytes of the model's view past which
	// the context is compacted. Default 400000 (about 100k tokens).
	ContextBudget int `json:"contextBudget"`
	// MaxLine bounds one line (one event) of a session file, in bytes: a
	// longer event is refused on append, and a file with a longer line is
	// refused on reading with an error naming the file, the line and the
	// limit. Default 16777216 (16 MiB).
	MaxLine int `json:"maxLine"`
	// Store is "jsonl" (default: one file per session under Dir) or
	// "postgres" (a database shared by several hosts; see Postgres).
	Store StoreKind `json:"store"`
	// Postgres configures the "postgres" store.
	Postgres PostgresConfig `json:"postgres"`
}

// PostgresConfig is the "sessions.postgres" key. The URL itself never
// sits in the config file: it is read from the environment.
type PostgresConfig struct {
	// URLEnv names the environment variable holding the database URL.
	// Default "HELIOS_POSTGRES_URL".
	URLEnv string `json:"urlEnv"`
	// MaxConns bounds the connection pool; each session open for writing
	// holds one connection. Default 10.
	MaxConns int `json:"maxConns"`
}

// ToolsConfig is the "tools" key.
type ToolsConfig struct {
	// BashTimeout is the default time limit of a Bash call. Default "2m".
	BashTimeout Duration `json:"bashTimeout"`
	// MaxOutput is how many bytes of a tool's output the model gets.
	// Default 30000.
	MaxOutput int `json:"maxOutput"`
	// Env is set for every command the model runs (name → value).
	Env map[string]string `json:"env"`
	// PassEnv names variables passed from the kernel's environment to the
	// model's commands, besides PATH HOME USER LOGNAME SHELL TERM LANG LC_*
	// TMPDIR TZ. Neither may name model.apiKeyEnv or a HELIOS_* variable.
	PassEnv []string `json:"passEnv"`
	// Sandbox confines the model's commands.
	Sandbox SandboxConfig `json:"sandbox"`
}

// SandboxConfig is the "tools.sandbox" key.
type SandboxConfig struct {
	// Mode is "workspace-write" (the default on Linux: write only the work
	// dir, the session's temp dir and Writable), "read-only" (write only the
	// session's temp dir) or "off" (unconfined).
	Mode SandboxMode `json:"mode"`
	// Writable are absolute, existing paths commands may also write in
	// workspace-write mode, outside the protected paths (helios.config.json,
	// .git, .helios and .agents but their skills folders, ~/.helios), which
	// stay read-only at the top of each as in the work dir.
	Writable []string `json:"writable"`
	// Network lets confined commands reach the network. Default false: no
	// IP socket, and no Unix socket but socket pairs and UnixSockets.
	Network bool `json:"network"`
	// UnixSockets are absolute paths of existing Unix sockets commands may
	// connect to with the network off (needs Landlock ABI 9).
	UnixSockets []string `json:"unixSockets"`
}

// SkillsConfig is the "skills" key.
type SkillsConfig struct {
	// Mode is "catalog" (default) or "tools".
	Mode SkillsMode `json:"mode"`
	// UserRoots replaces the user-level roots (default ~/.helios/skills,
	// ~/.agents/skills, then ~/.claude/skills). A leading ~/ is the home
	// directory. An empty list reads no user-level skills.
	UserRoots *[]string `json:"userRoots"`
	// ProjectRoots replaces the project roots, relative to the work dir
	// (default .helios/skills, .agents/skills, then .claude/skills).
	ProjectRoots *[]string `json:"projectRoots"`
	// Watch configures how long-running commands keep the catalog fresh.
	Watch WatchConfig `json:"watch"`
	// MaxFrontmatter is how many bytes discovery reads from the start of a
	// SKILL.md (or EXTENSION.md) to find the end of its frontmatter; a
	// frontmatter not closed within it is skipped with a warning. Default
	// 65536 (64 KiB).
	MaxFrontmatter int `json:"maxFrontmatter"`
	// MaxFileSize is the largest skill file a load reads; a larger one is
	// refused with an error the model reads. Default 8388608 (8 MiB).
	MaxFileSize int64 `json:"maxFileSize"`
	// Catalog bounds the catalog message the model receives.
	Catalog CatalogConfig `json:"catalog"`
	// Tools bounds tools mode.
	Tools SkillToolsConfig `json:"tools"`
}

// CatalogConfig is the "skills.catalog" key.
type CatalogConfig struct {
	// Budget is the most characters of catalog message, as a number (12000)
	// or a percentage of model.contextWindow ("2%", the default).
	Budget BudgetValue `json:"budget"`
	// Pinned names skills that come first and keep their full descriptions
	// whenever their lines alone fit. A name not in the catalog is a warning.
	Pinned []string `json:"pinned"`
}

// SkillToolsConfig is the "skills.tools" key.
type SkillToolsConfig struct {
	// Max bounds the tools of tools mode. Default 128; it must be positive.
	Max *int `json:"max"`
}

// WatchConfig is the "skills.watch" key.
type WatchConfig struct {
	// Mode is "native" (default: inotify through fsnotify), "poll" (stat the
	// roots every pollInterval; for network file systems and containers
	// where events do not arrive) or "off" (read the folders at every
	// snapshot).
	Mode WatchMode `json:"mode"`
	// PollInterval is the poll period, also used to look for a missing
	// root's next folder. Default "1s".
	PollInterval Duration `json:"pollInterval"`
	// WriteStability holds back a changed SKILL.md until its size and mtime
	// stayed the same this long, so a half-written file is not published.
	// Default "0s" (off): events are already coalesced over 50ms.
	WriteStability Duration `json:"writeStability"`
	// FollowSymlinks watches the target of a symlinked skill folder.
	// Default true.
	FollowSymlinks *bool `json:"followSymlinks"`
	// ProjectWatchers bounds the watched sets of roots; the least recently
	// observed is evicted beyond it. Default 32.
	ProjectWatchers int `json:"projectWatchers"`
}

// ExtensionConfig is one entry of "extensions".
type ExtensionConfig struct {
	// Dir is the extension's folder, relative to the config file's folder.
	Dir string `json:"dir"`
}

// The keys with a fixed set of values each have their own type, with a
// constant per value; "" (the key absent) means the default. Decoding
// takes any string; Validate refuses a value outside the set, naming the
// key and the values it accepts (see enumProblems).

// ErrConfig is wrapped by every configuration error.
var ErrConfig = errors.New("invalid config")

// ParseConfig decodes a config strictly. name is used in errors. Empty input
// (or only whitespace) is the default config; input over MaxConfigSize is
// refused.
func ParseConfig(name string, data []byte) (Config, error) {
	var cfg Config
	if len(data) > MaxConfigSize {
		return cfg, fmt.Errorf("%w: %s: the file is over the limit of %s; a Helios config is a few KiB (is this the right file?)", ErrConfig, name, bytesize.Text(MaxConfigSize))
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return cfg, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return cfg, fmt.Errorf("%w: %s: %s", ErrConfig, name, syntaxError(data, err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return cfg, fmt.Errorf("%w: %s: unexpected data after the top-level object", ErrConfig, name)
	}
	if p := foreignMCPKeys(raw); len(p) > 0 {
		return cfg, fmt.Errorf("%w: %s: %s", ErrConfig, name, strings.Join(p, "; "))
	}
	raw, hooks := cutHooks(raw)
	if err := decodeStrict(raw, reflect.ValueOf(&cfg).Elem(), ""); err != nil {
		return Config{}, fmt.Errorf("%w: %s: %w", ErrConfig, name, err)
	}
	if hooks != nil {
		cfg.hooksFrom = cmdhooks.Parse(hooks, filepath.Dir(name))
		cfg.Hooks = cfg.hooksFrom.Settings
	}
	if p := cfg.problems(); len(p) > 0 {
		return Config{}, fmt.Errorf("%w: %s: %s", ErrConfig, name, strings.Join(p, "; "))
	}
	return cfg, nil
}

// cutHooks takes the "hooks" key out of a config object: it is decoded by
// cmdhooks.Parse, which reads a file it names and reports every problem
// and unknown key instead of stopping at the first.
func cutHooks(raw json.RawMessage) (json.RawMessage, json.RawMessage) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil || obj["hooks"] == nil {
		return raw, nil
	}
	hooks := obj["hooks"]
	delete(obj, "hooks")
	rest, err := json.Marshal(obj)
	if err != nil || bytes.Equal(bytes.TrimSpace(hooks), []byte("null")) {
		return rest, nil
	}
	return rest, hooks
}

// decodeStrict decodes raw into v, refusing unknown keys, and names the JSON
// path of the first problem.
func decodeStrict(raw json.RawMessage, v reflect.Value, path string) error {
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil // the default
	}
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		return decodeStrict(raw, v.Elem(), path)
	}
	if _, custom := v.Addr().Interface().(json.Unmarshaler); custom {
		return atPath(path, json.Unmarshal(raw, v.Addr().Interface()))
	}
	switch v.Kind() {
	case reflect.Struct:
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(raw, &obj); err != nil {
			return atPath(path, fmt.Errorf("want an object, got %s", kindOf(raw)))
		}
		fields := jsonFields(v.Type())
		for _, key := range sortedKeys(obj) {
			i, ok := fields[key]
			if !ok {
				return atPath(join(path, key), fmt.Errorf("unknown key (known keys: %s)", strings.Join(knownKeys(v.Type()), ", ")))
			}
			if err := decodeStrict(obj[key], v.Field(i), join(path, key)); err != nil {
				return err
			}
		}
		return nil
	case reflect.Slice:
		var arr []json.RawMessage
		if err := json.Unmarshal(raw, &arr); err != nil {
			return atPath(path, fmt.Errorf("want a list, got %s", kindOf(raw)))
		}
		s := reflect.MakeSlice(v.Type(), len(arr), len(arr))
		for i, el := range arr {
			if err := decodeStrict(el, s.Index(i), path+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
		}
		v.Set(s)
		return nil
	case reflect.Map:
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(raw, &obj); err != nil {
			return atPath(path, fmt.Errorf("want an object, got %s", kindOf(raw)))
		}
		m := reflect.MakeMapWithSize(v.Type(), len(obj))
		for _, key := range sortedKeys(obj) {
			el := reflect.New(v.Type().Elem()).Elem()
			if err := decodeStrict(obj[key], el, join(path, key)); err != nil {
				return err
			}
			m.SetMapIndex(reflect.ValueOf(key), el)
		}
		v.Set(m)
		return nil
	default:
		if err := json.Unmarshal(raw, v.Addr().Interface()); err != nil {
			return atPath(path, fmt.Errorf("want %s, got %s", describeKind(v.Kind()), kindOf(raw)))
		}
		return nil
	}
}

func atPath(path string, err error) error {
	if err == nil {
		return nil
	}
	if path == "" {
		path = "(top level)"
	}
	return fmt.Errorf("%s: %w", path, err)
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func jsonFields(t reflect.Type) map[string]int {
	out := map[string]int{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = i
	}
	return out
}

func knownKeys(t reflect.Type) []string {
	var ks []string
	for k := range jsonFields(t) {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
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

func describeKind(k reflect.Kind) string {
	switch k {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	}
	return k.String()
}

// syntaxError turns a JSON syntax error into "line L, column C: reason".
func syntaxError(data []byte, err error) string {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		// Offset counts the offending byte too: it is data[Offset-1].
		line, col := position(data, int(se.Offset)-1)
		return fmt.Sprintf("line %d, column %d: %v", line, col, se)
	case errors.Is(err, io.ErrUnexpectedEOF):
		line, col := position(data, len(data))
		return fmt.Sprintf("line %d, column %d: unexpected end of file", line, col)
	}
	return err.Error()
}

// position returns the 1-based line and column of data[off].
func position(data []byte, off int) (line, col int) {
	line, col = 1, 1
	for _, b := range data[:max(0, min(off, len(data)))] {
		if b == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}
