package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	acp "github.com/coder/acp-go-sdk"
	"github.com/spf13/cobra"

	"github.com/helios-agents/helios/assembly"
	"github.com/helios-agents/helios/caps/permissions"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/sanitize"
	"github.com/helios-agents/helios/kernel/session"
)

// helios acp: an Agent Client Protocol agent on stdio, for editors (Zed,
// JetBrains, Neovim). The protocol is github.com/coder/acp-go-sdk's; this
// file maps its requests onto kernel sessions, acpupdates.go the kernel's
// updates onto session/update notifications, acpguard.go keeps malformed
// and oversized lines from reaching (and ending) the SDK's connection.

func acpCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "acp",
		Short: "Serve the Agent Client Protocol on stdio, for editors (Zed, JetBrains, Neovim)",
		Long: "Serve the Agent Client Protocol (JSON-RPC on stdin/stdout) for an editor that starts helios acp\n" +
			"as its agent server. Each session works in the cwd the editor sends (its helios.config.json applied\n" +
			"when trusted, as for any work dir), with the editor's MCP servers added to the configured ones.\n" +
			"Logs and warnings go to stderr. See docs/editors.md.",
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			g.watch = true
			g.logger = stderrLogger(cmd.ErrOrStderr())
			return serveACP(cmd.Context(), g, cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
}

// serveACP serves one ACP connection until stdin ends (or ctx does). A
// turn still running then is cancelled and waited for, so its session is
// saved with every tool it started ended.
func serveACP(ctx context.Context, g *globals, in io.Reader, out, errw io.Writer) error {
	w := &lineWriter{w: out}
	pr, pw := io.Pipe()
	a := &acpAgent{base: g, errw: errw, out: w, sessions: map[string]*acpSession{}}
	conn := acp.NewAgentSideConnection(a, w, pr)
	conn.SetLogger(g.logger)
	a.conn = conn
	go func() {
		err := guardLines(in, pw, w, maxACPLine)
		_ = pw.CloseWithError(err) // nil: EOF
	}()
	select {
	case <-conn.Done():
	case <-ctx.Done():
		_ = pr.Close()
		<-conn.Done()
	}
	a.closeAll()
	return nil
}

// acpAgent is the agent side of one connection.
type acpAgent struct {
	base *globals
	errw io.Writer
	out  *lineWriter
	conn *acp.AgentSideConnection

	mu       sync.Mutex
	sessions map[string]*acpSession
	turns    sync.WaitGroup
}

var (
	_ acp.Agent       = (*acpAgent)(nil)
	_ acp.AgentLoader = (*acpAgent)(nil)
)

// acpSession is one ACP session: a kernel for its work dir and the
// kernel session.
type acpSession struct {
	a     *acpAgent
	id    string
	g     *globals
	k     *kernel.Kernel
	s     *kernel.Session
	cwd   string
	model string

	mu sync.Mutex
	// cancel ends the running turn; nil when none runs.
	cancel context.CancelFunc
	// allowed are the permission rules the person allowed always.
	allowed map[string]bool
	// commands is the last available_commands_update sent.
	commands []acp.AvailableCommand
	// tools are the calls of the running turn, by id.
	tools map[string]*acpToolCall
	usage session.Usage
	// The running turn's model requests, and whether the last one called
	// tools: the step limit reached with the model still calling tools
	// ends the turn with max_turn_requests.
	requests   int
	toolsAsked bool
	maxSteps   int
	// mode is the permission rules' defaultMode of the session.
	mode string
}

