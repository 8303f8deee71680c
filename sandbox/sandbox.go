package sandbox

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
)

// Mode says how the processes started for the model are confined.
type Mode int

const (
	// Default is WorkspaceWrite on Linux and Off elsewhere.
	Default Mode = iota
	// WorkspaceWrite reads everywhere and writes only the work dir, the
	// session's temp dir and the configured writable paths.
	WorkspaceWrite
	// ReadOnly reads everywhere and writes only the session's temp dir.
	ReadOnly
	// Off starts commands unconfined.
	Off
)

// String is the mode's name in helios.config.json.
func (m Mode) String() string {
	switch m.resolve() {
	case WorkspaceWrite:
		return "workspace-write"
	case ReadOnly:
		return "read-only"
	}
	return "off"
}

// resolve turns Default into the platform's default.
func (m Mode) resolve() Mode {
	if m != Default {
		return m
	}
	if runtime.GOOS == "linux" {
		return WorkspaceWrite
	}
	return Off
}

// Config configures how processes for the model are started. The zero value
// confines them by the platform's default mode, with network off and the
// allowlisted environment.
type Config struct {
	// Mode is the confinement; Default is WorkspaceWrite on Linux.
	Mode Mode
	// Writable are absolute paths (directories or files) commands may also
	// write in WorkspaceWrite mode. Each must exist and lie outside the
	// protected paths of the others and of Helios's state dir. The
	// protected paths at the top of each (and of the work dir) stay
	// read-only: helios.config.json, helios-lock.json, .git, .helios and
	// .agents but their skills folders.
	Writable []string
	// Network lets confined commands open every kind of socket. Off, they
	// open no IP socket and no Unix socket but stream socket pairs and
	// UnixSockets.
	Network bool
	// UnixSockets are absolute paths of existing Unix sockets confined
	// commands may connect to with the network off (a database's, an
	// agent's). Enforcing them needs Landlock ABI 9; on an older kernel a
	// non-empty list makes every command fail closed.
	UnixSockets []string
	// Env are "NAME=value" entries set for every process (tools.env).
	Env []string
	// PassEnv names variables passed through from the kernel's environment
	// besides BaseEnv and LC_* (tools.passEnv).
	PassEnv []string
	// Deny names variables never passed, whatever PassEnv or Env say: the
	// variable holding the model's API key. HELIOS_* never pass either.
	Deny []string
	// Probe reports what the machine supports. Nil means the real probe
	// (see Probe); tests set it to simulate a machine without Landlock.
	Probe func() Support
	// TempRoot is where session temp dirs are made. Empty means
	// os.TempDir().
	TempRoot string
	// Logger receives the one-time notice that commands are not confined.
	// Nil discards.
	Logger *slog.Logger
}

// Sandbox starts processes for the model. It keeps a temp dir per session,
// made on first use and removed by EndSession or Close. It is safe for
// concurrent use.
type Sandbox struct {
	cfg     Config
	mode    Mode
	support Support
	logger  *slog.Logger
	offOnce sync.Once

	mu       sync.Mutex
	sessions map[string]*sessionState
	filters  map[filterKey][]byte // seccomp programs compiled, by what decides them
	closed   bool
}

// filterKey is what a seccomp program depends on.
type filterKey struct {
	noNetwork bool
	unix      unixRule
}

type sessionState struct {
	tmp   string
	noted bool // the "ran confined" line was shown
}

