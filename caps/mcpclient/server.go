package mcpclient

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/skills"
)

// State is where a server is in its life.
type State int

const (
	// StateStarting: the first start is under way.
	StateStarting State = iota
	// StateReady: connected; its tools and skills are offered.
	StateReady
	// StateDown: it failed (or never started); it is restarted after a
	// backoff, and offers nothing until then.
	StateDown
	// StateDisabled: configured with "enabled": false, or a variable it
	// needs is unset (see ServerConfig.DisabledReason); never started.
	StateDisabled
	// StateClosed: stopped with the kernel.
	StateClosed
)

// String returns "starting", "ready", "down", "disabled" or "closed".
func (s State) String() string {
	switch s {
	case StateStarting:
		return "starting"
	case StateReady:
		return "ready"
	case StateDown:
		return "down"
	case StateDisabled:
		return "disabled"
	case StateClosed:
		return "closed"
	}
	return fmt.Sprintf("State(%d)", int(s))
}

// Server is one configured MCP server as a kernel capability named
// "mcp:<name>": its tools (ToolProvider) and, when it serves the Agent
// Skills extension, its skills (a skills.Provider that watches itself). It
// is safe for concurrent use.
type Server struct {
	cfg    ServerConfig
	sh     *shared
	logger *slog.Logger
	client *mcp.Client

	stop      chan struct{} // closed by Close
	done      chan struct{} // closed when the supervisor returned
	started   chan struct{} // closed when the first start ended, either way
	closeOnce sync.Once

	mu         sync.Mutex
	state      State
	sess       *session
	lastErr    error
	failures   int // in a row
	restarts   int
	retryAt    time.Time
	invalidate func()
	skillDir   string // made at the first skill listing
}

var (
	_ kernel.Capability   = (*Server)(nil)
	_ kernel.ToolProvider = (*Server)(nil)
	_ skills.Provider     = (*Server)(nil)
	_ skills.Watchable    = (*Server)(nil)
)

// shared is what the servers of one Start share.
type shared struct {
	Config
	maxOutput int
	backoff   time.Duration
}

// session is one connection to a server, from a start to its end.
type session struct {
	cs      *mcp.ClientSession
	conn    *connInfo // why the transport ended, when it knows
	skills  bool      // the server declared the skills extension
	proto   string
	info    string // the server's name and version, as it says
	opened  time.Time
	dropped atomic.Pointer[error] // set by drop: why the client ended it
	over    chan struct{}         // closed once the supervisor has recorded the end

	refresh sync.Mutex  // one tool listing at a time
	dirty   atomic.Bool // tools/list_changed arrived since the last listing
	tools   atomic.Pointer[[]remoteTool]
}

