package unit_test

// `helios sandbox check` (DESIGN.md C17): the CLI's report of the machine
// and the policy. The confined commands themselves are tested beside the
// sandbox (sandbox/assembled_test.go, confinement_test.go).

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/sandbox"
)

// sbReal resolves symlinks, as the kernel does for the work dir.
func sbReal(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	require.NoError(t, err)
	return r
}

// sbQuote quotes s for sh.
func sbQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// Protects: `helios sandbox check` reports the machine, the policy and
// each protection with the mechanism that enforces it here (and, as root,
// what commands lose), and exits 1 when the configured mode cannot be
// enforced.
func TestSandboxCheckCLI(t *testing.T) {
	work, home := sbReal(t, t.TempDir()), t.TempDir()
	extra := sbReal(t, t.TempDir())
	cfg := filepath.Join(t.TempDir(), "helios.config.json")
	writeFile(t, cfg, `{"tools": {"sandbox": {"writable": ["`+extra+`"]}}}`)

	r := helios(t, home, work, "--config", cfg, "sandbox", "check", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var rep sandbox.Report
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep), r.stdout)
	assert.Positive(t, rep.Support.LandlockABI)
	assert.True(t, rep.Support.Seccomp)
	assert.True(t, rep.Enforceable, rep.Error)
	assert.Equal(t, "workspace-write", rep.Mode)
	assert.False(t, rep.Network)
	assert.Equal(t, []string{work, "$TMPDIR", extra}, rep.Writable)
	assert.Contains(t, rep.Enforcement, "Landlock ABI")
	assert.Contains(t, rep.Protected, filepath.Join(work, ".git"))
	assert.Contains(t, rep.Protected, filepath.Join(extra, ".git"))
	var names []string
	for _, p := range rep.Protections {
		names = append(names, p.Name)
		assert.NotEmpty(t, p.Mechanism, p.Name)
	}
	assert.Equal(t, []string{"files", "protected paths", "network", "unix sockets", "terminal", "privileges",
		"namespaces", "read-only root", "/proc", "/dev", "descriptors", "lifetime", "setuid bits", "processes"}, names)
	assert.Equal(t, os.Geteuid() == 0, rep.RunsAsRoot)
	if rep.RunsAsRoot {
		assert.Contains(t, rep.Dropped, "every capability of root")
	}

	r = helios(t, home, work, "--config", cfg, "sandbox", "check")
	assert.Equal(t, 0, r.code, r.stderr)
	for _, want := range []string{"policy    workspace-write, network off", "not confined: plugins",
		"protected paths", "read-only bind mounts", "no IP socket at all", "seccomp filter on socket(2)", "TIOCSTI", "PR_CAPBSET_DROP", "/proc/<pid>/environ",
		"userns    available", "user, mount, PID, IPC and net namespaces", "MOUNT_ATTR_RDONLY", "close_range(2)", "PR_SET_PDEATHSIG", "no terminal (/dev/pts"} {
		assert.Contains(t, r.stdout, want)
	}
	if os.Geteuid() == 0 {
		assert.Contains(t, r.stdout, "root      Helios runs as root")
	}

	t.Setenv(sandbox.SimulateEnv, "landlock=0")
	r = helios(t, home, work, "--config", cfg, "sandbox", "check")
	assert.Equal(t, 1, r.code, r.stdout)
	assert.Contains(t, r.stdout, "FAIL")
	assert.Contains(t, r.stdout, `tools.sandbox.mode to "off"`)

	// Without user namespaces (issue 37): exit 1, naming what is missing.
	t.Setenv(sandbox.SimulateEnv, "userns=off")
	r = helios(t, home, work, "--config", cfg, "sandbox", "check")
	assert.Equal(t, 1, r.code, r.stdout)
	assert.Contains(t, r.stdout, "userns    not available: simulated")
	assert.Contains(t, r.stdout, "FAIL      commands cannot run confined in mode \"workspace-write\": a confined command needs a user namespace")

	writeFile(t, cfg, `{"tools": {"sandbox": {"mode": "off"}}}`)
	r = helios(t, home, work, "--config", cfg, "sandbox", "check")
	assert.Equal(t, 0, r.code, r.stdout)
	assert.Contains(t, r.stdout, "unconfined")
}