// New checks cfg: every writable path and allowed socket must be absolute,
// exist and lie outside the protected paths (see CheckWritable), and
// neither PassEnv nor Env may name a variable in Deny or one starting with
// HELIOS_. All problems are reported together. In a confining mode it
// needs Main to have been called (else an error wrapping ErrNoMain says
// what to add), and it makes the calling process non-dumpable when it runs
// as root (see protectProcess).
func New(cfg Config) (*Sandbox, error) {
	var errs []error
	for i, p := range cfg.Writable {
		if err := CheckWritable(p, cfg.Writable); err != nil {
			errs = append(errs, fmt.Errorf("writable[%d]: %w", i, err))
		}
	}
	for i, p := range cfg.UnixSockets {
		if err := CheckUnixSocket(p, cfg.Writable); err != nil {
			errs = append(errs, fmt.Errorf("unixSockets[%d]: %w", i, err))
		}
	}
	for i, name := range cfg.PassEnv {
		if err := CheckEnvName(name, cfg.Deny); err != nil {
			errs = append(errs, fmt.Errorf("passEnv[%d]: %w", i, err))
		}
	}
	for _, kv := range cfg.Env {
		name, _, _ := strings.Cut(kv, "=")
		if err := CheckEnvName(name, cfg.Deny); err != nil {
			errs = append(errs, fmt.Errorf("env.%s: %w", name, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("new sandbox: %w", err)
	}
	s := &Sandbox{cfg: cfg, mode: cfg.Mode.resolve(), logger: cfg.Logger, sessions: map[string]*sessionState{}}
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	if s.mode != Off {
		if err := checkMain(); err != nil {
			return nil, fmt.Errorf("new sandbox: %w", err)
		}
		if cfg.Probe != nil {
			s.support = cfg.Probe()
		} else {
			s.support = Probe()
		}
		if err := protectProcess(); err != nil {
			return nil, fmt.Errorf("new sandbox: %w", err)
		}
	}
	return s, nil
}

// CheckWritable says why p cannot be a writable path: it must be absolute,
// exist, and lie outside the protected paths of roots (the work dir and
// the other writable paths: helios.config.json, helios-lock.json, .git,
// .helios and .agents but their skills folders) and of Helios's state dir
// ~/.helios.
func CheckWritable(p string, roots []string) error {
	return checkPath(p, roots)
}

// CheckUnixSocket says why p cannot be an allowed Unix socket: it must be
// absolute, exist, be a socket, and lie outside the protected paths (as
// for CheckWritable).
func CheckUnixSocket(p string, roots []string) error {
	if err := checkPath(p, roots); err != nil {
		return err
	}
	if fi, err := os.Stat(p); err == nil && fi.Mode()&fs.ModeSocket == 0 {
		return fmt.Errorf("%q is not a Unix socket (it is a %s)", p, kind(fi.Mode()))
	}
	return nil
}

func checkPath(p string, roots []string) error {
	if !filepath.IsAbs(p) {
		return fmt.Errorf("%q is relative: give an absolute path", p)
	}
	if _, err := os.Stat(p); err != nil {
		return fmt.Errorf("%q: %w", p, errors.Unwrap(err))
	}
	real := filepath.Clean(p)
	if r, err := filepath.EvalSymlinks(p); err == nil {
		real = r
	}
	var resolved []string
	for _, r := range roots {
		if rr, err := filepath.EvalSymlinks(r); err == nil {
			r = rr
		}
		resolved = append(resolved, r)
	}
	if prot, ok := protectedPath(real, resolved, homeDir()); ok {
		return fmt.Errorf("%q is in %s, which stays read-only for commands (a writable or socket path there would reopen it)", p, prot)
	}
	return nil
}

// kind names a file mode's type for an error.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "directory"
	case m.IsRegular():
		return "regular file"
	}
	return m.Type().String()
}

// Describe is a sentence for a tool's description telling the model how
// its commands are confined; "" in mode Off.
func (s *Sandbox) Describe() string {
	return describe(s.mode, s.cfg.Network, s.cfg.Writable, s.cfg.UnixSockets)
}

// Mode returns the effective mode (Default resolved).
func (s *Sandbox) Mode() Mode { return s.mode }

// Policy returns what a command in workDir whose session temp dir is
// tempDir may do.
func (s *Sandbox) Policy(workDir, tempDir string) Policy {
	return Policy{Mode: s.mode, Network: s.cfg.Network, WorkDir: workDir, TempDir: tempDir, Writable: s.cfg.Writable, UnixSockets: s.cfg.UnixSockets}
}

// Support returns what the machine offered when s was made (the zero
// Support in Off mode, where nothing is probed).
func (s *Sandbox) Support() Support { return s.support }

// Verify runs a command that does nothing in workDir, confined as the
// model's commands are, in a session of its own that it then ends. nil
// means confinement works end to end on this machine; it says nothing in
// mode Off.
func (s *Sandbox) Verify(workDir string) error {
	if s.mode == Off {
		return nil
	}
	const id = "sandbox-verify"
	defer s.EndSession(id)
	cmd, _, err := s.Command(id, workDir, "sh", "-c", "exit 0")
	if err != nil {
		return err
	}
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("a confined test command failed: %w", err)
	}
	return nil
}

