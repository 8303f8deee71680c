package cmdhooks

import (
	"cmp"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/helios-agents/helios/caps/permissions"
)

// Settings is the "hooks" key of helios.config.json, in the shape of the
// "hooks" object of Claude Code's settings: an event name, then its matcher
// groups in order, each with its commands in order.
//
//	"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh", "timeout": 10}]}]}
type Settings map[string][]Group

// Group is one matcher group of an event.
type Group struct {
	// Matcher selects what the hooks run for: a tool name for PreToolUse
	// and PostToolUse, the source for SessionStart ("startup"), the trigger
	// for PreCompact ("auto"), the reason for SessionEnd ("other").
	// UserPromptSubmit and Stop ignore it. "" and "*" match everything; a
	// matcher of letters, digits, "_" and "|" is a list of exact names
	// ("Edit|Write"); anything else is a regular expression (Go's RE2
	// syntax) that matches anywhere in the name unless anchored.
	Matcher string `json:"matcher"`
	// Hooks are the commands, run one after another in this order.
	Hooks []Command `json:"hooks"`
}

// Command is one hook: the handler fields Claude Code documents for a
// "command" hook.
type Command struct {
	// Type must be "command".
	Type string `json:"type"`
	// Command is run with Shell in the work dir.
	Command string `json:"command"`
	// Timeout is the most seconds the command may run; unset means 600
	// (Claude Code's default). Past it the command and its process group
	// are killed and the call goes on without it.
	Timeout *float64 `json:"timeout"`
	// Async runs the command in the background: the call goes on at once,
	// and what the command prints or exits with is ignored (it can neither
	// block nor add context). It is still killed past its timeout.
	Async bool `json:"async"`
	// Shell is what runs Command: "bash" (the default; /bin/sh where there
	// is no bash) or "powershell" (pwsh -NoProfile -Command, which must be
	// on PATH).
	Shell string `json:"shell"`
	// Once runs the command at most once per session: later matches in the
	// same session skip it.
	Once bool `json:"once"`
	// StatusMessage says what the command is doing: Helios logs it when the
	// command starts and `helios hooks describe` shows it.
	StatusMessage string `json:"statusMessage"`
	// If is Claude Code's permission-rule filter ("Bash(git push:*)"), for
	// the tool events: the command runs only when the rule matches the call
	// (for Bash, any simple command of the chain), with the matcher of
	// package permissions. A rule that does not parse is a config error.
	If string `json:"if"`
	// Prompt is Claude Code's prompt hooks' key (type "prompt"), which
	// Helios does not run: a hook with a prompt is a config error.
	Prompt string `json:"prompt"`
}

// The values of Command.Shell.
const (
	ShellBash       = "bash"
	ShellPowerShell = "powershell"
)

// The events Helios runs, as Claude Code names them, and the mount point
// each runs on.
const (
	SessionStart     = "SessionStart"     // session:start
	UserPromptSubmit = "UserPromptSubmit" // prompt:submit
	PreToolUse       = "PreToolUse"       // tool:before
	PostToolUse      = "PostToolUse"      // tool:after
	Stop             = "Stop"             // turn:end
	PreCompact       = "PreCompact"       // compact:before
	SessionEnd       = "SessionEnd"       // session:end
)

// PostToolUseFailure runs on tool:after too, where PostToolUse does not:
// after a call whose result is an error (a Bash non-zero exit, a failed
// Edit or Write), as in Claude Code.
const PostToolUseFailure = "PostToolUseFailure"

// InstructionsLoaded runs on instructions:loaded, once per instruction
// file the model was given; its matcher selects the load_reason.
const InstructionsLoaded = "InstructionsLoaded"

// SubagentStart and SubagentStop run on subagent:start and subagent:stop,
// when the Agent tool starts a subagent and when its turn ended; their
// matcher selects the agent_type. SubagentStart is a notification; a
// SubagentStop that blocks keeps the subagent going, bounded by maxTurns.
const (
	SubagentStart = "SubagentStart"
	SubagentStop  = "SubagentStop"
)

// PermissionRequest runs on permission:request, when a call would be put
// to the person (a permission rule's or a PreToolUse hook's ask); its
// matcher selects the tool name. Its decision answers in the person's
// stead.
const PermissionRequest = "PermissionRequest"

// events are the events Helios runs, in lifecycle order.
var events = []string{SessionStart, InstructionsLoaded, UserPromptSubmit, PreToolUse, PermissionRequest, SubagentStart, SubagentStop, PostToolUse, PostToolUseFailure, Stop, PreCompact, SessionEnd}

// Events lists the events Helios runs, in lifecycle order.
func Events() []string { return slices.Clone(events) }

// DefaultTimeout is how long a command may run when its timeout is unset:
// Claude Code's default for command hooks.
const DefaultTimeout = 600 * time.Second

// maxTimeout bounds a timeout, so that seconds always convert to a
// time.Duration.
const maxTimeout = 24 * time.Hour

