package sandbox

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"text/template"
)

// ErrUnenforceable is wrapped when the configured mode cannot be enforced
// on this machine.
var ErrUnenforceable = errors.New("commands cannot run confined")

// MinLandlockABI is the oldest Landlock ABI that can enforce the file
// rules: ABI 3 is the first to refuse truncating a file outside the
// writable paths.
const MinLandlockABI = 3

// Policy is what a confined command may do.
type Policy struct {
	Mode    Mode
	Network bool
	WorkDir string
	// TempDir is the session's temp dir, exported as TMPDIR.
	TempDir string
	// Writable are the configured extra writable paths (WorkspaceWrite).
	Writable []string
	// UnixSockets are the Unix sockets a command may connect to with the
	// network off.
	UnixSockets []string
}

// WritablePaths returns every path the command may write under.
func (p Policy) WritablePaths() []string {
	switch p.Mode.resolve() {
	case WorkspaceWrite:
		return append([]string{p.WorkDir, p.TempDir}, p.Writable...)
	case ReadOnly:
		return []string{p.TempDir}
	}
	return nil
}

// protectRoots are the writable folders whose protected paths stay
// read-only: every writable path but the session's own temp dir.
func (p Policy) protectRoots() []string {
	var roots []string
	for _, w := range p.WritablePaths() {
		if w == p.TempDir {
			continue
		}
		if fi, err := os.Stat(w); err == nil && !fi.IsDir() {
			continue
		}
		roots = append(roots, w)
	}
	return roots
}

// Support is what the machine offers for confinement.
type Support struct {
	// LandlockABI is the Landlock ABI version; 0 when Landlock is missing.
	LandlockABI int `json:"landlockABI"`
	// LandlockError says why Landlock is missing.
	LandlockError string `json:"landlockError,omitempty"`
	// Seccomp says whether seccomp filters can be installed.
	Seccomp      bool   `json:"seccomp"`
	SeccompError string `json:"seccompError,omitempty"`
	// UserNSError says why this machine refuses user namespaces to Helios's
	// user ("" when it offers them): every confined command gets its own
	// user, mount, PID and IPC namespaces.
	UserNSError string `json:"userNamespaceError,omitempty"`
	// Simulated is the HELIOS_SANDBOX_SIMULATE value that lowered this
	// report, if any.
	Simulated string `json:"simulated,omitempty"`
}

// Landlock ABIs that bring what the plan uses.
const (
	abiScopes     = 6 // signals and abstract Unix sockets scoped to the sandbox
	abiResolveUnx = 9 // connecting to path Unix sockets is an access right
)

// unixRule is what Unix sockets may do with the network off.
type unixRule int

const (
	// unixFree: the network is on, nothing is refused.
	unixFree unixRule = iota
	// unixNone: seccomp refuses creating any Unix socket and datagram
	// socket pairs (which could send to any address); stream and
	// seqpacket socket pairs stay, for in-process IPC.
	unixNone
	// unixLandlock: Landlock refuses path sockets but those allowed and
	// abstract sockets made outside the sandbox (ABI 9+).
	unixLandlock
)

// plan is exactly what the child enforces; the parent decides it, so that
// the policy is decided once, where the probe ran.
type plan struct {
	// ABI is the Landlock ABI whose file rights are handled.
	ABI           int      `json:"abi"`
	WritableDirs  []string `json:"writableDirs"`
	WritableFiles []string `json:"writableFiles"`
	// Protect are the bind mounts that keep the protected paths read-only,
	// applied in order in a private mount namespace (a user namespace too
	// when not root) before Landlock.
	Protect []protectMount `json:"protect,omitempty"`
	// NoNetwork: seccomp refuses every socket but Unix (see Unix) and
	// netlink ones, and io_uring.
	NoNetwork bool     `json:"noNetwork"`
	Unix      unixRule `json:"unix"`
	// UnixSockets may be connected to (unixLandlock).
	UnixSockets []string `json:"unixSockets,omitempty"`
	// ScopeSignals refuses signals to processes outside the sandbox;
	// ScopeAbstract connections to abstract Unix sockets made outside it.
	ScopeSignals  bool `json:"scopeSignals"`
	ScopeAbstract bool `json:"scopeAbstract"`
	// Filter is the seccomp program the parent compiled for NoNetwork and
	// Unix (struct sock_filter entries, native byte order).
	Filter []byte   `json:"filter"`
	Argv   []string `json:"argv"`
}

// devices are written by everyday commands (2>/dev/null) in every mode.
var devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"}

const offKey = `set tools.sandbox.mode to "off" to run commands unconfined`