// Command prepares argv (argv[0] an absolute path or a name on PATH) to run
// in dir for session id, with the allowlisted environment and, unless the
// mode is Off, confined. note is a line to show the model with the output
// of the session's first confined command ("" otherwise). A mode the machine
// cannot enforce is an error (wrapping ErrUnenforceable) naming what is
// missing: never an unconfined run.
func (s *Sandbox) Command(id, dir string, argv ...string) (cmd *Cmd, note string, err error) {
	if len(argv) == 0 {
		return nil, "", errors.New("sandbox command: empty argv")
	}
	if s.mode == Off {
		s.offOnce.Do(func() {
			s.logger.Warn("commands run for the model are not confined (tools.sandbox.mode is \"off\")")
		})
		c := exec.Command(argv[0], argv[1:]...)
		c.Dir = dir
		c.Env = environ(os.Environ(), s.cfg.PassEnv, s.cfg.Env, s.cfg.Deny)
		return &Cmd{Cmd: c}, "", nil
	}
	// Refuse what cannot be enforced before making the session's temp dir.
	if _, err := makePlan(s.Policy(dir, "/"), s.support, false); err != nil {
		return nil, "", err
	}
	st, err := s.session(id)
	if err != nil {
		return nil, "", err
	}
	pol := s.Policy(dir, st.tmp)
	p, err := makePlan(pol, s.support, true)
	if err != nil {
		return nil, "", err
	}
	if p.Filter, err = s.filter(p); err != nil {
		return nil, "", err
	}
	if p.Argv, err = absArgv(argv); err != nil {
		return nil, "", err
	}
	enc, err := p.encode()
	if err != nil {
		return nil, "", err
	}
	c := exec.Command(selfExe, childArg, enc)
	c.Dir = dir
	c.Env = environ(os.Environ(), s.cfg.PassEnv, s.cfg.Env, s.cfg.Deny, "TMPDIR="+st.tmp)
	r, w, err := os.Pipe()
	if err != nil {
		return nil, "", fmt.Errorf("sandbox command: %w", err)
	}
	c.ExtraFiles = []*os.File{w}
	s.mu.Lock()
	if !st.noted {
		note = confinedNote(pol, p)
	}
	s.mu.Unlock()
	// The line counts as shown once a command really ran confined.
	started := func() {
		s.mu.Lock()
		st.noted = true
		s.mu.Unlock()
	}
	return &Cmd{Cmd: c, status: r, statusW: w, started: started, namespaces: true, noNetwork: p.NoNetwork}, note, nil
}

// session returns the state of session id, making its temp dir on first
// use.
func (s *Sandbox) session(id string) (*sessionState, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errors.New("start session: sandbox closed")
	}
	if st, ok := s.sessions[id]; ok {
		if _, err := os.Stat(st.tmp); err == nil {
			return st, nil
		}
		// Removed from under us (a cleaner of /tmp): make a new one.
	}
	root := s.cfg.TempRoot
	if root == "" {
		root = os.TempDir()
	}
	tmp, err := os.MkdirTemp(root, "helios-session-")
	if err != nil {
		return nil, fmt.Errorf("make session temp dir: %w", err)
	}
	// Landlock rules name resolved paths; /tmp may be a symlink.
	if real, err := filepath.EvalSymlinks(tmp); err == nil {
		tmp = real
	}
	st := &sessionState{tmp: tmp}
	if old, ok := s.sessions[id]; ok {
		st.noted = old.noted
	}
	s.sessions[id] = st
	return st, nil
}