func (a *acpAgent) Initialize(ctx context.Context, p acp.InitializeRequest) (acp.InitializeResponse, error) {
	resp := acp.InitializeResponse{
		ProtocolVersion: acp.ProtocolVersionNumber,
		AgentInfo:       &acp.Implementation{Name: "helios", Version: version()},
		AgentCapabilities: acp.AgentCapabilities{
			LoadSession:        true,
			PromptCapabilities: acp.PromptCapabilities{Image: false, Audio: false, EmbeddedContext: true},
			McpCapabilities:    acp.McpCapabilities{Http: true, Sse: true},
		},
		AuthMethods: []acp.AuthMethod{},
	}
	if name, missing := a.missingKey(); missing {
		desc := fmt.Sprintf("Set %s to the model's API key in the environment the editor starts helios acp with.", name)
		resp.AuthMethods = append(resp.AuthMethods, acp.AuthMethod{EnvVar: &acp.AuthMethodEnvVarInline{
			Id: "helios-api-key", Name: "API key", Type: "env_var", Description: &desc,
			Vars: []acp.AuthEnvVar{{Name: name}},
		}})
	}
	return resp, nil
}

// missingKey names the variable the model's API key is read from, and
// says whether it is unset, for the config of the process's work dir.
func (a *acpAgent) missingKey() (string, bool) {
	c, err := a.base.readConfig()
	if err != nil {
		return assembly.DefaultAPIKeyEnv, false
	}
	name := assembly.DefaultAPIKeyEnv
	if c.cfg.Model.APIKeyEnv != nil {
		name = *c.cfg.Model.APIKeyEnv
	}
	return name, name != "" && os.Getenv(name) == ""
}

func (a *acpAgent) Authenticate(ctx context.Context, p acp.AuthenticateRequest) (acp.AuthenticateResponse, error) {
	if name, missing := a.missingKey(); missing {
		return acp.AuthenticateResponse{}, acp.NewAuthRequired(map[string]any{
			"reason": fmt.Sprintf("%s is not set: set it where the editor starts helios acp, and restart the agent", name)})
	}
	return acp.AuthenticateResponse{}, nil
}

// invalid is a JSON-RPC invalid-params error whose data says what is wrong.
func invalid(format string, a ...any) error {
	return acp.NewInvalidParams(map[string]any{"error": fmt.Sprintf(format, a...)})
}

// checkCwd validates a client's cwd: absolute and an existing directory.
func checkCwd(method, cwd string) error {
	switch {
	case cwd == "":
		return invalid("%s: cwd is required", method)
	case !filepath.IsAbs(cwd):
		return invalid("%s: cwd %q is not an absolute path", method, cwd)
	}
	fi, err := os.Stat(cwd)
	switch {
	case err != nil:
		return invalid("%s: cwd %q: %v", method, cwd, errors.Unwrap(err))
	case !fi.IsDir():
		return invalid("%s: cwd %q is not a directory", method, cwd)
	}
	return nil
}

