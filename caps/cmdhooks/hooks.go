package cmdhooks

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/helios-agents/helios/caps/permissions"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/hookdata"
	"github.com/helios-agents/helios/kernel/hooks"
	"github.com/helios-agents/helios/kernel/redact"
	"github.com/helios-agents/helios/kernel/sanitize"
	"github.com/helios-agents/helios/runpin"
)

// Config configures the capability. Only Settings and WorkDir are needed.
type Config struct {
	// Settings are the hooks, as configured (Check must find nothing wrong).
	Settings Settings
	// WorkDir is the agent's absolute work dir: the commands' working
	// directory, CLAUDE_PROJECT_DIR, HELIOS_PROJECT_DIR and "cwd".
	WorkDir string
	// Env is the environment the commands inherit, before the project
	// variables: nil is Helios's own (os.Environ()), the one the person
	// started it with. Secrets are taken out of it (see Hide, Secrets).
	Env []string
	// Hide names the variables that hold a secret Helios holds (the model's
	// API key, the database URL, MCP tokens): they never reach a command,
	// nor does any HELIOS_* variable.
	Hide []string
	// Secrets are the secret values Helios holds: a variable whose value is
	// one of them (the same key under another name) never reaches a
	// command either. Nil holds none.
	Secrets *redact.Secrets
	// EnvFile returns the path of a session's CLAUDE_ENV_FILE: a file
	// outside the work dir whose "export NAME=VALUE" lines the session's
	// later Bash calls see. The commands get its path (the file and its
	// folder made first); nil or "" sets no CLAUDE_ENV_FILE.
	EnvFile func(sessionID string) string
	// Transcript returns the path of a session's transcript in Claude
	// Code's shape, brought up to date (package transcript), for
	// "transcript_path"; nil or "" when there is none.
	Transcript func(sessionID string) string
	// Shell runs each command as Shell -c command. Default bash, or
	// /bin/sh where there is no bash.
	Shell string
	// MaxOutput bounds what is kept of each stream of a command. Default
	// DefaultMaxOutput.
	MaxOutput int
	// Logger receives the warnings. Nil discards.
	Logger *slog.Logger
	// OnWarning also receives them (the kernel's hook-handler failures go
	// there too).
	OnWarning func(contract.Warning)
	// PluginRoot, when set, is the plugin folder the settings come from
	// (a Claude Code plugin's <PluginRoot>/hooks/hooks.json, or an
	// installed agent plugin): the commands get CLAUDE_PLUGIN_ROOT,
	// PLUGIN_ROOT and CODEX_PLUGIN_ROOT set to it, the three dialects'
	// names for the same folder.
	PluginRoot string
	// Pins are the digests of the files the commands run that lie where
	// the model can write (Files lists them): before each run they are
	// hashed again, and a command whose script changed, vanished or was
	// never recorded does not run; one warning names the file. Nil checks
	// nothing.
	Pins *runpin.Pins
	// Name is the capability's name; "" is Name ("hooks"). An installed
	// agent plugin's hooks are a capability of their own, named after it.
	Name string
}

// DefaultMaxOutput is how much of a command's stdout, and of its stderr,
// is kept: a hook answers in a few lines.
const DefaultMaxOutput = 1 << 20

// Name is the capability's name.
const Name = "hooks"

// Hooks is the capability: one handler per configured command.
type Hooks struct {
	name       string
	hooks      []*hook
	workDir    string
	env        []string
	envFile    func(string) string
	transcript func(string) string
	shell      string
	maxOutput  int
	logger     *slog.Logger
	onWarning  func(contract.Warning)
	pins       *runpin.Pins

	// bg runs the async commands, which bgStop kills at Close; none starts
	// once closed.
	bg     sync.WaitGroup
	bgCtx  context.Context
	bgStop context.CancelFunc
	bgMu   sync.Mutex
	closed bool
}

var _ kernel.HookProvider = (*Hooks)(nil)

// closeGrace is how long Close lets async commands still running finish
// before it kills them.
const closeGrace = 5 * time.Second