// Start checks every server's config and starts the enabled ones in the
// background, all at once; it returns without waiting for any. Each server
// is restarted with a doubling backoff whenever it fails, until Close.
func Start(cfg Config) ([]*Server, error) {
	var errs []error
	seen := map[string]bool{}
	for _, sc := range cfg.Servers {
		if err := sc.Check(); err != nil {
			errs = append(errs, err)
		}
		if seen[sc.Name] {
			errs = append(errs, fmt.Errorf("%w %q: configured twice", ErrConfig, sc.Name))
		}
		seen[sc.Name] = true
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	sh := &shared{Config: cfg, maxOutput: cfg.MaxOutput, backoff: cfg.RestartBackoff}
	if sh.Logger == nil {
		sh.Logger = slog.New(slog.DiscardHandler)
	}
	if sh.maxOutput <= 0 {
		sh.maxOutput = DefaultMaxOutput
	}
	if sh.backoff <= 0 {
		sh.backoff = DefaultRestartBackoff
	}
	if sh.Version == "" {
		sh.Version = "dev"
	}
	out := make([]*Server, 0, len(cfg.Servers))
	for _, sc := range cfg.Servers {
		s, err := newServer(sc, sh)
		if err != nil {
			for _, o := range out {
				o.Close()
			}
			return nil, err
		}
		out = append(out, s)
	}
	for _, s := range out {
		if s.state == StateDisabled {
			close(s.started)
			close(s.done)
			continue
		}
		go s.supervise()
	}
	return out, nil
}

func newServer(cfg ServerConfig, sh *shared) (*Server, error) {
	s := &Server{
		cfg:     cfg,
		sh:      sh,
		logger:  sh.Logger.With(slog.String("mcp.server", cfg.Name)),
		stop:    make(chan struct{}),
		done:    make(chan struct{}),
		started: make(chan struct{}),
	}
	if cfg.Disabled {
		s.state = StateDisabled
	}
	s.client = mcp.NewClient(&mcp.Implementation{Name: "helios", Version: sh.Version}, &mcp.ClientOptions{
		Logger:                     s.logger,
		Capabilities:               &mcp.ClientCapabilities{},
		ToolListChangedHandler:     func(_ context.Context, r *mcp.ToolListChangedRequest) { s.toolsChanged(r.Session) },
		ResourceListChangedHandler: func(_ context.Context, r *mcp.ResourceListChangedRequest) { s.skillsChanged(r.Session) },
		PromptListChangedHandler:   func(_ context.Context, r *mcp.PromptListChangedRequest) { s.skillsChanged(r.Session) },
	})
	if sh.WorkDir != "" {
		s.client.AddRoots(&mcp.Root{URI: fileURI(sh.WorkDir), Name: "work dir"})
	}
	if err := registerSkillMethods(s.client); err != nil {
		return nil, fmt.Errorf("mcp server %q: %w", cfg.Name, err)
	}
	return s, nil
}

// Name returns "mcp:<name>".
func (s *Server) Name() string { return "mcp:" + s.cfg.Name }

// SkillSource returns "mcp:<name>": the source label of its skills, which
// each of them carries (the kernel would label them capability:<name>).
func (s *Server) SkillSource() string { return "mcp:" + s.cfg.Name }

// ServerName returns the configured name.
func (s *Server) ServerName() string { return s.cfg.Name }

// Config returns the server's configuration.
func (s *Server) Config() ServerConfig { return s.cfg }

// Wait waits until the server's first start ended (it is ready or down),
// or ctx ends.
func (s *Server) Wait(ctx context.Context) error {
	select {
	case <-s.started:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// ready waits for the first start, then returns the live session, or nil
// when the server is down, disabled or closed. The first model request thus
// waits for the servers still starting (at most their start timeout), and
// never for one that already failed.
func (s *Server) ready(ctx context.Context) *session {
	if s.Wait(ctx) != nil {
		return nil
	}
	return s.current()
}

func (s *Server) current() *session {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sess
}

// Status is a snapshot of a server's state.
type Status struct {
	// Name is the configured name; Transport "stdio" or "http"; Target the
	// command line or URL.
	Name, Transport, Target string
	// State is where it is.
	State State
	// Err says why it is down, or why a disabled server is off when it
	// was not configured off (ServerConfig.DisabledReason).
	Err error
	// RetryIn is how long until the next start, while down.
	RetryIn time.Duration
	// Restarts counts the starts after the first.
	Restarts int
	// Protocol is the negotiated protocol version; Server what the server
	// calls itself.
	Protocol, Server string
	// Tools are its tools as the model sees them, while ready.
	Tools []ToolInfo
	// HasSkillsExtension says the server declared the skills extension.
	HasSkillsExtension bool
}

// ToolInfo is one tool of a server.
type ToolInfo struct {
	// Name is what the model calls it by; Remote the server's own name.
	Name, Remote string
	// ReadOnly and Destructive are its annotations, resolved with MCP's
	// defaults.
	ReadOnly, Destructive bool
}

// Status reports the server's state without any I/O.
func (s *Server) Status() Status {
	st := Status{Name: s.cfg.Name, Transport: s.cfg.transport(), Target: s.target()}
	s.mu.Lock()
	st.State, st.Err, st.Restarts = s.state, s.lastErr, s.restarts
	if s.state == StateDisabled && s.cfg.DisabledReason != "" {
		st.Err = errors.New(s.cfg.DisabledReason)
	}
	if s.state == StateDown {
		st.RetryIn = max(0, time.Until(s.retryAt))
	}
	x := s.sess
	s.mu.Unlock()
	if x != nil {
		st.Protocol, st.Server, st.HasSkillsExtension = x.proto, x.info, x.skills
		if ts := x.tools.Load(); ts != nil {
			for _, t := range *ts {
				a := annotations(t.tool)
				info := ToolInfo{Name: t.name, Remote: t.tool.Name}
				if a != nil {
					info.ReadOnly, info.Destructive = a.ReadOnly, a.Destructive
				}
				st.Tools = append(st.Tools, info)
			}
		}
	}
	return st
}

func (s *Server) target() string {
	if s.cfg.URL != "" {
		return s.cfg.URL
	}
	return commandLine(s.cfg.Command, s.cfg.Args)
}

// Close stops the server (its process and what it started, or the HTTP
// session) and waits until it is gone; a temporary folder of its skills is
// removed. Later calls do nothing.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.state = StateClosed
		s.mu.Unlock()
		close(s.stop)
		<-s.done
		s.mu.Lock()
		dir := s.skillDir
		s.sess = nil
		s.mu.Unlock()
		if dir != "" && s.sh.SkillDir == "" {
			os.RemoveAll(filepath.Dir(dir))
		}
	})
	return nil
}

