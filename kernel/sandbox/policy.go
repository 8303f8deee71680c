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

// Support is what the machine offers for confinement.
type Support struct {
	// LandlockABI is the Landlock ABI version; 0 when Landlock is missing.
	LandlockABI int `json:"landlockABI"`
	// LandlockError says why Landlock is missing.
	LandlockError string `json:"landlockError,omitempty"`
	// Seccomp says whether seccomp filters can be installed.
	Seccomp      bool   `json:"seccomp"`
	SeccompError string `json:"seccompError,omitempty"`
	// Simulated is the HELIOS_SANDBOX_SIMULATE value that lowered this
	// report, if any.
	Simulated string `json:"simulated,omitempty"`
}

// plan is exactly what the child enforces; the parent decides it, so that
// the policy is decided once, where the probe ran.
type plan struct {
	// ABI is the Landlock ABI whose file rights are handled.
	ABI           int      `json:"abi"`
	WritableDirs  []string `json:"writableDirs"`
	WritableFiles []string `json:"writableFiles"`
	// LandlockTCP: Landlock refuses TCP connect and bind (network off,
	// ABI 4+). LandlockUDP: the same for UDP (ABI 10+).
	LandlockTCP bool `json:"landlockTCP"`
	LandlockUDP bool `json:"landlockUDP"`
	// Seccomp installs the socket filter: only Unix, netlink and (when
	// LandlockTCP) TCP sockets may be created; io_uring is refused.
	Seccomp bool `json:"seccomp"`
	// ScopeSignals refuses signals to processes outside the sandbox (ABI 6+).
	ScopeSignals bool     `json:"scopeSignals"`
	Argv         []string `json:"argv"`
}

// devices are written by everyday commands (2>/dev/null) in every mode.
var devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"}

// makePlan decides how to enforce p with what s offers, or says why it
// cannot. A right the machine lacks is downgraded only when another
// mechanism keeps the mode's promise (no Landlock TCP rules: seccomp then
// refuses every IP socket).
func makePlan(p Policy, s Support) (plan, error) {
	key := `set tools.sandbox.mode to "off" to run commands unconfined`
	if s.LandlockABI < MinLandlockABI {
		why := "Landlock is not available"
		if s.LandlockABI > 0 {
			why = fmt.Sprintf("Landlock ABI %d is too old (ABI %d or later is needed to refuse truncating files)", s.LandlockABI, MinLandlockABI)
		} else if s.LandlockError != "" {
			why += " (" + s.LandlockError + ")"
		}
		return plan{}, fmt.Errorf("%w in mode %q: %s; %s", ErrUnenforceable, p.Mode, why, key)
	}
	pl := plan{ABI: s.LandlockABI, ScopeSignals: s.LandlockABI >= 6}
	for _, w := range p.WritablePaths() {
		if fi, err := os.Stat(w); err == nil && !fi.IsDir() {
			pl.WritableFiles = append(pl.WritableFiles, w)
		} else {
			pl.WritableDirs = append(pl.WritableDirs, w)
		}
	}
	if !p.Network {
		if !s.Seccomp {
			why := "seccomp is not available"
			if s.SeccompError != "" {
				why += " (" + s.SeccompError + ")"
			}
			return plan{}, fmt.Errorf("%w in mode %q with the network off: %s, so UDP and other sockets cannot be refused; set tools.sandbox.network to true, or %s",
				ErrUnenforceable, p.Mode, why, key)
		}
		pl.Seccomp = true
		pl.LandlockTCP = s.LandlockABI >= 4
		pl.LandlockUDP = s.LandlockABI >= 10
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

// mechanisms says which mechanism enforces what, in words (for the note
// and sandbox check).
func (p plan) mechanisms() string {
	parts := []string{fmt.Sprintf("Landlock ABI %d for files", p.ABI)}
	switch {
	case p.LandlockTCP && p.LandlockUDP:
		parts[0] += ", TCP and UDP"
	case p.LandlockTCP:
		parts[0] += " and TCP"
	}
	if p.Seccomp {
		if p.LandlockTCP {
			parts = append(parts, "seccomp for the other socket families")
		} else {
			parts = append(parts, "seccomp for every IP socket")
		}
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
func describe(mode Mode, network bool, writable []string) string {
	if mode.resolve() == Off {
		return ""
	}
	var b bytes.Buffer
	_ = describeTmpl().Execute(&b, map[string]any{
		"Mode":     mode.String(),
		"ReadOnly": mode.resolve() == ReadOnly,
		"Writable": writable,
		"Network":  network,
	})
	return strings.TrimSpace(b.String())
}

// confinedNote is the line the model reads with the session's first
// confined command.
func confinedNote(p Policy, pl plan) string {
	var b bytes.Buffer
	_ = confinedTmpl().Execute(&b, map[string]any{
		"Mode":     p.Mode.String(),
		"Network":  p.Network,
		"Writable": strings.Join(p.WritablePaths(), ", "),
		"How":      pl.mechanisms(),
		"Tmp":      p.TempDir,
	})
	return strings.TrimSpace(b.String())
}
