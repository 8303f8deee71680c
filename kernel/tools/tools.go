package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/sandbox"
	"github.com/helios-agents/helios/workfs"
)

// Defaults for the zero values of [Config].
const (
	DefaultBashTimeout    = 2 * time.Minute
	DefaultMaxBashTimeout = 10 * time.Minute
	DefaultMaxOutput      = 30000
)

// Config configures the builtin tools. Every zero value but FS's is a usable
// default.
type Config struct {
	// FS is the guarded work dir. Required: every file tool goes through it,
	// and Bash runs in FS.Dir().
	FS *workfs.FS
	// BashTimeout is how long a command may run when the model does not say.
	// Zero means DefaultBashTimeout, or MaxBashTimeout if that is shorter.
	BashTimeout time.Duration
	// MaxBashTimeout bounds the timeout the model may ask for per call
	// (timeout_seconds); larger requests are lowered to it. Zero means
	// DefaultMaxBashTimeout.
	MaxBashTimeout time.Duration
	// MaxOutput is how many bytes of output a tool returns to the model. Bash
	// keeps the head and the tail of longer output with a marker saying how
	// many bytes were cut; Read stops at a whole line and says where to go
	// on; Glob and Grep list what fits and count the rest. Zero means
	// DefaultMaxOutput.
	MaxOutput int
	// Shell runs Bash commands as `<Shell> -c <command>`: a name looked up
	// on PATH or a path. Empty means "bash" if it is on PATH, else "sh".
	Shell string
	// Sandbox says how Bash commands are started: their environment (an
	// allowlist of the kernel's, plus Sandbox.Env and Sandbox.PassEnv) and
	// their confinement. The zero value confines them by the platform's
	// default mode (workspace-write on Linux) with the network off.
	Sandbox sandbox.Config
	// OnWrite, when set, is called synchronously after Write or Edit changed
	// a file, with the file's absolute path under FS.Dir(), and never after a
	// failed call. The kernel invalidates the skills catalog there, so the
	// next step sees the change.
	OnWrite func(path string)
	// EnvFile returns the path of a session's env file (CLAUDE_ENV_FILE,
	// which only the person's hooks write): its "export NAME=VALUE" lines
	// are added to the environment of the session's Bash commands, read
	// anew before each. Nil or "": none.
	EnvFile func(sessionID string) string
	// Hidden, when set, reports the files Glob leaves out of its listing
	// and Grep neither searches nor lists, given each file's absolute path:
	// the assembly passes the person's Read deny rules, so a file the model
	// may not read is not listed or searched either. Nil: none.
	Hidden func(path string) bool
}

// Set is the builtin tools over one work dir. It is safe for concurrent use.
type Set struct {
	fs         *workfs.FS
	timeout    time.Duration
	maxTimeout time.Duration
	maxOutput  int
	shell      string
	box        *sandbox.Sandbox
	onWrite    func(string)
	envFile    func(string) string
	hidden     func(string) bool
	deny       []string
	envWarned  sync.Map // the env file problems already reported
	tools      []contract.Tool
}

// New checks cfg and makes the tools. It fails when FS is missing, when a
// duration or size is negative, when BashTimeout exceeds MaxBashTimeout, and
// when the shell cannot be found.
func New(cfg Config) (*Set, error) {
	if cfg.FS == nil {
		return nil, errors.New("new tools: Config.FS is required")
	}
	if cfg.BashTimeout < 0 || cfg.MaxBashTimeout < 0 || cfg.MaxOutput < 0 {
		return nil, fmt.Errorf("new tools: negative BashTimeout (%v), MaxBashTimeout (%v) or MaxOutput (%d)",
			cfg.BashTimeout, cfg.MaxBashTimeout, cfg.MaxOutput)
	}
	s := &Set{
		fs:         cfg.FS,
		timeout:    cfg.BashTimeout,
		maxTimeout: cfg.MaxBashTimeout,
		maxOutput:  cfg.MaxOutput,
		shell:      cfg.Shell,
		onWrite:    cfg.OnWrite,
		envFile:    cfg.EnvFile,
		hidden:     cfg.Hidden,
		deny:       cfg.Sandbox.Deny,
	}
	if s.maxTimeout == 0 {
		s.maxTimeout = DefaultMaxBashTimeout
	}
	if s.timeout == 0 {
		s.timeout = min(DefaultBashTimeout, s.maxTimeout)
	}
	if s.timeout > s.maxTimeout {
		return nil, fmt.Errorf("new tools: BashTimeout %v exceeds MaxBashTimeout %v", s.timeout, s.maxTimeout)
	}
	if s.maxOutput == 0 {
		s.maxOutput = DefaultMaxOutput
	}
	if s.shell == "" {
		s.shell = "sh"
		if _, err := exec.LookPath("bash"); err == nil {
			s.shell = "bash"
		}
	}
	if _, err := exec.LookPath(s.shell); err != nil {
		return nil, fmt.Errorf("new tools: shell: %w", err)
	}
	box, err := sandbox.New(cfg.Sandbox)
	if err != nil {
		return nil, fmt.Errorf("new tools: %w", err)
	}
	s.box = box
	s.tools = []contract.Tool{
		newTool("Bash", s.bashDescription(), s.bash, minLength("command"), s.bashSchema),
		newTool("Glob", texts.Text("glob.md", nil), s.glob, minLength("pattern")),
		newTool("Read", s.readDescription(), s.read, minLength("path"), minimum("offset", "limit")),
		newTool("Write", texts.Text("write.md.tmpl", nil), s.write, minLength("path")),
		newTool("Edit", texts.Text("edit.md.tmpl", nil), s.edit, minLength("path", "old_string"), replaceAllDefault),
		// After Edit, so the earlier tools keep their indexes.
		newTool("Grep", s.grepDescription(), s.grep, minLength("pattern"), grepSchema),
	}
	return s, nil
}

// Tools returns Bash, Glob, Read, Write, Edit and Grep, in that order. The slice
// is the caller's.
func (s *Set) Tools() []contract.Tool {
	return append([]contract.Tool(nil), s.tools...)
}

// Sandbox returns the sandbox Bash commands are started through.
func (s *Set) Sandbox() *sandbox.Sandbox { return s.box }

// EndSession removes the temp dir of session id's commands.
func (s *Set) EndSession(id string) { s.box.EndSession(id) }

// Close removes every session's temp dir. Bash fails afterwards.
func (s *Set) Close() error { return s.box.Close() }

// newTool makes a builtin tool of its body, which reports everything as a
// result: the one Go error of a call is a context already done
// (contract.NewTool).
func newTool[In any](name, desc string, body func(context.Context, In) contract.ToolResult,
	refine ...func(*jsonschema.Schema)) contract.Tool {
	return contract.NewTool(name, desc, func(ctx context.Context, in In) (contract.ToolResult, error) {
		return body(ctx, in), nil
	}, refine...)
}

// minLength tells the model the string arguments props must not be empty.
func minLength(props ...string) func(*jsonschema.Schema) {
	return func(s *jsonschema.Schema) {
		for _, p := range props {
			s.Properties[p].MinLength = jsonschema.Ptr(1)
		}
	}
}

// minimum tells the model the integer arguments props start at 1.
func minimum(props ...string) func(*jsonschema.Schema) {
	return func(s *jsonschema.Schema) {
		for _, p := range props {
			s.Properties[p].Minimum = jsonschema.Ptr(1.0)
		}
	}
}

// replaceAllDefault tells the model Edit replaces one occurrence unless
// asked.
func replaceAllDefault(s *jsonschema.Schema) {
	s.Properties["replace_all"].Default = json.RawMessage("false")
}
