package assembly

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/helios-agents/helios/caps/cmdhooks"
	"github.com/helios-agents/helios/kernel/tools"
)

// Validate checks what decoding alone cannot: enum values, required keys,
// unique plugin names, variable names, negative numbers and durations,
// and the keys checked with their siblings (the catalog budget, the
// sandbox, the MCP servers, the hooks). It is the one place a config's
// values are checked: Build relies on it and checks again only what needs
// the machine (the work dir's protected paths, the environment). It
// reports every problem at once, each by its JSON path, in one error that
// wraps ErrConfig. ParseConfig runs it on what it decodes and Build runs it
// on whatever it is given, so a Config built in Go is held to the same
// rules as one read from a file.
func (c Config) Validate() error {
	if p := c.problems(); len(p) > 0 {
		return fmt.Errorf("%w: %s", ErrConfig, strings.Join(p, "; "))
	}
	return nil
}

// problems lists each violation as "json.path: reason", in key order.
func (c Config) problems() []string {
	var out []string
	add := func(path, format string, args ...any) {
		out = append(out, path+": "+fmt.Sprintf(format, args...))
	}
	enum := func(path, problem string) {
		if problem != "" {
			add(path, "%s", problem)
		}
	}
	nonNegative := func(path string, n int) {
		if n < 0 {
			add(path, "negative (%d)", n)
		}
	}
	duration := func(path string, d Duration) {
		if d < 0 {
			add(path, "negative duration (%s)", d.String())
		}
	}

	enum("skills.mode", enumProblem(c.Skills.Mode))
	enum("skills.watch.mode", enumProblem(c.Skills.Watch.Mode))
	duration("skills.watch.pollInterval", c.Skills.Watch.PollInterval)
	duration("skills.watch.writeStability", c.Skills.Watch.WriteStability)
	nonNegative("skills.watch.projectWatchers", c.Skills.Watch.ProjectWatchers)
	for i, e := range c.Extensions {
		if strings.TrimSpace(e.Dir) == "" {
			add(fmt.Sprintf("extensions[%d].dir", i), "missing")
		}
	}
	out = append(out, pluginProblems(c.Plugins)...)
	out = append(out, mcpProblems(c)...)
	out = append(out, c.hooksFrom.Problems...)
	for _, p := range cmdhooks.Check(c.Hooks) {
		if c.hooksFrom.File != "" {
			p = c.hooksFrom.File + ": " + p
		}
		out = append(out, p)
	}
	out = append(out, permissionProblems(c.Permissions, "")...)
	nonNegative("model.maxRetries", c.Model.MaxRetries)
	enum("model.provider", enumProblem(c.Model.Provider))
	if n := c.Model.MaxTokens; n != nil && *n <= 0 {
		add("model.maxTokens", "must be positive (got %d); leave it out for the default", *n)
	}
	if c.Model.PromptCacheKey && c.Model.Provider == ProviderAnthropic {
		add("model.promptCacheKey", `applies to provider "openai" only (Anthropic's caching uses cache_control breakpoints, always on)`)
	}
	nonNegative("sessions.maxSteps", c.Sessions.MaxSteps)
	nonNegative("sessions.contextBudget", c.Sessions.ContextBudget)
	duration("tools.bashTimeout", c.Tools.BashTimeout)
	if d := time.Duration(c.Tools.BashTimeout); d > tools.DefaultMaxBashTimeout {
		add("tools.bashTimeout", "%s exceeds the longest a command may run (%s)", d, tools.DefaultMaxBashTimeout)
	}
	nonNegative("tools.maxOutput", c.Tools.MaxOutput)
	nonNegative("skills.maxFrontmatter", c.Skills.MaxFrontmatter)
	nonNegative("instructions.maxBytes", c.Instructions.MaxBytes)
	if c.Skills.MaxFileSize < 0 {
		add("skills.maxFileSize", "negative (%d)", c.Skills.MaxFileSize)
	}
	nonNegative("sessions.maxLine", c.Sessions.MaxLine)
	if c.Sessions.Postgres.MaxConns < 0 {
		add("sessions.postgres.maxConns", "must not be negative (got %d); leave it out for the default", c.Sessions.Postgres.MaxConns)
	}
	enum("sessions.store", enumProblem(c.Sessions.Store))
	enum("tools.sandbox.mode", enumProblem(c.Tools.Sandbox.Mode))
	enum("telemetry.traces.exporter", enumProblem(c.Telemetry.Traces.Exporter))
	enum("telemetry.metrics.exporter", enumProblem(c.Telemetry.Metrics.Exporter))
	for _, s := range []struct {
		path string
		sig  TelemetrySignal
	}{{"telemetry.traces", c.Telemetry.Traces}, {"telemetry.metrics", c.Telemetry.Metrics}} {
		if s.sig.Exporter == ExporterFile && s.sig.Path == "" {
			add(s.path+".path", "the file exporter needs a path")
		}
	}
	// The keys checked together with their siblings (the catalog budget,
	// the sandbox) report through the same list.
	_, budgetErr := catalogBudget(c)
	_, sandboxErr := sandboxConfig(c, "", nil) // Build checks the work dir's protected paths too
	for _, err := range []error{budgetErr, sandboxErr} {
		out = append(out, configProblems(err)...)
	}
	return out
}

// configProblems lists the "json.path: reason" lines of a (joined) config
// error.
func configProblems(err error) []string {
	if err == nil {
		return nil
	}
	var out []string
	for _, line := range strings.Split(err.Error(), "\n") {
		if line = strings.TrimPrefix(line, ErrConfig.Error()+": "); line != "" {
			out = append(out, line)
		}
	}
	return out
}

// pluginProblems checks the "plugins" key: names present and unique,
// commands present, env keys that are variable names, durations not
// negative.
func pluginProblems(ps []PluginConfig) []string {
	var out []string
	seen := map[string]int{}
	for i, p := range ps {
		at := fmt.Sprintf("plugins[%d]", i)
		switch first, dup := seen[p.Name]; {
		case strings.TrimSpace(p.Name) == "":
			out = append(out, at+".name: missing")
		case dup:
			out = append(out, fmt.Sprintf("%s.name: %q is configured twice (plugins[%d] has it too)", at, p.Name, first))
		default:
			seen[p.Name] = i
		}
		if p.Command == "" {
			out = append(out, at+".command: missing")
		}
		keys := make([]string, 0, len(p.Env))
		for k := range p.Env {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if k == "" || strings.Contains(k, "=") {
				out = append(out, fmt.Sprintf("%s.env: %q is not a variable name", at, k))
			}
		}
		if p.StartTimeout < 0 {
			out = append(out, fmt.Sprintf("%s.startTimeout: negative duration (%s)", at, p.StartTimeout))
		}
		if p.CallTimeout < 0 {
			out = append(out, fmt.Sprintf("%s.callTimeout: negative duration (%s)", at, p.CallTimeout))
		}
	}
	return out
}

// String writes the duration as Go does ("1m30s").
func (d Duration) String() string { return time.Duration(d).String() }