// supervise starts the server, waits for its session to end, and starts it
// again after a backoff, until Close.
func (s *Server) supervise() {
	defer close(s.done)
	first := true
	for {
		if err := s.sh.Pins.Check(s.cfg.Files()); err != nil {
			s.mu.Lock()
			s.state, s.lastErr = StateDisabled, err
			s.mu.Unlock()
			s.logger.Warn("mcp server is off: what it runs is not what you trusted", slog.Any("error", err))
			if first {
				close(s.started)
			}
			return
		}
		x, err := s.connect()
		s.mu.Lock()
		if s.state == StateClosed {
			s.mu.Unlock()
			if x != nil {
				x.cs.Close()
			}
			if first {
				close(s.started)
			}
			return
		}
		var wait time.Duration
		if err != nil {
			wait = s.failedLocked(err, first)
		} else {
			s.sess, s.state, s.lastErr = x, StateReady, nil
			if !first {
				s.restarts++
			}
		}
		inv := s.invalidate
		s.mu.Unlock()
		if first {
			close(s.started)
		}
		if err == nil {
			if !first {
				s.logger.Info("mcp server is back", slog.Int("tools", len(*x.tools.Load())), slog.Bool("skills", x.skills))
			}
			if inv != nil {
				go inv()
			}
			wait = s.serve(x)
			if wait < 0 {
				return // closed
			}
		}
		first = false
		select {
		case <-time.After(wait):
		case <-s.stop:
			return
		}
	}
}

// testHookBeforeEndRecorded, set only by tests, runs on the supervisor
// between a session's end and its recording: a test slows it down to show
// that a call finding its server gone waits for the recording.
var testHookBeforeEndRecorded func()

// serve waits for the session to end (or Close) and returns the backoff
// before the next start; -1 means closed.
func (s *Server) serve(x *session) time.Duration {
	defer close(x.over)
	ended := make(chan error, 1)
	go func() { ended <- x.cs.Wait() }()
	var err error
	select {
	case err = <-ended:
	case <-s.stop:
		x.cs.Close()
		<-ended
		return -1
	}
	if testHookBeforeEndRecorded != nil {
		testHookBeforeEndRecorded()
	}
	reason := x.endReason(err)
	s.mu.Lock()
	if s.state == StateClosed {
		s.mu.Unlock()
		return -1
	}
	if time.Since(x.opened) >= MaxRestartBackoff {
		s.failures = 0 // it ran well for a while: this is a new outage
	}
	s.sess = nil
	wait := s.failedLocked(reason, false)
	inv := s.invalidate
	s.mu.Unlock()
	if inv != nil && x.skills {
		go inv() // its skills are gone until it is back
	}
	return wait
}

// failedLocked records a failed start or an ended session and returns the
// wait before the next start. The first failure of an outage is a warning
// naming the server; the failed restarts that follow are only logged.
func (s *Server) failedLocked(err error, first bool) time.Duration {
	s.state = StateDown
	s.lastErr = err
	s.failures++
	wait := s.sh.backoff
	for i := 1; i < s.failures && wait < MaxRestartBackoff; i++ {
		wait *= 2
	}
	wait = min(wait, MaxRestartBackoff)
	s.retryAt = time.Now().Add(wait)
	switch {
	case first:
		s.logger.Warn("mcp server failed to start; it offers no tools or skills until a restart succeeds", slog.Any("error", err), slog.Duration("retryIn", wait))
	case s.failures == 1:
		s.logger.Warn("mcp server is down; its tools and skills are gone until a restart succeeds", slog.Any("error", err), slog.Duration("retryIn", wait))
	default:
		s.logger.Info("mcp server restart failed", slog.Any("error", err), slog.Duration("retryIn", wait))
	}
	return wait
}