// Check lists what is wrong with s, each problem as "json.path: reason"
// under the key "hooks": a type other than "command", a missing command, a
// matcher that is not a valid regular expression, a timeout that is not a
// positive number of seconds, a shell other than "bash" and "powershell",
// an "if" that is not a permission rule or is on an event without a tool
// call. Events Helios does not run are not checked
// (New warns about them instead).
func Check(s Settings) []string {
	var out []string
	for _, event := range events {
		for i, g := range s[event] {
			at := fmt.Sprintf("hooks.%s[%d]", event, i)
			if _, err := compileMatcher(g.Matcher); err != nil {
				out = append(out, fmt.Sprintf("%s.matcher: %v", at, err))
			}
			for j, c := range g.Hooks {
				out = append(out, checkCommand(fmt.Sprintf("%s.hooks[%d]", at, j), c)...)
				out = append(out, checkIf(event, fmt.Sprintf("%s.hooks[%d].if", at, j), c.If)...)
			}
		}
	}
	return out
}

// checkCommand lists what is wrong with the command at path.
func checkCommand(path string, c Command) []string {
	var out []string
	switch c.Type {
	case "command":
	case "":
		out = append(out, path+`.type: missing (want "command")`)
	default:
		out = append(out, fmt.Sprintf(`%s.type: %q hooks are not supported: Helios runs "command" hooks only`, path, c.Type))
	}
	switch c.Shell {
	case "", ShellBash, ShellPowerShell:
	default:
		out = append(out, fmt.Sprintf(`%s.shell: %q is not a shell Claude Code knows: want "bash" or "powershell"`, path, c.Shell))
	}
	if c.Type == "command" && strings.TrimSpace(c.Command) == "" {
		out = append(out, path+".command: missing")
	}
	if c.Prompt != "" && c.Type == "command" {
		out = append(out, path+`.prompt: a "command" hook has no prompt`)
	}
	if c.Timeout != nil {
		switch t := *c.Timeout; {
		case t < 0:
			out = append(out, fmt.Sprintf("%s.timeout: negative (%v seconds)", path, t))
		case t == 0:
			out = append(out, path+".timeout: 0 seconds: give a positive number of seconds, or leave it out for 600")
		case t > maxTimeout.Seconds():
			out = append(out, fmt.Sprintf("%s.timeout: %v seconds is over the limit of %v (one day)", path, t, maxTimeout.Seconds()))
		}
	}
	return out
}

// timeoutOf is c's timeout as a duration (Check has vetted it).
func timeoutOf(c Command) time.Duration {
	if c.Timeout == nil {
		return DefaultTimeout
	}
	return time.Duration(math.Round(*c.Timeout * float64(time.Second)))
}

// simpleMatcher is a matcher Claude Code reads as a list of exact names.
var simpleMatcher = regexp.MustCompile(`^[A-Za-z0-9_|]+$`)

// compileMatcher makes m into a test of a name: everything for "" and
// "*", one of the listed names for a simple matcher ("Edit|Write"), else a
// regular expression.
func compileMatcher(m string) (func(string) bool, error) {
	switch {
	case m == "" || m == "*":
		return func(string) bool { return true }, nil
	case simpleMatcher.MatchString(m):
		names := strings.Split(m, "|")
		return func(name string) bool { return slices.Contains(names, name) }, nil
	}
	re, err := regexp.Compile(m)
	if err != nil {
		return nil, fmt.Errorf("not a valid regular expression: %w", err)
	}
	return re.MatchString, nil
}

// Info describes one configured command of an event Helios runs, for
// `helios hooks describe`.
type Info struct {
	Event          string  `json:"event"`
	Path           string  `json:"path"` // its JSON path: hooks.PreToolUse[0].hooks[1]
	Matcher        string  `json:"matcher"`
	Command        string  `json:"command"`
	TimeoutSeconds float64 `json:"timeoutSeconds"`
	Shell          string  `json:"shell"`
	Async          bool    `json:"async"`
	Once           bool    `json:"once"`
	StatusMessage  string  `json:"statusMessage,omitempty"`
}

// Describe lists the commands of s that Helios runs, in config order
// (events in lifecycle order).
func Describe(s Settings) []Info {
	out := []Info{}
	for _, event := range events {
		for i, g := range s[event] {
			for j, c := range g.Hooks {
				out = append(out, Info{
					Event: event, Path: fmt.Sprintf("hooks.%s[%d].hooks[%d]", event, i, j),
					Matcher: g.Matcher, Command: c.Command, TimeoutSeconds: timeoutOf(c).Seconds(),
					Shell: cmp.Or(c.Shell, ShellBash), Async: c.Async, Once: c.Once, StatusMessage: c.StatusMessage,
				})
			}
		}
	}
	return out
}

// checkIf lists what is wrong with the "if" at path of a hook of event.
func checkIf(event, path, rule string) []string {
	if rule == "" {
		return nil
	}
	if !toolEvent(event) {
		return []string{fmt.Sprintf(`%s: "if" filters tool calls, and %s has none: it applies to PreToolUse, PermissionRequest, PostToolUse and PostToolUseFailure`, path, event)}
	}
	if _, err := permissions.ParseRule(rule); err != nil {
		return []string{fmt.Sprintf("%s: %q: %v", path, rule, err)}
	}
	return nil
}

// toolEvent reports the events of a tool call, which "if" may filter.
func toolEvent(event string) bool {
	return event == PreToolUse || event == PermissionRequest || event == PostToolUse || event == PostToolUseFailure
}