// openSession builds the kernel for cwd, with the client's MCP servers,
// and opens (or with resume, reopens) its session.
func (a *acpAgent) openSession(ctx context.Context, method, cwd string, servers []acp.McpServer, resume string) (*acpSession, error) {
	if err := checkCwd(method, cwd); err != nil {
		return nil, err
	}
	extra, err := clientMCPServers(method, servers)
	if err != nil {
		return nil, err
	}
	g := &globals{workDir: cwd, config: a.base.config, watch: true, logger: a.base.logger, stderr: a.base.stderr, secrets: a.base.secrets}
	c, err := g.readConfig()
	if err != nil {
		return nil, invalid("%s: cwd %q: %v", method, cwd, err)
	}
	if len(extra) > 0 {
		merged := maps.Clone(c.cfg.MCP.Servers)
		if merged == nil {
			merged = map[string]assembly.MCPServerConfig{}
		}
		for name, s := range extra {
			if _, ok := merged[name]; ok {
				fmt.Fprintf(a.errw, "helios: acp: the client's MCP server %q replaces the configured one of that name\n", sanitize.Text(name))
			}
			merged[name] = s
		}
		c.cfg.MCP.Servers = merged
	}
	// A session outlives the request that opened it: its kernel and the
	// MCP servers it starts run until the connection ends.
	k, err := g.openKernel(context.WithoutCancel(ctx))
	if err != nil {
		return nil, invalid("%s: %v", method, err)
	}
	as := &acpSession{a: a, g: g, k: k, cwd: k.WorkDir(), model: c.cfg.Model.Name, allowed: map[string]bool{}, tools: map[string]*acpToolCall{},
		maxSteps: cmp.Or(c.cfg.Sessions.MaxSteps, defaultMaxTurns), mode: cmp.Or(string(c.cfg.Permissions.DefaultMode), "default")}
	s, err := k.OpenSession(context.WithoutCancel(ctx), kernel.SessionConfig{
		Resume: resume, MaxSteps: c.cfg.Sessions.MaxSteps, Observe: as.observe, Confirm: as.confirm,
	})
	if err != nil {
		k.Close()
		if resume != "" {
			return nil, invalid("%s: sessionId %q: %v", method, resume, err)
		}
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	as.s, as.id = s, s.ID()
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, open := a.sessions[as.id]; open {
		s.Close()
		k.Close()
		return nil, invalid("%s: session %q is already open on this connection", method, as.id)
	}
	a.sessions[as.id] = as
	return as, nil
}

// clientMCPServers converts a client's mcpServers to the config's shape.
func clientMCPServers(method string, servers []acp.McpServer) (map[string]assembly.MCPServerConfig, error) {
	out := map[string]assembly.MCPServerConfig{}
	for i, s := range servers {
		var name string
		var c assembly.MCPServerConfig
		headers := func(hs []acp.HttpHeader) map[string]string {
			m := map[string]string{}
			for _, h := range hs {
				m[h.Name] = h.Value
			}
			return m
		}
		switch {
		case s.Stdio != nil:
			name = s.Stdio.Name
			c = assembly.MCPServerConfig{Type: "stdio", Command: s.Stdio.Command, Args: s.Stdio.Args, Env: map[string]string{}}
			for _, e := range s.Stdio.Env {
				c.Env[e.Name] = e.Value
			}
		case s.Http != nil:
			name = s.Http.Name
			c = assembly.MCPServerConfig{Type: "http", URL: s.Http.Url, Headers: headers(s.Http.Headers)}
		case s.Sse != nil:
			name = s.Sse.Name
			c = assembly.MCPServerConfig{Type: "sse", URL: s.Sse.Url, Headers: headers(s.Sse.Headers)}
		default:
			return nil, invalid("%s: mcpServers[%d]: a transport Helios does not take (stdio, http and sse are)", method, i)
		}
		if name == "" {
			return nil, invalid("%s: mcpServers[%d].name: empty", method, i)
		}
		if _, dup := out[name]; dup {
			return nil, invalid("%s: mcpServers[%d].name %q: named twice", method, i, name)
		}
		out[name] = c
	}
	return out, nil
}

func (a *acpAgent) NewSession(ctx context.Context, p acp.NewSessionRequest) (acp.NewSessionResponse, error) {
	s, err := a.openSession(ctx, "session/new", p.Cwd, p.McpServers, "")
	if err != nil {
		return acp.NewSessionResponse{}, err
	}
	s.commandsAfterResponse()
	return acp.NewSessionResponse{SessionId: acp.SessionId(s.id), Modes: s.modes()}, nil
}

func (a *acpAgent) LoadSession(ctx context.Context, p acp.LoadSessionRequest) (acp.LoadSessionResponse, error) {
	if p.SessionId == "" {
		return acp.LoadSessionResponse{}, invalid("session/load: sessionId is required")
	}
	s, err := a.openSession(ctx, "session/load", p.Cwd, p.McpServers, string(p.SessionId))
	if err != nil {
		return acp.LoadSessionResponse{}, err
	}
	s.replay(ctx)
	s.commandsAfterResponse()
	return acp.LoadSessionResponse{Modes: s.modes()}, nil
}

// session finds an open session.
func (a *acpAgent) session(method string, id acp.SessionId) (*acpSession, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s, ok := a.sessions[string(id)]
	if !ok {
		return nil, invalid("%s: no session %q on this connection (session/new or session/load opens one)", method, id)
	}
	return s, nil
}

func (a *acpAgent) Prompt(ctx context.Context, p acp.PromptRequest) (acp.PromptResponse, error) {
	s, err := a.session("session/prompt", p.SessionId)
	if err != nil {
		return acp.PromptResponse{}, err
	}
	text, err := promptText(p.Prompt)
	if err != nil {
		return acp.PromptResponse{}, err
	}
	turn, cancel := context.WithCancel(ctx)
	defer cancel()
	s.mu.Lock()
	if s.cancel != nil {
		s.mu.Unlock()
		return acp.PromptResponse{}, acp.NewInvalidRequest(map[string]any{"error": fmt.Sprintf(
			"session/prompt: session %q is already running a prompt; wait for its response or send session/cancel", s.id)})
	}
	s.cancel, s.usage, s.requests, s.toolsAsked = cancel, session.Usage{}, 0, false
	a.turns.Add(1)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.cancel = nil
		s.mu.Unlock()
		a.turns.Done()
	}()

	text, ran, err := s.slash(turn, text)
	if err == nil && !ran {
		_, err = s.s.Run(turn, text)
	}
	s.mu.Lock()
	u, limited := s.usage, s.toolsAsked && s.requests >= s.maxSteps
	s.mu.Unlock()
	usage := &acp.Usage{InputTokens: u.Input, OutputTokens: u.Output, TotalTokens: u.Input + u.Output,
		CachedReadTokens: &u.CacheRead, CachedWriteTokens: &u.CacheWrite}
	s.sendCommands(context.WithoutCancel(ctx))
	switch {
	case turn.Err() != nil:
		return acp.PromptResponse{StopReason: acp.StopReasonCancelled, Usage: usage}, nil
	case errors.Is(err, kernel.ErrStopped):
		s.send(ctx, acp.UpdateAgentMessageText("\n\n"+err.Error()))
		return acp.PromptResponse{StopReason: acp.StopReasonRefusal, Usage: usage}, nil
	case err != nil:
		return acp.PromptResponse{}, acp.NewInternalError(map[string]any{"error": sanitize.Text(err.Error())})
	case limited:
		return acp.PromptResponse{StopReason: acp.StopReasonMaxTurnRequests, Usage: usage}, nil
	}
	return acp.PromptResponse{StopReason: acp.StopReasonEndTurn, Usage: usage}, nil
}