// filter returns p's seccomp program, compiled on first use: every
// command of the same policy installs the same one.
func (s *Sandbox) filter(p plan) ([]byte, error) {
	key := filterKey{noNetwork: p.NoNetwork, unix: p.Unix}
	s.mu.Lock()
	defer s.mu.Unlock()
	if f, ok := s.filters[key]; ok {
		return f, nil
	}
	f, err := compileFilter(p)
	if err != nil {
		return nil, err
	}
	if s.filters == nil {
		s.filters = map[filterKey][]byte{}
	}
	s.filters[key] = f
	return f, nil
}

// TempDir returns session id's temp dir, "" when it has none yet.
func (s *Sandbox) TempDir(id string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st, ok := s.sessions[id]; ok {
		return st.tmp
	}
	return ""
}

// EndSession removes session id's temp dir.
func (s *Sandbox) EndSession(id string) {
	s.mu.Lock()
	st, ok := s.sessions[id]
	delete(s.sessions, id)
	s.mu.Unlock()
	if ok {
		_ = os.RemoveAll(st.tmp)
	}
}

// Close removes every session's temp dir; later commands fail.
func (s *Sandbox) Close() error {
	s.mu.Lock()
	s.closed = true
	sessions := s.sessions
	s.sessions = map[string]*sessionState{}
	s.mu.Unlock()
	var errs []error
	for _, st := range sessions {
		errs = append(errs, os.RemoveAll(st.tmp))
	}
	return errors.Join(errs...)
}

// absArgv resolves argv[0] on PATH: the confined child executes it
// directly.
func absArgv(argv []string) ([]string, error) {
	p, err := exec.LookPath(argv[0])
	if err != nil {
		return nil, fmt.Errorf("sandbox command: %w", err)
	}
	if p, err = filepath.Abs(p); err != nil {
		return nil, fmt.Errorf("sandbox command: %w", err)
	}
	return append([]string{p}, argv[1:]...), nil
}

// startTimeout bounds how long the child may take to confine itself.
const startTimeout = 30 * time.Second

// Cmd is a command prepared by Sandbox.Command. Set Stdout, Stderr and
// SysProcAttr on Cmd, then call Start or Run (never Cmd.Start, which would
// not wait for the child to confirm it is confined), then Cmd.Wait.
//
// A confined command starts in a new session, without a controlling
// terminal: Start sets that on SysProcAttr (in place of Setpgid, which it
// implies: the command leads its own process group), and the namespaces
// of its own world (see prepare).
type Cmd struct {
	Cmd             *exec.Cmd
	status, statusW *os.File // the child's report; nil when unconfined
	started         func()   // called once the child is confined
	namespaces      bool     // the command gets its own namespaces
	noNetwork       bool     // a net namespace too
}

// Run starts the command and waits for it.
func (c *Cmd) Run() error {
	if err := c.Start(); err != nil {
		return err
	}
	return c.Cmd.Wait()
}

// Start starts the command. A confined command returns only once the child
// has confined itself and is about to execute the program; when it cannot
// (or the program lacks the Main entry point), the child is killed and
// the error says why.
func (c *Cmd) Start() error {
	if c.status == nil {
		return c.Cmd.Start()
	}
	c.prepare()
	err := c.Cmd.Start()
	c.statusW.Close()
	if err != nil {
		c.status.Close()
		return fmt.Errorf("start confined command: %w", startHint(err, c.namespaces))
	}
	_ = c.status.SetReadDeadline(time.Now().Add(startTimeout))
	msg, rerr := io.ReadAll(io.LimitReader(c.status, 64<<10))
	c.status.Close()
	if string(msg) == readyToken {
		c.started()
		return nil
	}
	c.kill()
	_ = c.Cmd.Wait()
	switch {
	case len(msg) > len(readyToken) && string(msg[:len(readyToken)]) == readyToken:
		return fmt.Errorf("start confined command: %s", msg[len(readyToken):])
	case len(msg) > 0:
		return fmt.Errorf("confine command: %s", msg)
	case rerr != nil:
		return fmt.Errorf("confine command: no answer from the sandbox entry point: %w", rerr)
	}
	return errors.New("confine command: the sandbox entry point did not run: the program must call sandbox.Main first thing in main (and in TestMain)")
}