// hook is one configured command.
type hook struct {
	event   string
	at      string // its JSON path: hooks.PreToolUse[0].hooks[1]
	command string
	timeout time.Duration
	match   func(string) bool
	// rule is the "if" filter; nil runs on every call match selects.
	rule   *permissions.Rule
	dirs   permissions.Dirs
	shell  []string // the argv the command is appended to
	async  bool
	status string   // its statusMessage
	files  []string // the files it runs (runpin.Command), absolute
	// once: it runs once per session; ran holds the sessions it ran in.
	once bool
	mu   sync.Mutex
	ran  map[string]bool
}

// first says whether h may run in session id: always, or for a once hook
// the first time only.
func (h *hook) first(id string) bool {
	if !h.once {
		return true
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.ran[id] {
		return false
	}
	if h.ran == nil {
		h.ran = map[string]bool{}
	}
	h.ran[id] = true
	return true
}

// applies says whether h runs for a call: its matcher selects the tool
// and its "if" rule, if any, matches the call.
func (h *hook) applies(c hookdata.ToolCall) bool {
	if !h.match(c.Name) {
		return false
	}
	return h.rule == nil || h.rule.Matches(permissions.Call{Tool: c.Name, Input: c.Arguments}, h.dirs)
}

// name is the handler's name: the JSON path and the command, shortened.
func (h *hook) name() string {
	c := strings.Join(strings.Fields(h.command), " ")
	if r := []rune(c); len(r) > 60 {
		c = string(r[:59]) + "…"
	}
	return h.at + " (" + c + ")"
}

// New checks the settings and makes the capability. The events Helios does
// not run are left out; Unknown lists them.
func New(cfg Config) (*Hooks, error) {
	if p := Check(cfg.Settings); len(p) > 0 {
		return nil, fmt.Errorf("hooks: %s", strings.Join(p, "; "))
	}
	c := &Hooks{
		name:       cfg.Name,
		workDir:    cfg.WorkDir,
		envFile:    cfg.EnvFile,
		transcript: cfg.Transcript,
		shell:      cfg.Shell,
		maxOutput:  cmp.Or(cfg.MaxOutput, DefaultMaxOutput),
		logger:     cmp.Or(cfg.Logger, slog.New(slog.DiscardHandler)),
		onWarning:  cfg.OnWarning,
		pins:       cfg.Pins,
	}
	if c.shell == "" {
		c.shell = "/bin/sh"
		if p, err := exec.LookPath("bash"); err == nil {
			c.shell = p
		}
	}
	c.env = append(inherited(cfg.Env, cfg.Hide, cfg.Secrets),
		"CLAUDE_PROJECT_DIR="+cfg.WorkDir, "HELIOS_PROJECT_DIR="+cfg.WorkDir)
	// A plugin's hooks find their scripts through the root variable of
	// whichever agent they were written for.
	if cfg.PluginRoot != "" {
		c.env = append(c.env, "CLAUDE_PLUGIN_ROOT="+cfg.PluginRoot, "PLUGIN_ROOT="+cfg.PluginRoot, "CODEX_PLUGIN_ROOT="+cfg.PluginRoot)
	}
	getenv := envLookup(c.env)
	home, _ := os.UserHomeDir() // "~/" in an "if" rule matches nothing without a home
	dirs := permissions.Dirs{Project: cfg.WorkDir, Home: home, Work: cfg.WorkDir}
	var pwsh string
	for _, event := range events {
		for i, g := range cfg.Settings[event] {
			match, _ := compileMatcher(g.Matcher) // Check compiled it
			for j, cmd := range g.Hooks {
				at := fmt.Sprintf("hooks.%s[%d].hooks[%d]", event, i, j)
				shell := []string{c.shell, "-c"}
				if cmd.Shell == ShellPowerShell {
					if pwsh == "" {
						p, err := exec.LookPath("pwsh")
						if err != nil {
							return nil, fmt.Errorf(`hooks: %s.shell: "powershell" runs the command with pwsh, which is not on PATH: %w`, at, err)
						}
						pwsh = p
					}
					shell = []string{pwsh, "-NoProfile", "-NonInteractive", "-Command"}
				}
				var rule *permissions.Rule
				if cmd.If != "" {
					r, _ := permissions.ParseRule(cmd.If) // Check parsed it
					rule = &r
				}
				c.hooks = append(c.hooks, &hook{
					rule:    rule,
					dirs:    dirs,
					event:   event,
					at:      at,
					command: cmd.Command,
					timeout: timeoutOf(cmd),
					match:   match,
					shell:   shell,
					async:   cmd.Async,
					status:  cmd.StatusMessage,
					files:   runpin.Command(cmd.Command, getenv, c.workDir),
					once:    cmd.Once,
				})
			}
		}
	}
	c.bgCtx, c.bgStop = context.WithCancel(context.Background())
	return c, nil
}

// Files returns the files the commands run, absolute, in config order: the
// script of each command ("$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh,
// the x.sh of `bash x.sh`), its variables expanded and a relative path
// resolved against the work dir. A trust records those under the
// model-writable trees (runpin.Record).
func (c *Hooks) Files() []string {
	var out []string
	for _, h := range c.hooks {
		out = append(out, h.files...)
	}
	return out
}

// Close lets the async commands still running finish for a few seconds,
// then kills them with their process groups.
func (c *Hooks) Close() error {
	c.bgMu.Lock()
	c.closed = true
	c.bgMu.Unlock()
	done := make(chan struct{})
	go func() { c.bg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(closeGrace):
	}
	c.bgStop()
	<-done
	return nil
}

// Unknown lists the events of s that Helios does not run, sorted: each is
// a warning, not an error, so that a settings file written for a newer
// Claude Code still works.
func Unknown(s Settings) []string {
	var out []string
	for event := range s {
		if !slices.Contains(events, event) {
			out = append(out, event)
		}
	}
	slices.Sort(out)
	return out
}

// Name returns "hooks".
func (c *Hooks) Name() string { return cmp.Or(c.name, Name) }

// Mounts returns one handler per command, in config order, each on its
// event's mount point.
func (c *Hooks) Mounts() []hooks.Mount {
	ms := make([]hooks.Mount, 0, len(c.hooks))
	for _, h := range c.hooks {
		ms = append(ms, c.mount(h))
	}
	return ms
}

// mount binds h's handler on its event's point.
func (c *Hooks) mount(h *hook) hooks.Mount {
	switch h.event {
	case SessionStart:
		return hooks.SessionStart.Bind(h.name(), func(ctx context.Context, in kernel.SessionStartIn) (string, bool, error) {
			return c.sessionStart(ctx, h, in)
		})
	case UserPromptSubmit:
		return hooks.PromptSubmit.Bind(h.name(), func(ctx context.Context, in kernel.PromptSubmitIn) (kernel.PromptDecision, bool, error) {
			return c.promptSubmit(ctx, h, in)
		})
	case PreToolUse:
		return hooks.ToolBefore.Bind(h.name(), func(ctx context.Context, in kernel.ToolBeforeIn) (kernel.ToolDecision, bool, error) {
			return c.preToolUse(ctx, h, in)
		})
	case PermissionRequest:
		return hooks.PermissionRequest.Bind(h.name(), func(ctx context.Context, in kernel.PermissionRequestIn) (kernel.PermissionAnswer, bool, error) {
			return c.permissionRequest(ctx, h, in)
		})
	case PostToolUse:
		return hooks.ToolAfter.Bind(h.name(), func(ctx context.Context, in kernel.ToolAfterIn) (kernel.ToolFeedback, bool, error) {
			return c.postToolUse(ctx, h, in)
		})
	case PostToolUseFailure:
		return hooks.ToolAfter.Bind(h.name(), func(ctx context.Context, in kernel.ToolAfterIn) (kernel.ToolFeedback, bool, error) {
			return c.postToolUseFailure(ctx, h, in)
		})
	case Stop:
		return hooks.TurnEnd.Bind(h.name(), func(ctx context.Context, in kernel.TurnEndIn) (kernel.TurnDecision, bool, error) {
			return c.stop(ctx, h, in)
		})
	case PreCompact:
		return hooks.CompactBefore.Bind(h.name(), func(ctx context.Context, in kernel.CompactBeforeIn) error {
			return c.notify(ctx, h, "auto", c.common(in.SessionID, PreCompact, input{Trigger: "auto", CustomInstructions: new(string)}))
		})
	case InstructionsLoaded:
		return hooks.InstructionsLoaded.Bind(h.name(), func(ctx context.Context, in kernel.InstructionsLoadedIn) error {
			var errs []error
			for _, f := range in.Files {
				errs = append(errs, c.notify(ctx, h, f.LoadReason, c.common(in.SessionID, InstructionsLoaded, input{FilePath: f.Path, MemoryType: f.MemoryType, LoadReason: f.LoadReason})))
			}
			return errors.Join(errs...)
		})
	case SubagentStart:
		return hooks.SubagentStart.Bind(h.name(), func(ctx context.Context, in kernel.SubagentStartIn) error {
			return c.notify(ctx, h, in.AgentType, c.common(in.SessionID, SubagentStart, input{AgentID: in.AgentID, AgentType: in.AgentType}))
		})
	case SubagentStop:
		return hooks.SubagentStop.Bind(h.name(), func(ctx context.Context, in kernel.SubagentStopIn) (kernel.TurnDecision, bool, error) {
			return c.subagentStop(ctx, h, in)
		})
	case SessionEnd:
		return hooks.SessionEnd.Bind(h.name(), func(ctx context.Context, in kernel.SessionEndIn) error {
			return c.notify(ctx, h, "other", c.common(in.SessionID, SessionEnd, input{Reason: "other"}))
		})
	}
	panic("cmdhooks: no mount point for event " + h.event) // events lists only the events above
}

// common fills the fields every event's input has.
func (c *Hooks) common(sessionID, event string, in input) input {
	in.SessionID, in.CWD, in.HookEventName = sessionID, c.workDir, event
	if c.transcript != nil {
		in.TranscriptPath = c.transcript(sessionID)
	}
	return in
}

// call runs h with in and reads what it answered. It returns an error
// (which the kernel reports as a warning, the call going on) when the
// command did not finish or exited with a status other than 0 and 2.
func (c *Hooks) call(ctx context.Context, h *hook, in input) (result, error) {
	if !h.first(in.SessionID) {
		return result{}, nil // a once hook that already ran in this session
	}
	if err := c.pins.Check(h.files); err != nil {
		// The rest run; this one is off until the user trusts again.
		if c.pins.First(h.at) {
			c.warn(ctx, h, fmt.Sprintf("is off: %v", err))
		}
		return result{}, nil
	}
	if h.status != "" {
		c.logger.InfoContext(ctx, "hook command", slog.String("hook", h.at), slog.String("status", h.status))
	}
	env, err := c.envOf(in.SessionID)
	if err != nil {
		c.warn(ctx, h, fmt.Sprintf("runs without CLAUDE_ENV_FILE: %v", err))
	}
	if h.async {
		c.background(h, env, encode(in))
		return result{}, nil
	}
	o, err := c.run(ctx, h, env, encode(in))
	if err != nil {
		return result{}, err
	}
	switch o.code {
	case 0:
		r, text, isJSON := c.read(ctx, h, o)
		return result{reply: r, text: text, isJSON: isJSON}, nil
	case 2:
		return result{blocked: true, stderr: errText(o, "")}, nil
	}
	return result{}, failed(o)
}

// background runs h (an async hook) without waiting: what it prints and
// its exit status are ignored, as in Claude Code; a failure to run is only
// logged.
func (c *Hooks) background(h *hook, env []string, input []byte) {
	c.bgMu.Lock()
	defer c.bgMu.Unlock()
	if c.closed {
		return
	}
	c.bg.Add(1)
	go func() {
		defer c.bg.Done()
		if _, err := c.run(c.bgCtx, h, env, input); err != nil {
			c.logger.Warn("hook command", slog.String("hook", h.at), slog.String("message", "async: "+err.Error()))
		}
	}()
}

// result is what a command answered.
type result struct {
	// blocked: it exited 2; stderr is what it printed there.
	blocked bool
	stderr  string
	// reply is its JSON answer when isJSON, else text is its stdout.
	reply  reply
	text   string
	isJSON bool
}

// context is the text a command adds to the model's context: its
// additionalContext, or its plain stdout where plain stdout is context.
func (r result) context(plainIsContext bool) string {
	if r.isJSON {
		return strings.TrimSpace(r.reply.Specific.AdditionalContext)
	}
	if plainIsContext {
		return strings.TrimSpace(r.text)
	}
	return ""
}

func (c *Hooks) sessionStart(ctx context.Context, h *hook, in kernel.SessionStartIn) (string, bool, error) {
	const source = "startup" // session:start runs when a new session opens
	if !h.match(source) {
		return "", false, nil
	}
	r, err := c.call(ctx, h, c.common(in.SessionID, SessionStart, input{Source: source}))
	if err != nil {
		return "", false, err
	}
	if r.blocked {
		return "", false, errors.New("it exited with status 2, which cannot block a session start: " + cmp.Or(r.stderr, "no stderr output"))
	}
	text := r.context(true)
	return text, text != "", nil
}

func (c *Hooks) promptSubmit(ctx context.Context, h *hook, in kernel.PromptSubmitIn) (kernel.PromptDecision, bool, error) {
	r, err := c.call(ctx, h, c.common(in.SessionID, UserPromptSubmit, input{Prompt: &in.Prompt}))
	switch {
	case err != nil:
		return kernel.PromptDecision{}, false, err
	case r.blocked:
		return kernel.PromptDecision{Block: true, Reason: cmp.Or(r.stderr, h.name()+" exited with status 2")}, true, nil
	case r.reply.stops():
		return kernel.PromptDecision{Block: true, Reason: cmp.Or(r.reply.StopReason, h.name()+` answered "continue": false`)}, true, nil
	case r.reply.Decision == "block":
		return kernel.PromptDecision{Block: true, Reason: cmp.Or(r.reply.Reason, h.name()+" blocked the prompt")}, true, nil
	}
	text := r.context(true)
	return kernel.PromptDecision{Context: text}, text != "", nil
}

func (c *Hooks) preToolUse(ctx context.Context, h *hook, in kernel.ToolBeforeIn) (kernel.ToolDecision, bool, error) {
	if !h.applies(in.Call) {
		return kernel.ToolDecision{}, false, nil
	}
	given := claudeInput(in.Call.Name, in.Call.Arguments, c.workDir)
	r, err := c.call(ctx, h, c.common(in.SessionID, PreToolUse, input{ToolName: in.Call.Name, ToolInput: given, ToolUseID: in.Call.ID}))
	switch {
	case err != nil:
		return kernel.ToolDecision{}, false, err
	case r.blocked:
		return kernel.ToolDecision{Deny: true, Reason: cmp.Or(r.stderr, h.name()+" blocked the call")}, true, nil
	case r.reply.stops():
		return kernel.ToolDecision{Stop: true, StopReason: cmp.Or(r.reply.StopReason, h.name()+` answered "continue": false`)}, true, nil
	case !r.isJSON:
		return kernel.ToolDecision{}, false, nil
	}
	s := r.reply.Specific
	decision, reason := s.PermissionDecision, s.PermissionDecisionReason
	if decision == "" { // the older spelling
		switch r.reply.Decision {
		case "approve":
			decision = "allow"
		case "block":
			decision = "deny"
		}
		reason = r.reply.Reason
	}
	var d kernel.ToolDecision
	if len(s.UpdatedInput) > 0 && string(s.UpdatedInput) != "null" {
		args, ok := heliosInput(in.Call.Name, s.UpdatedInput, given)
		if !ok {
			return d, false, errors.New("its updatedInput is not a JSON object: the call runs as the model wrote it")
		}
		d.Args = args
	}
	switch decision {
	case "deny":
		return kernel.ToolDecision{Deny: true, Reason: cmp.Or(reason, h.name()+" denied the call")}, true, nil
	case "ask":
		d.Ask, d.Reason = true, reason
		return d, true, nil
	case "", "allow":
		// "allow" passes no permission rule (the kernel decides the rules
		// after tool:before, deny and ask included): the call goes on
		// (with updatedInput, if any), and without one the next handlers
		// still see it.
		return d, d.Args != nil, nil
	}
	return kernel.ToolDecision{}, false, fmt.Errorf(`its permissionDecision %q is none of "allow", "deny", "ask": ignored`, decision)
}

// permissionRequest runs h when a call would be put to the person: its
// decision's behavior "allow" runs the call (with updatedInput, if any),
// "deny" refuses it with its message (interrupt also stops the turn); exit
// 2 denies with stderr, "continue": false denies and stops the turn. No
// decision leaves the call to the next handler, then the person.
func (c *Hooks) permissionRequest(ctx context.Context, h *hook, in kernel.PermissionRequestIn) (kernel.PermissionAnswer, bool, error) {
	if !h.applies(in.Call) {
		return kernel.PermissionAnswer{}, false, nil
	}
	given := claudeInput(in.Call.Name, in.Call.Arguments, c.workDir)
	r, err := c.call(ctx, h, c.common(in.SessionID, PermissionRequest, input{ToolName: in.Call.Name, ToolInput: given}))
	switch {
	case err != nil:
		return kernel.PermissionAnswer{}, false, err
	case r.blocked:
		return kernel.PermissionAnswer{Deny: true, Message: cmp.Or(r.stderr, h.name()+" denied the call")}, true, nil
	case r.reply.stops():
		return kernel.PermissionAnswer{Deny: true, Interrupt: true, Message: cmp.Or(r.reply.StopReason, h.name()+` answered "continue": false`)}, true, nil
	case !r.isJSON || r.reply.Specific.Decision == nil:
		return kernel.PermissionAnswer{}, false, nil
	}
	d := r.reply.Specific.Decision
	switch d.Behavior {
	case "deny":
		return kernel.PermissionAnswer{Deny: true, Interrupt: d.Interrupt, Message: cmp.Or(strings.TrimSpace(d.Message), h.name()+" denied the call")}, true, nil
	case "allow":
		var a kernel.PermissionAnswer
		if len(d.UpdatedInput) > 0 && string(d.UpdatedInput) != "null" {
			args, ok := heliosInput(in.Call.Name, d.UpdatedInput, given)
			if !ok {
				return a, false, errors.New("its decision.updatedInput is not a JSON object: the call is put to the person as the model wrote it")
			}
			a.Args = args
		}
		return a, true, nil
	}
	return kernel.PermissionAnswer{}, false, fmt.Errorf(`its decision.behavior %q is neither "allow" nor "deny": the call is put to the person`, d.Behavior)
}

// postToolUse runs h after a call that succeeded; a failed call is
// PostToolUseFailure's, as in Claude Code.
func (c *Hooks) postToolUse(ctx context.Context, h *hook, in kernel.ToolAfterIn) (kernel.ToolFeedback, bool, error) {
	if in.IsError || !h.applies(in.Call) {
		return kernel.ToolFeedback{}, false, nil
	}
	given := claudeInput(in.Call.Name, in.Call.Arguments, c.workDir)
	r, err := c.call(ctx, h, c.common(in.SessionID, PostToolUse, input{
		ToolName: in.Call.Name, ToolInput: given, ToolUseID: in.Call.ID,
		ToolResponse: toolResponse(in.Call.Name, given, in.Content, in.IsError),
	}))
	if err != nil {
		return kernel.ToolFeedback{}, false, err
	}
	return feedback(h, r)
}

// postToolUseFailure runs h after a call that failed (its result is an
// error): Claude Code's "error" is the text the model reads.
func (c *Hooks) postToolUseFailure(ctx context.Context, h *hook, in kernel.ToolAfterIn) (kernel.ToolFeedback, bool, error) {
	if !in.IsError || !h.applies(in.Call) {
		return kernel.ToolFeedback{}, false, nil
	}
	interrupted := false // a call the person interrupts ends the turn before tool:after
	r, err := c.call(ctx, h, c.common(in.SessionID, PostToolUseFailure, input{
		ToolName: in.Call.Name, ToolInput: claudeInput(in.Call.Name, in.Call.Arguments, c.workDir), ToolUseID: in.Call.ID,
		Error: &in.Content, IsInterrupt: &interrupted,
	}))
	if err != nil {
		return kernel.ToolFeedback{}, false, err
	}
	return feedback(h, r)
}

// feedback is what a PostToolUse or PostToolUseFailure command answered,
// for the model: exit 2's stderr, a "block" decision's reason and
// additionalContext are appended to the result; "continue": false stops
// the turn.
func feedback(h *hook, r result) (kernel.ToolFeedback, bool, error) {
	var f kernel.ToolFeedback
	switch {
	case r.blocked:
		// The call already ran: stderr is feedback for the model.
		f.Context = cmp.Or(r.stderr, h.name()+" exited with status 2")
	case r.isJSON:
		if r.reply.Decision == "block" {
			f.Context = cmp.Or(strings.TrimSpace(r.reply.Reason), h.name()+" flagged the result")
		}
		if more := r.context(false); more != "" {
			f.Context = strings.TrimSpace(f.Context + "\n\n" + more)
		}
		if r.reply.stops() {
			f.Stop, f.StopReason = true, cmp.Or(r.reply.StopReason, h.name()+` answered "continue": false`)
		}
	}
	return f, f.Context != "" || f.Stop, nil
}

func (c *Hooks) stop(ctx context.Context, h *hook, in kernel.TurnEndIn) (kernel.TurnDecision, bool, error) {
	if len(in.ToolCalls) > 0 {
		// The model asked for tools: the turn goes on anyway, and Claude
		// Code runs Stop only when the model stops.
		return kernel.TurnDecision{}, false, nil
	}
	active := in.Continued
	r, err := c.call(ctx, h, c.common(in.SessionID, Stop, input{StopHookActive: &active}))
	switch {
	case err != nil:
		return kernel.TurnDecision{}, false, err
	case r.blocked:
		return kernel.TurnDecision{End: false, Reason: cmp.Or(r.stderr, h.name()+" asks to go on")}, true, nil
	case r.reply.stops():
		return kernel.TurnDecision{End: true}, true, nil
	case r.reply.Decision == "block":
		return kernel.TurnDecision{End: false, Reason: cmp.Or(r.reply.Reason, h.name()+" asks to go on")}, true, nil
	}
	return kernel.TurnDecision{}, false, nil
}

// subagentStop runs h when a subagent's turn ended, when its matcher
// selects the agent_type. Exit status 2 or a "block" decision keeps the
// subagent going, stderr or the reason its next prompt (the kernel bounds
// it by maxTurns).
func (c *Hooks) subagentStop(ctx context.Context, h *hook, in kernel.SubagentStopIn) (kernel.TurnDecision, bool, error) {
	if !h.match(in.AgentType) {
		return kernel.TurnDecision{}, false, nil
	}
	kept := in.Continued
	r, err := c.call(ctx, h, c.common(in.SessionID, SubagentStop, input{AgentID: in.AgentID, AgentType: in.AgentType,
		LastAssistantMessage: &in.LastAssistantMessage, StopHookActive: &kept}))
	switch {
	case err != nil:
		return kernel.TurnDecision{}, false, err
	case r.blocked:
		return kernel.TurnDecision{End: false, Reason: cmp.Or(r.stderr, h.name()+" asks to go on")}, true, nil
	case r.reply.Decision == "block":
		return kernel.TurnDecision{End: false, Reason: cmp.Or(r.reply.Reason, h.name()+" asks to go on")}, true, nil
	}
	return kernel.TurnDecision{}, false, nil
}

// notify runs h on an event nothing can block (InstructionsLoaded,
// PreCompact, SessionEnd),
// when its matcher selects what.
func (c *Hooks) notify(ctx context.Context, h *hook, what string, in input) error {
	if !h.match(what) {
		return nil
	}
	r, err := c.call(ctx, h, in)
	if err == nil && r.blocked {
		err = fmt.Errorf("it exited with status 2, which cannot block %s: %s", h.event, cmp.Or(r.stderr, "no stderr output"))
	}
	return err
}

// warn reports a problem with h's answer that does not fail it: to the
// logger, OnWarning and whoever watches the session.
func (c *Hooks) warn(ctx context.Context, h *hook, msg string) {
	w := contract.Warning{Source: "hook", Path: h.at, Message: sanitize.Text(fmt.Sprintf("hook command %s %s", h.name(), msg))}
	c.logger.WarnContext(ctx, "hook command", slog.String("hook", h.at), slog.String("message", w.Message))
	if c.onWarning != nil {
		c.onWarning(w)
	}
	contract.Warn(ctx, w)
}

// Configured says whether s has a command for an event Helios runs.
func Configured(s Settings) bool {
	for _, event := range events {
		for _, g := range s[event] {
			if len(g.Hooks) > 0 {
				return true
			}
		}
	}
	return false
}