func (a *acpAgent) Cancel(ctx context.Context, p acp.CancelNotification) error {
	s, err := a.session("session/cancel", p.SessionId)
	if err != nil {
		return err
	}
	s.mu.Lock()
	cancel := s.cancel
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	return nil
}

func (a *acpAgent) CloseSession(ctx context.Context, p acp.CloseSessionRequest) (acp.CloseSessionResponse, error) {
	return acp.CloseSessionResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionClose)
}

func (a *acpAgent) ListSessions(ctx context.Context, p acp.ListSessionsRequest) (acp.ListSessionsResponse, error) {
	return acp.ListSessionsResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionList)
}

func (a *acpAgent) ResumeSession(ctx context.Context, p acp.ResumeSessionRequest) (acp.ResumeSessionResponse, error) {
	return acp.ResumeSessionResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionResume)
}

func (a *acpAgent) SetSessionConfigOption(ctx context.Context, p acp.SetSessionConfigOptionRequest) (acp.SetSessionConfigOptionResponse, error) {
	return acp.SetSessionConfigOptionResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionSetConfigOption)
}

// acpModes are the session modes offered: the permission rules'
// defaultMode (docs/permissions.md).
var acpModes = []acp.SessionMode{
	{Id: "default", Name: "Default", Description: ptr("Calls no rule decides run; permissions.ask rules ask")},
	{Id: "acceptEdits", Name: "Accept edits", Description: ptr("As default, and Write and Edit run without asking")},
	{Id: "plan", Name: "Plan", Description: ptr("Read-only: calls no allow rule matches run only when the tool is read-only")},
}