// connect starts the transport, runs the protocol's handshake and lists
// the tools, all within the start timeout.
func (s *Server) connect() (*session, error) {
	ctx, cancel := context.WithTimeout(context.Background(), s.cfg.startTimeout())
	defer cancel()
	go func() {
		select {
		case <-s.stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	info := &connInfo{}
	var t mcp.Transport
	if s.cfg.URL != "" {
		t = s.httpTransport()
	} else {
		t = &stdioTransport{cfg: s.cfg, logger: s.logger, info: info}
	}
	cs, err := s.client.Connect(ctx, t, nil)
	if err != nil {
		return nil, s.startError(ctx, info, err)
	}
	x := &session{cs: cs, conn: info, opened: time.Now(), over: make(chan struct{})}
	if r := cs.InitializeResult(); r != nil {
		x.proto = r.ProtocolVersion
		if r.ServerInfo != nil {
			x.info = r.ServerInfo.Name + " " + r.ServerInfo.Version
		}
		if r.Capabilities != nil {
			_, x.skills = r.Capabilities.Extensions[ExtensionID]
		}
	}
	x.dirty.Store(true)
	if _, err := s.tools(ctx, x); err != nil {
		cs.Close()
		return nil, s.startError(ctx, info, fmt.Errorf("list tools: %w", err))
	}
	return x, nil
}

// startError names why a start failed: the transport's own account (a
// process that exited, with its last lines on stderr) first.
func (s *Server) startError(ctx context.Context, info *connInfo, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("no answer within %v (startTimeout)", s.cfg.startTimeout())
	}
	if r := info.reason(); r != nil {
		return r
	}
	return err
}

// drop ends a session the client gave up on (a hang); the supervisor then
// restarts the server.
func (s *Server) drop(x *session, why error) {
	if x.dropped.CompareAndSwap(nil, &why) {
		x.conn.abort()
		x.cs.Close()
	}
}

// suspectHang pings a server whose call timed out: one that does not answer
// the ping either is hung, and is restarted.
func (s *Server) suspectHang(x *session) {
	d := min(5*time.Second, s.cfg.timeout())
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	if err := x.cs.Ping(ctx, nil); err != nil {
		s.drop(x, fmt.Errorf("a call got no answer within %v (its timeout) and a ping none within %v: the server hangs", s.cfg.timeout(), d))
	}
}

// endReason says why a session ended: the client's own reason, the
// transport's account, or the SDK's error.
func (x *session) endReason(err error) error {
	if p := x.dropped.Load(); p != nil {
		return *p
	}
	if r := x.conn.reason(); r != nil {
		return r
	}
	if err == nil {
		return errors.New("the server closed the connection")
	}
	return err
}

// toolsChanged marks the session's tool list stale and reads it again in
// the background; a Tools call before that listing ends waits for it (or
// lists itself). It runs on the SDK's reading goroutine, so it must not
// block.
func (s *Server) toolsChanged(cs *mcp.ClientSession) {
	if x := s.current(); x != nil && x.cs == cs {
		x.dirty.Store(true)
		go s.tools(context.Background(), x)
	}
}

// skillsChanged invalidates the server's skills registration: skills are
// resources, and a server announces a changed skill set by
// resources/list_changed (prompts follow skills on Helios's own server).
// The registry's listeners run on their own goroutine: one that takes a
// snapshot asks this server, over the connection whose reader is calling.
func (s *Server) skillsChanged(cs *mcp.ClientSession) {
	x := s.current()
	if x == nil || x.cs != cs || !x.skills {
		return
	}
	s.mu.Lock()
	inv := s.invalidate
	s.mu.Unlock()
	if inv != nil {
		go inv()
	}
}

// Watch hands the server its registration's invalidate function: called
// when the server announces a change of its skills, and when it goes down
// or comes back.
func (s *Server) Watch(invalidate func(), done <-chan struct{}) error {
	s.mu.Lock()
	s.invalidate = invalidate
	s.mu.Unlock()
	go func() {
		select {
		case <-done:
		case <-s.stop:
		}
		s.mu.Lock()
		s.invalidate = nil
		s.mu.Unlock()
	}()
	return nil
}

// unavailable says why the server offers nothing now, for an error result.
func (s *Server) unavailable() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch s.state {
	case StateDisabled:
		if s.lastErr != nil {
			return "it is off: " + s.lastErr.Error()
		}
		return "it is disabled in the config"
	case StateClosed:
		return "it was stopped"
	case StateStarting:
		return "it is still starting"
	}
	why := "it is down"
	if s.lastErr != nil {
		why += " (" + s.lastErr.Error() + ")"
	}
	if wait := time.Until(s.retryAt); wait > 0 {
		why += fmt.Sprintf("; the next restart is in %v", wait.Round(time.Millisecond))
	}
	return why
}