// makePlan decides how to enforce p with what s offers, or says why it
// cannot: every protection must have a mechanism on this machine, or the
// command does not run. create lets it make the empty folders the
// protected mounts need (see protectedMounts); a report plans without.
func makePlan(p Policy, s Support, create bool) (plan, error) {
	if s.LandlockABI < MinLandlockABI {
		why := "Landlock is not available"
		if s.LandlockABI > 0 {
			why = fmt.Sprintf("Landlock ABI %d is too old (ABI %d or later is needed to refuse truncating files)", s.LandlockABI, MinLandlockABI)
		} else if s.LandlockError != "" {
			why += " (" + s.LandlockError + ")"
		}
		return plan{}, fmt.Errorf("%w in mode %q: %s; %s", ErrUnenforceable, p.Mode, why, offKey)
	}
	if !s.Seccomp {
		why := "seccomp is not available"
		if s.SeccompError != "" {
			why += " (" + s.SeccompError + ")"
		}
		return plan{}, fmt.Errorf("%w in mode %q: %s, so the terminal injection ioctls and, with the network off, sockets cannot be refused; %s",
			ErrUnenforceable, p.Mode, why, offKey)
	}
	if s.UserNSError != "" {
		return plan{}, fmt.Errorf("%w in mode %q: a confined command needs a user namespace, which this machine refuses (%s), "+
			"so it cannot get its own mount, PID and IPC namespaces (read-only root, /proc, /dev, processes killed with the call); %s",
			ErrUnenforceable, p.Mode, s.UserNSError, offKey)
	}
	pl := plan{ABI: s.LandlockABI, ScopeSignals: s.LandlockABI >= abiScopes}
	for _, w := range p.WritablePaths() {
		if fi, err := os.Stat(w); err == nil && !fi.IsDir() {
			pl.WritableFiles = append(pl.WritableFiles, w)
		} else {
			pl.WritableDirs = append(pl.WritableDirs, w)
		}
	}
	if p.Mode.resolve() == WorkspaceWrite {
		prot, err := protectedMounts(p.protectRoots(), homeDir(), create)
		if err != nil {
			return plan{}, fmt.Errorf("%w in mode %q: %w; %s", ErrUnenforceable, p.Mode, err, offKey)
		}
		pl.Protect = prot
	}
	if !p.Network {
		pl.NoNetwork = true
		switch {
		case s.LandlockABI >= abiResolveUnx:
			pl.Unix, pl.UnixSockets, pl.ScopeAbstract = unixLandlock, p.UnixSockets, true
		case len(p.UnixSockets) > 0:
			return plan{}, fmt.Errorf("%w: tools.sandbox.unixSockets needs Landlock ABI %d (to refuse every other path socket); this machine has ABI %d. "+
				"Remove tools.sandbox.unixSockets (commands then open no Unix socket), or set tools.sandbox.network to true (every socket allowed)",
				ErrUnenforceable, abiResolveUnx, s.LandlockABI)
		default:
			pl.Unix = unixNone
		}
	}
	return pl, nil
}

func (p plan) encode() (string, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return "", fmt.Errorf("sandbox plan: %w", err)
	}
	return string(b), nil
}

// mechanisms says which mechanism enforces what, in words (for the note).
func (p plan) mechanisms() string {
	parts := []string{fmt.Sprintf("Landlock ABI %d for files", p.ABI)}
	if len(p.Protect) > 0 {
		parts = append(parts, "read-only mounts for the protected paths")
	}
	if p.NoNetwork {
		parts = append(parts, "seccomp for sockets")
	}
	return strings.Join(parts, ", ")
}

//go:embed confined.md.tmpl
var confinedText string

var confinedTmpl = sync.OnceValue(func() *template.Template { return template.Must(template.New("confined").Parse(confinedText)) })

//go:embed describe.md.tmpl
var describeText string

var describeTmpl = sync.OnceValue(func() *template.Template { return template.Must(template.New("describe").Parse(describeText)) })

// describe is the sentence for the Bash tool's description ("" in mode
// off): what a command may do, before the model runs one.
func describe(mode Mode, network bool, writable, sockets []string) string {
	if mode.resolve() == Off {
		return ""
	}
	var b bytes.Buffer
	_ = describeTmpl().Execute(&b, map[string]any{
		"Mode":        mode.String(),
		"ReadOnly":    mode.resolve() == ReadOnly,
		"Writable":    writable,
		"Network":     network,
		"UnixSockets": sockets,
	})
	return strings.TrimSpace(b.String())
}

// confinedNote is the line the model reads with the session's first
// confined command.
func confinedNote(p Policy, pl plan) string {
	var b bytes.Buffer
	_ = confinedTmpl().Execute(&b, map[string]any{
		"Mode":        p.Mode.String(),
		"Network":     p.Network,
		"Writable":    strings.Join(p.WritablePaths(), ", "),
		"How":         pl.mechanisms(),
		"Tmp":         p.TempDir,
		"Protected":   len(pl.Protect) > 0,
		"UnixSockets": strings.Join(p.UnixSockets, ", "),
	})
	return strings.TrimSpace(b.String())
}