func ptr[T any](v T) *T { return &v }

// modes is the session's mode state for session/new and session/load.
func (s *acpSession) modes() *acp.SessionModeState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return &acp.SessionModeState{AvailableModes: acpModes, CurrentModeId: acp.SessionModeId(s.mode)}
}

// SetSessionMode sets the permission rules' defaultMode of a session: its
// kernel is rebuilt with it and the session reopened (its log goes on), so
// a mode changes between turns, never during one.
func (a *acpAgent) SetSessionMode(ctx context.Context, p acp.SetSessionModeRequest) (acp.SetSessionModeResponse, error) {
	s, err := a.session("session/set_mode", p.SessionId)
	if err != nil {
		return acp.SetSessionModeResponse{}, err
	}
	if !slices.ContainsFunc(acpModes, func(m acp.SessionMode) bool { return m.Id == p.ModeId }) {
		return acp.SetSessionModeResponse{}, invalid("session/set_mode: modeId %q: want default, acceptEdits or plan", p.ModeId)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cancel != nil {
		return acp.SetSessionModeResponse{}, acp.NewInvalidRequest(map[string]any{"error": fmt.Sprintf(
			"session/set_mode: session %q is running a prompt; set the mode between prompts", s.id)})
	}
	if string(p.ModeId) == s.mode {
		return acp.SetSessionModeResponse{}, nil
	}
	c, err := s.g.readConfig()
	if err != nil {
		return acp.SetSessionModeResponse{}, err
	}
	prev := c.cfg.Permissions.DefaultMode
	c.cfg.Permissions.DefaultMode = permissions.Mode(p.ModeId)
	k, err := s.g.openKernel(context.WithoutCancel(ctx))
	if err != nil {
		c.cfg.Permissions.DefaultMode = prev
		return acp.SetSessionModeResponse{}, fmt.Errorf("session/set_mode: %w", err)
	}
	if err := s.s.Close(); err != nil {
		fmt.Fprintf(a.errw, "helios: acp: session %s: %s\n", s.id, sanitize.Text(err.Error()))
	}
	s.k.Close()
	ks, err := k.OpenSession(context.WithoutCancel(ctx), kernel.SessionConfig{
		Resume: s.id, MaxSteps: c.cfg.Sessions.MaxSteps, Observe: s.observe, Confirm: s.confirm,
	})
	if err != nil {
		k.Close()
		return acp.SetSessionModeResponse{}, fmt.Errorf("session/set_mode: reopen session %s: %w", s.id, err)
	}
	s.k, s.s, s.mode = k, ks, string(p.ModeId)
	return acp.SetSessionModeResponse{}, nil
}

// closeAll cancels the running turns, waits for them, and closes every
// session and its kernel.
func (a *acpAgent) closeAll() {
	a.mu.Lock()
	all := slices.Collect(maps.Values(a.sessions))
	a.sessions = map[string]*acpSession{}
	a.mu.Unlock()
	for _, s := range all {
		s.mu.Lock()
		if s.cancel != nil {
			s.cancel()
		}
		s.mu.Unlock()
	}
	a.turns.Wait()
	for _, s := range all {
		if err := s.s.Close(); err != nil {
			fmt.Fprintf(a.errw, "helios: acp: session %s: %s\n", s.id, sanitize.Text(err.Error()))
		}
		s.k.Close()
	}
}

// confirm asks the client whether a call a permission rule or a hook
// wants confirmed may run: allow once, reject, and when a permission rule
// asks, allow always (that rule, for the rest of the session; a hook's ask
// is asked each time, as in the UI). A cancelled request (the turn
// cancelled) denies.
func (s *acpSession) confirm(ctx context.Context, q kernel.Confirmation) (bool, error) {
	s.mu.Lock()
	always := q.Rule != "" && s.allowed[q.Rule] || s.mode == "acceptEdits" && (q.Call.Name == "Write" || q.Call.Name == "Edit")
	s.mu.Unlock()
	if always {
		return true, nil
	}
	title, kind, locs := s.describe(q.Call.Name, q.Call.Arguments)
	who := "A hook asks"
	if q.Rule != "" {
		who = "The permission rule " + q.Rule + " asks"
	}
	title = who + ": " + title
	if r := strings.TrimSpace(q.Reason); r != "" {
		title += " (" + r + ")"
	}
	options := []acp.PermissionOption{{OptionId: "allow_once", Name: "Allow once", Kind: acp.PermissionOptionKindAllowOnce}}
	if q.Rule != "" {
		options = append(options, acp.PermissionOption{OptionId: "allow_always", Name: "Allow always (rule " + q.Rule + ", this session)", Kind: acp.PermissionOptionKindAllowAlways})
	}
	options = append(options, acp.PermissionOption{OptionId: "reject", Name: "Reject", Kind: acp.PermissionOptionKindRejectOnce})
	status := acp.ToolCallStatusPending
	resp, err := s.a.conn.RequestPermission(ctx, acp.RequestPermissionRequest{
		SessionId: acp.SessionId(s.id),
		ToolCall: acp.ToolCallUpdate{ToolCallId: acp.ToolCallId(q.Call.ID), Title: &title, Kind: &kind,
			Status: &status, Locations: locs, RawInput: rawInput(q.Call.Arguments)},
		Options: options,
	})
	switch {
	case ctx.Err() != nil:
		return false, nil
	case err != nil:
		return false, err
	case resp.Outcome.Selected == nil:
		return false, nil // cancelled
	}
	switch resp.Outcome.Selected.OptionId {
	case "allow_always":
		if q.Rule != "" {
			s.mu.Lock()
			s.allowed[q.Rule] = true
			s.mu.Unlock()
		}
		return true, nil
	case "allow_once":
		return true, nil
	}
	return false, nil
}

// slash runs a prompt that is /skill:NAME (loads the skill into the
// session, then runs the rest of the prompt if any) or /COMMAND ARGS (runs
// its expansion). ran says the turn is done; else text is what to run.
func (s *acpSession) slash(ctx context.Context, text string) (string, bool, error) {
	first, rest, _ := strings.Cut(strings.TrimSpace(text), " ")
	name, ok := strings.CutPrefix(first, "/")
	if !ok || name == "" || strings.Contains(name, "/") {
		return text, false, nil
	}
	if skill, ok := strings.CutPrefix(name, "skill:"); ok {
		body, err := s.k.LoadSkill(ctx, skill)
		if err != nil {
			return "", true, invalid("session/prompt: /skill:%s: %v", skill, err)
		}
		if err := s.s.Inject(ctx, "user:/skill", body); err != nil {
			return "", true, err
		}
		s.send(ctx, acp.UpdateAgentThoughtText(fmt.Sprintf("Loaded skill %s (%d lines).\n", skill, strings.Count(body, "\n")+1)))
		rest = strings.TrimSpace(rest)
		return rest, rest == "", nil
	}
	set, done, err := s.g.commandSet(ctx)
	if err != nil {
		return text, false, nil
	}
	defer done()
	ex, err := set.Expand(ctx, name, strings.TrimSpace(rest))
	if err != nil {
		return text, false, nil // not a command: the model reads it as written
	}
	for _, w := range ex.Warnings {
		s.send(ctx, acp.UpdateAgentThoughtText(fmt.Sprintf("/%s: %s\n", name, w)))
	}
	return ex.Prompt, false, nil
}
