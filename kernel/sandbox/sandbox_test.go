package sandbox_test

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/kernel/sandbox"
)

// run runs a shell command through s for session "s1" in dir.
func run(t *testing.T, s *sandbox.Sandbox, dir, command string) (string, error) {
	t.Helper()
	cmd, _, err := s.Command("s1", dir, "sh", "-c", command)
	if err != nil {
		return "", err
	}
	var out bytes.Buffer
	cmd.Cmd.Stdout, cmd.Cmd.Stderr = &out, &out
	err = cmd.Run()
	return out.String(), err
}

func TestConfinedWrites(t *testing.T) {
	s, err := sandbox.New(sandbox.Config{})
	require.NoError(t, err)
	defer s.Close()
	work, outside := t.TempDir(), t.TempDir()
	out, err := run(t, s, work, "echo in > inside.txt && echo $TMPDIR && echo t > $TMPDIR/t && echo x > "+outside+"/x")
	assert.Error(t, err, out)
	assert.Contains(t, out, "Permission denied")
	assert.FileExists(t, filepath.Join(work, "inside.txt"))
	assert.NoFileExists(t, filepath.Join(outside, "x"))
	tmp := s.TempDir("s1")
	assert.True(t, strings.HasPrefix(out, tmp), out)
	_, err = os.Stat(filepath.Join(tmp, "t"))
	assert.NoError(t, err)
}

// Protects: with the network off, Unix sockets (path and abstract) stay
// usable, while TCP, UDP and MPTCP (which Landlock's TCP rules miss) are
// refused; the refusal is the OS's "permission denied".
func TestConfinedSockets(t *testing.T) {
	dir := t.TempDir()
	unixPath := dir + "/s.sock"
	ul, err := net.Listen("unix", unixPath)
	require.NoError(t, err)
	defer ul.Close()
	al, err := net.Listen("unix", "@helios-sandbox-test-"+filepath.Base(dir))
	require.NoError(t, err)
	defer al.Close()
	tl, err := net.Listen("tcp4", "127.0.0.1:0")
	require.NoError(t, err)
	defer tl.Close()
	for _, l := range []net.Listener{ul, al, tl} {
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				c.Close()
			}
		}()
	}
	uc, err := net.ListenPacket("udp4", "127.0.0.1:0")
	require.NoError(t, err)
	defer uc.Close()

	tests := []struct {
		spec      string
		connected bool
	}{
		{"unix " + unixPath, true},
		{"unix " + al.Addr().String(), true},
		{"tcp " + tl.Addr().String(), false},
		{"udp " + uc.LocalAddr().String(), false},
		{"mptcp -", false},
	}
	exe, err := os.Executable()
	require.NoError(t, err)
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			s, err := sandbox.New(sandbox.Config{Env: []string{"SANDBOX_TEST_DIAL=" + tt.spec}})
			require.NoError(t, err)
			defer s.Close()
			cmd, _, err := s.Command("s", dir, exe)
			require.NoError(t, err)
			var buf bytes.Buffer
			cmd.Cmd.Stdout = &buf
			err = cmd.Run()
			out := buf.String()
			if tt.connected {
				assert.NoError(t, err)
				assert.Equal(t, "connected\n", out)
			} else {
				assert.Error(t, err)
				assert.Contains(t, out, "refused:")
				assert.Contains(t, out, "permission denied")
			}
		})
	}
}

// Protects: Config.Probe replaces the machine's report; a machine without
// Landlock makes Command fail with ErrUnenforceable in both confining
// modes, while Off still runs the command.
func TestProbeOverrideFailsClosed(t *testing.T) {
	none := func() sandbox.Support { return sandbox.Support{LandlockError: "simulated", Seccomp: true} }
	for _, mode := range []sandbox.Mode{sandbox.WorkspaceWrite, sandbox.ReadOnly} {
		s, err := sandbox.New(sandbox.Config{Mode: mode, Probe: none})
		require.NoError(t, err)
		_, _, err = s.Command("s", t.TempDir(), "sh", "-c", "true")
		assert.ErrorIs(t, err, sandbox.ErrUnenforceable, mode.String())
		assert.ErrorContains(t, err, "Landlock is not available (simulated)")
		require.NoError(t, s.Close())
	}
	s, err := sandbox.New(sandbox.Config{Mode: sandbox.Off, Probe: none})
	require.NoError(t, err)
	defer s.Close()
	out, err := run(t, s, t.TempDir(), "echo ran")
	assert.NoError(t, err)
	assert.Equal(t, "ran\n", out)
}

// Protects: New reports every bad entry, each named.
func TestNewRefusesBadConfig(t *testing.T) {
	_, err := sandbox.New(sandbox.Config{
		Writable: []string{"rel/path", "/no/such/helios/path"},
		PassEnv:  []string{"KEY", "HELIOS_X"},
		Env:      []string{"HELIOS_Y=1"},
		Deny:     []string{"KEY"},
	})
	require.Error(t, err)
	for _, want := range []string{"writable[0]", "relative", "writable[1]", "passEnv[0]: KEY holds the model's API key", "passEnv[1]", "env.HELIOS_Y"} {
		assert.ErrorContains(t, err, want)
	}
}

// Protects: a confined command cannot signal processes outside its
// sandbox (Landlock's signal scope, ABI 6+): not the kernel that started
// it; its own children it can.
func TestConfinedSignals(t *testing.T) {
	s, err := sandbox.New(sandbox.Config{})
	require.NoError(t, err)
	defer s.Close()
	if s.Support().LandlockABI < 6 {
		t.Skipf("Landlock ABI %d has no signal scope", s.Support().LandlockABI)
	}
	out, err := run(t, s, t.TempDir(), fmt.Sprintf("sleep 5 & kill $! && echo child-killed; kill -0 %d", os.Getpid()))
	assert.Error(t, err, out)
	assert.Contains(t, out, "child-killed\n")
	assert.Contains(t, out, "Operation not permitted")
}
