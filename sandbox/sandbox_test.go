package sandbox_test

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/sandbox"
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
	// Outside the writable paths the file system is read-only (and
	// Landlock refuses the write behind that).
	assert.Contains(t, out, "Read-only file system")
	assert.FileExists(t, filepath.Join(work, "inside.txt"))
	assert.NoFileExists(t, filepath.Join(outside, "x"))
	tmp := s.TempDir("s1")
	assert.True(t, strings.HasPrefix(out, tmp), out)
	_, err = os.Stat(filepath.Join(tmp, "t"))
	assert.NoError(t, err)
}

// shortDir is a temp dir with a short path: a Unix socket's path holds at
// most 107 bytes, and t.TempDir's can be longer.
func shortDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/tmp", "sb")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// sbListen starts a path and an abstract Unix listener in dir and a TCP
// listener on 127.0.0.1, each accepting and counting connections.
func sbListen(t *testing.T, dir string) (unixPath, abstract, tcp string, accepted *atomic.Int32) {
	t.Helper()
	unixPath = dir + "/s.sock"
	ul, err := net.Listen("unix", unixPath)
	require.NoError(t, err)
	al, err := net.Listen("unix", "@helios-sandbox-test-"+filepath.Base(dir)+fmt.Sprint(os.Getpid()))
	require.NoError(t, err)
	tl, err := net.Listen("tcp4", "127.0.0.1:0")
	require.NoError(t, err)
	accepted = &atomic.Int32{}
	for _, l := range []net.Listener{ul, al, tl} {
		t.Cleanup(func() { l.Close() })
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				accepted.Add(1)
				c.Close()
			}
		}()
	}
	return unixPath, al.Addr().String(), tl.Addr().String(), accepted
}

// dialConfined runs the test binary as a confined command that dials spec
// (see dial) and returns its output.
func dialConfined(t *testing.T, cfg sandbox.Config, dir, spec string) (string, error) {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	cfg.Env = append(cfg.Env, dialEnv+"="+spec)
	s, err := sandbox.New(cfg)
	require.NoError(t, err)
	defer s.Close()
	cmd, _, err := s.Command("s", dir, exe)
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	cmd.Cmd.Stdout = &buf
	err = cmd.Run()
	return buf.String(), err
}

// Protects: with the network off no socket leaves the process: no IP
// socket at all (TCP, UDP, MPTCP, and TCP Fast Open's sendto, which needs
// no connect), no Unix socket to a path or an abstract name; a stream
// socket pair (in-process IPC) still works, and a datagram pair (which
// could send to any address) only where Landlock decides Unix sockets.
// Nothing reaches the listeners. The refusal is the OS's.
func TestConfinedSockets(t *testing.T) {
	dir := shortDir(t)
	unixPath, abstract, tcp, accepted := sbListen(t, dir)
	uc, err := net.ListenPacket("udp4", "127.0.0.1:0")
	require.NoError(t, err)
	defer uc.Close()
	abi := sandbox.Probe().LandlockABI

	tests := []struct {
		spec      string
		connected bool
	}{
		{"unix " + unixPath, false},
		{"unix " + abstract, false},
		{"tcp " + tcp, false},
		{"tfo " + tcp, false},
		{"udp " + uc.LocalAddr().String(), false},
		{"mptcp -", false},
		{"socketpair stream", true},
		{"socketpair dgram", abi >= 9},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			out, err := dialConfined(t, sandbox.Config{}, dir, tt.spec)
			if tt.connected {
				assert.NoError(t, err)
				assert.Equal(t, "connected\n", out)
				return
			}
			assert.Error(t, err)
			assert.Contains(t, out, "refused:")
			if !strings.HasPrefix(tt.spec, "unix") || abi < 9 {
				assert.Contains(t, out, "permission denied")
			}
		})
	}
	assert.Zero(t, accepted.Load(), "a confined command reached a listener with the network off")

	// Network on: the same probes connect (they are not broken), and the
	// listeners count them.
	for _, spec := range []string{"unix " + unixPath, "tcp " + tcp, "tfo " + tcp} {
		out, err := dialConfined(t, sandbox.Config{Network: true}, dir, spec)
		assert.NoError(t, err, spec)
		assert.Equal(t, "connected\n", out, spec)
	}
	assert.Eventually(t, func() bool { return accepted.Load() == 3 }, 10*time.Second, 10*time.Millisecond)
}

// Protects: tools.sandbox.unixSockets. Where Landlock decides path
// sockets (ABI 9+), an allowed socket connects and any other is refused;
// on an older kernel nothing could refuse the others, so the command does
// not run and the error names what is missing.
func TestConfinedUnixSocketsAllowed(t *testing.T) {
	dir := shortDir(t)
	unixPath, _, _, _ := sbListen(t, dir)
	other := shortDir(t) + "/other.sock"
	ol, err := net.Listen("unix", other)
	require.NoError(t, err)
	defer ol.Close()
	cfg := sandbox.Config{UnixSockets: []string{unixPath}}
	if abi := sandbox.Probe().LandlockABI; abi < 9 {
		_, err := dialConfined(t, cfg, dir, "unix "+unixPath)
		require.ErrorIs(t, err, sandbox.ErrUnenforceable)
		assert.ErrorContains(t, err, "tools.sandbox.unixSockets needs Landlock ABI 9")
		assert.ErrorContains(t, err, fmt.Sprintf("this machine has ABI %d", abi))
		return
	}
	out, err := dialConfined(t, cfg, dir, "unix "+unixPath)
	assert.NoError(t, err)
	assert.Equal(t, "connected\n", out)
	out, err = dialConfined(t, cfg, dir, "unix "+other)
	assert.Error(t, err)
	assert.Contains(t, out, "refused:")
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

// Protects: New reports every bad entry, each named: a writable path or
// an allowed socket that is relative, missing, no socket, or inside a
// protected path of another writable path (which it would reopen).
func TestNewRefusesBadConfig(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(root+"/.git/hooks", 0o755))
	require.NoError(t, os.WriteFile(root+"/file", nil, 0o644))
	_, err := sandbox.New(sandbox.Config{
		Writable:    []string{"rel/path", "/no/such/helios/path", root, root + "/.git/hooks"},
		UnixSockets: []string{"rel.sock", root + "/nope.sock", root + "/file"},
		PassEnv:     []string{"KEY", "HELIOS_X"},
		Env:         []string{"HELIOS_Y=1"},
		Deny:        []string{"KEY"},
	})
	require.Error(t, err)
	for _, want := range []string{"writable[0]", "relative", "writable[1]", "writable[3]: " + fmt.Sprintf("%q is in %s/.git", root+"/.git/hooks", root),
		"unixSockets[0]", "unixSockets[1]", "no such file", "unixSockets[2]", "is not a Unix socket (it is a regular file)",
		"passEnv[0]: KEY holds the model's API key", "passEnv[1]", "env.HELIOS_Y"} {
		assert.ErrorContains(t, err, want)
	}
	assert.NotContains(t, err.Error(), "writable[2]")
}

// Protects: a confined command cannot signal processes outside its
// sandbox (its own PID namespace, where they do not exist, and Landlock's
// signal scope, ABI 6+): not the kernel that started it; its own children
// it can.
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
	assert.Regexp(t, "Operation not permitted|No such process", out)
}
