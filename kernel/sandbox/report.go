package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Report is what `helios sandbox check` prints: what the machine supports
// and the effective policy of the config.
type Report struct {
	Support Support `json:"support"`
	// Mode and Network are the effective policy; in mode "off" nothing is
	// confined and Network is meaningless.
	Mode    string `json:"mode"`
	Network bool   `json:"network"`
	WorkDir string `json:"workDir"`
	// Writable are the paths commands may write; "$TMPDIR" stands for the
	// session's temp dir, made under TempRoot.
	Writable []string `json:"writable"`
	TempRoot string   `json:"tempRoot"`
	// Warnings point out a policy that confines less than it seems: a
	// work dir that holds the home directory or is the root.
	Warnings []string `json:"warnings,omitempty"`
	// Enforcement says which mechanism enforces what ("" in mode off).
	Enforcement string `json:"enforcement"`
	// Enforceable is false when the mode cannot be enforced or a confined
	// test command failed; Error says why and which key to set.
	Enforceable bool   `json:"enforceable"`
	Error       string `json:"error,omitempty"`
}

// Report describes s for commands run in workDir, after running a confined
// command that does nothing there to prove it works (see Verify). In mode
// off the machine is probed anyway, to show what it could do.
func (s *Sandbox) Report(workDir string) Report {
	support := s.support
	if s.mode == Off {
		support = Probe()
	}
	root := s.cfg.TempRoot
	if root == "" {
		root = os.TempDir()
	}
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	r := Report{Support: support, Mode: s.mode.String(), Network: s.cfg.Network, WorkDir: workDir, TempRoot: root, Enforceable: true}
	if s.mode == Off {
		return r
	}
	pol := s.Policy(workDir, "$TMPDIR")
	r.Writable = pol.WritablePaths()
	r.Warnings = widePaths(r.Writable)
	pl, err := makePlan(pol, support)
	if err != nil {
		r.Enforceable, r.Error = false, err.Error()
		return r
	}
	r.Enforcement = pl.mechanisms()
	if err := s.Verify(workDir); err != nil {
		r.Enforceable, r.Error = false, err.Error()
	}
	return r
}

// widePaths warns about writable paths that hold the home directory (or
// are the root): commands may then rewrite the user's shell profile.
func widePaths(paths []string) []string {
	home, _ := os.UserHomeDir()
	if real, err := filepath.EvalSymlinks(home); err == nil {
		home = real
	}
	var out []string
	for _, p := range paths {
		rel, err := filepath.Rel(p, home)
		if p == "/" || (home != "" && err == nil && rel != ".." && !strings.HasPrefix(rel, "../")) {
			out = append(out, fmt.Sprintf("%s is writable and holds the home directory %s: commands can change files there (~/.bashrc, ~/.ssh)", p, home))
		}
	}
	return out
}
