package sandbox_test

// C18's network-off, terminal and process clauses, one variant at a time:
// every socket family and system call a confined command must not reach,
// each probed by this test binary run as the confined command (clauseProbe),
// with the control that the same call works where the clause does not
// apply (the network on, or no confinement), so that each refusal is the
// sandbox's, not the machine's. The assertions say that an operation
// fails, never with which errno: the child's namespaces may answer before
// the filter does.

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/creack/pty"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/helios-agents/helios/sandbox"
)

// clauseProbeEnv makes this test binary, run with no argument (as the
// confined command; go test always passes some), a prober: the variable
// holds probes separated by ";", each words naming one (see clauseProbe).
const clauseProbeEnv = "SANDBOX_CLAUSE_PROBE"

// init runs the probe before TestMain: the probe is a file of its own, so
// that main_test.go, which others extend, stays as it is.
func init() {
	if spec := os.Getenv(clauseProbeEnv); spec != "" && len(os.Args) == 1 {
		for _, p := range strings.Split(spec, ";") {
			clauseProbe(strings.Fields(p))
		}
		os.Exit(0)
	}
}

// clauseSecret is what the memory probes try to read of the test process.
var clauseSecret = []byte("sk-clause-memory-secret")

// clauseProbe runs one operation and prints "ok" or "refused: <error>".
func clauseProbe(args []string) {
	num := func(i int) int {
		n, _ := strconv.ParseInt(args[i], 0, 64)
		return int(n)
	}
	var err error
	switch args[0] {
	case "socket": // socket(family, type, 0)
		var fd int
		if fd, err = unix.Socket(num(1), num(2), 0); err == nil {
			unix.Close(fd)
		}
	case "x32socket": // socket(2) through the x32 ABI's number
		fd, _, errno := unix.RawSyscall(unix.SYS_SOCKET|0x40000000, unix.AF_INET, unix.SOCK_STREAM, 0)
		if errno != 0 {
			err = errno
		} else {
			unix.Close(int(fd))
		}
	case "socketpair": // socketpair(AF_UNIX, type with its flags, 0)
		var fds [2]int
		if fds, err = unix.Socketpair(unix.AF_UNIX, num(1), 0); err == nil {
			unix.Close(fds[0])
			unix.Close(fds[1])
		}
	case "sendto": // a Unix datagram sent to a path, without connect
		var fd int
		if fd, err = unix.Socket(unix.AF_UNIX, unix.SOCK_DGRAM, 0); err == nil {
			err = unix.Sendto(fd, []byte("leak"), 0, &unix.SockaddrUnix{Name: args[1]})
			unix.Close(fd)
		}
	case "io_uring": // io_uring_setup(1, params)
		var params [120]byte
		fd, _, errno := unix.Syscall(unix.SYS_IO_URING_SETUP, 1, uintptr(unsafe.Pointer(&params[0])), 0)
		if errno != 0 {
			err = errno
		} else {
			unix.Close(int(fd))
		}
	case "vmread": // process_vm_readv(pid, addr, n)
		buf := make([]byte, num(3))
		_, err = unix.ProcessVMReadv(num(1), []unix.Iovec{{Base: &buf[0], Len: uint64(len(buf))}},
			[]unix.RemoteIovec{{Base: uintptr(num(2)), Len: len(buf)}}, 0)
	case "ptrace": // PTRACE_SEIZE (the tracee does not stop), then detach
		pid := num(1)
		if err = unix.PtraceSeize(pid); err == nil {
			_ = unix.PtraceDetach(pid)
		}
	case "tiocsti": // open a terminal (it becomes the session's) and type into it
		var fd int
		if fd, err = unix.Open(args[1], unix.O_RDONLY, 0); err == nil { // read-only: Landlock refuses it for writing
			b := byte('X')
			if _, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.TIOCSTI, uintptr(unsafe.Pointer(&b))); errno != 0 {
				err = errno
			}
			unix.Close(fd)
		}
	default:
		err = fmt.Errorf("unknown probe %q", args[0])
	}
	if err != nil {
		fmt.Println("refused:", err)
	} else {
		fmt.Println("ok")
	}
}

// probeIn runs the probe args as the command of a sandbox of cfg and
// returns its line.
func probeIn(t *testing.T, cfg sandbox.Config, args ...string) string {
	t.Helper()
	return probesIn(t, cfg, [][]string{args})[0]
}

// probesIn runs several probes in one command (each confined command
// costs a re-executed child) and returns their lines, in order.
func probesIn(t *testing.T, cfg sandbox.Config, probes [][]string) []string {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	var spec []string
	for _, p := range probes {
		spec = append(spec, strings.Join(p, " "))
	}
	cfg.Env = append(cfg.Env, clauseProbeEnv+"="+strings.Join(spec, ";"))
	s, err := sandbox.New(cfg)
	require.NoError(t, err)
	defer s.Close()
	cmd, _, err := s.Command("s", t.TempDir(), exe)
	require.NoError(t, err)
	var out bytes.Buffer
	cmd.Cmd.Stdout, cmd.Cmd.Stderr = &out, &out
	require.NoError(t, cmd.Run(), out.String())
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, len(probes), out.String())
	return lines
}

var (
	networkOff = sandbox.Config{}
	networkOn  = sandbox.Config{Network: true}
	unconfined = sandbox.Config{Mode: sandbox.Off}
)

// Protects (C18): with the network off no socket of any family but
// netlink and the Unix socket pairs can be made: IPv4 and IPv6 of every
// type, packet, vsock, AF_ALG, Bluetooth, CAN, RDS, TIPC, XDP and the rest.
// With the network on the same calls succeed where the machine has the
// family (the refusal is the sandbox's); the IP families always have.
func TestClauseC18NoSocketFamilyWithNetworkOff(t *testing.T) {
	families := []struct {
		name     string
		fam, typ int
	}{
		{"inet stream", unix.AF_INET, unix.SOCK_STREAM},
		{"inet dgram", unix.AF_INET, unix.SOCK_DGRAM},
		{"inet raw", unix.AF_INET, unix.SOCK_RAW},
		{"inet6 stream", unix.AF_INET6, unix.SOCK_STREAM},
		{"inet6 dgram", unix.AF_INET6, unix.SOCK_DGRAM},
		{"inet6 stream cloexec", unix.AF_INET6, unix.SOCK_STREAM | unix.SOCK_CLOEXEC | unix.SOCK_NONBLOCK},
		{"packet raw", unix.AF_PACKET, unix.SOCK_RAW},
		{"packet dgram", unix.AF_PACKET, unix.SOCK_DGRAM},
		{"vsock stream", unix.AF_VSOCK, unix.SOCK_STREAM},
		{"alg seqpacket", unix.AF_ALG, unix.SOCK_SEQPACKET},
		{"bluetooth seqpacket", unix.AF_BLUETOOTH, unix.SOCK_SEQPACKET},
		{"can raw", unix.AF_CAN, unix.SOCK_RAW},
		{"rds seqpacket", unix.AF_RDS, unix.SOCK_SEQPACKET},
		{"tipc rdm", unix.AF_TIPC, unix.SOCK_RDM},
		{"xdp raw", unix.AF_XDP, unix.SOCK_RAW},
		{"kcm dgram", unix.AF_KCM, unix.SOCK_DGRAM},
		{"smc stream", unix.AF_SMC, unix.SOCK_STREAM},
		{"qipcrtr dgram", unix.AF_QIPCRTR, unix.SOCK_DGRAM},
		{"mctp dgram", unix.AF_MCTP, unix.SOCK_DGRAM},
		{"key raw", unix.AF_KEY, unix.SOCK_RAW},
		{"x25 seqpacket", unix.AF_X25, unix.SOCK_SEQPACKET},
		{"appletalk dgram", unix.AF_APPLETALK, unix.SOCK_DGRAM},
	}
	var probes [][]string
	for _, f := range families {
		probes = append(probes, []string{"socket", strconv.Itoa(f.fam), strconv.Itoa(f.typ)})
	}
	off, on := probesIn(t, networkOff, probes), probesIn(t, networkOn, probes)
	var reachable []string
	for i, f := range families {
		assert.True(t, strings.HasPrefix(off[i], "refused:"), "%s socket made with the network off", f.name)
		if on[i] == "ok" {
			reachable = append(reachable, f.name)
		} else {
			t.Logf("%s: this machine refuses it even with the network on: %s", f.name, on[i])
		}
	}
	t.Logf("families a command reaches with the network on: %v", reachable)
	assert.Subset(t, reachable, []string{"inet stream", "inet dgram", "inet6 stream", "inet6 dgram"}, "the control is broken: the IP families fail with the network on")
}

// Protects (C18): no system call of a foreign ABI: socket(2) through the
// x32 number is refused whatever the network setting, where the machine
// itself (unconfined) runs it.
func TestClauseC18ForeignABISocket(t *testing.T) {
	assert.True(t, strings.HasPrefix(probeIn(t, networkOn, "x32socket"), "refused:"))
	assert.True(t, strings.HasPrefix(probeIn(t, networkOff, "x32socket"), "refused:"))
	t.Logf("unconfined: %s", probeIn(t, unconfined, "x32socket"))
}

// Protects (C18): io_uring, which opens sockets past seccomp, cannot be
// set up with the network off; with the network on it can (where the
// machine allows io_uring at all).
func TestClauseC18IoUringWithNetworkOff(t *testing.T) {
	assert.True(t, strings.HasPrefix(probeIn(t, networkOff, "io_uring"), "refused:"))
	on := probeIn(t, networkOn, "io_uring")
	if b, err := os.ReadFile("/proc/sys/kernel/io_uring_disabled"); err == nil && strings.TrimSpace(string(b)) == "0" {
		assert.Equal(t, "ok", on, "the control is broken: io_uring is enabled on this machine")
	}
}

// Protects (C18): "no Unix socket except socketpair": stream and
// seqpacket pairs work whatever flags their type carries (SOCK_CLOEXEC,
// SOCK_NONBLOCK, as every runtime passes them); a datagram pair, which can
// send to any address, only where Landlock decides path sockets.
func TestClauseC18SocketPairs(t *testing.T) {
	flags := unix.SOCK_CLOEXEC | unix.SOCK_NONBLOCK
	types := []int{unix.SOCK_STREAM, unix.SOCK_STREAM | flags, unix.SOCK_SEQPACKET | unix.SOCK_CLOEXEC, unix.SOCK_DGRAM | flags}
	var probes [][]string
	for _, typ := range types {
		probes = append(probes, []string{"socketpair", strconv.Itoa(typ)})
	}
	got := probesIn(t, networkOff, probes)
	for i, typ := range types[:3] {
		assert.Equal(t, "ok", got[i], "type %#x", typ)
	}
	if sandbox.Probe().LandlockABI < 9 {
		assert.True(t, strings.HasPrefix(got[3], "refused:"), got[3])
	}
	assert.Equal(t, "ok", probesIn(t, networkOn, probes)[3])
}

// Protects (C18): a Unix datagram sent to a path outside, without any
// connect, is refused with the network off and never arrives; with the
// network on it arrives (the listener is real).
func TestClauseC18UnixSendtoWithoutConnect(t *testing.T) {
	path := shortDir(t) + "/d.sock"
	l, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: path, Net: "unixgram"})
	require.NoError(t, err)
	defer l.Close()
	received := func() string {
		require.NoError(t, l.SetReadDeadline(time.Now().Add(50*time.Millisecond)))
		buf := make([]byte, 16)
		n, _, _ := l.ReadFrom(buf)
		return string(buf[:n])
	}
	off := probeIn(t, networkOff, "sendto", path)
	assert.True(t, strings.HasPrefix(off, "refused:"), off)
	assert.Empty(t, received(), "a datagram reached the outside socket with the network off")
	assert.Equal(t, "ok", probeIn(t, networkOn, "sendto", path))
	assert.Equal(t, "leak", received())
}

// Protects (C18): no view of other processes' memory: process_vm_readv
// of the kernel process (a secret in its memory) and PTRACE_SEIZE of a
// process outside the command's tree fail, with the network on or off;
// unconfined, as root, both work (the probes are real).
func TestClauseC18ProcessMemory(t *testing.T) {
	sibling := exec.Command("sleep", "60")
	require.NoError(t, sibling.Start())
	defer func() { _ = sibling.Process.Kill(); _ = sibling.Wait() }()
	read := []string{"vmread", strconv.Itoa(os.Getpid()), strconv.FormatUint(uint64(uintptr(unsafe.Pointer(&clauseSecret[0]))), 10), strconv.Itoa(len(clauseSecret))}
	seize := []string{"ptrace", strconv.Itoa(sibling.Process.Pid)}
	for _, cfg := range []sandbox.Config{networkOff, networkOn} {
		for i, out := range probesIn(t, cfg, [][]string{read, seize}) {
			assert.True(t, strings.HasPrefix(out, "refused:"), "probe %d (network %v): %s", i, cfg.Network, out)
		}
	}
	if os.Geteuid() == 0 {
		assert.Equal(t, []string{"ok", "ok"}, probesIn(t, unconfined, [][]string{read, seize}), "the control is broken")
	}
}

// Protects (C18): no TIOCSTI: a command that opens a terminal no session
// owns (it becomes the command's controlling terminal, where the kernel
// itself would allow typing) cannot push input into it, and nothing
// arrives; unconfined, as root, the same call types (the probe is real).
func TestClauseC18TerminalInjection(t *testing.T) {
	ptm, tty, err := pty.Open()
	require.NoError(t, err)
	defer ptm.Close()
	defer tty.Close()
	typed := func() string {
		require.NoError(t, tty.SetReadDeadline(time.Now().Add(100*time.Millisecond)))
		buf := make([]byte, 16)
		n, _ := tty.Read(buf)
		return string(buf[:n])
	}
	for _, cfg := range []sandbox.Config{networkOff, networkOn} {
		out := probeIn(t, cfg, "tiocsti", tty.Name())
		t.Logf("network %v: %s", cfg.Network, out)
		assert.True(t, strings.HasPrefix(out, "refused:"), out)
	}
	assert.Empty(t, typed(), "input reached the terminal")
	if os.Geteuid() == 0 {
		assert.Equal(t, "ok", probeIn(t, unconfined, "tiocsti", tty.Name()), "the control is broken")
	}
}

// Protects (C18): every way a path names the repository keeps it
// read-only: a "gitdir:" file at the top of the work dir with a relative
// or an absolute target (a worktree, a separate git dir) keeps the file
// and its target read-only, and a target outside every writable folder
// stays read-only too.
func TestClauseC18GitdirTargets(t *testing.T) {
	outside, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(outside, "repo/hooks"), 0o755))
	tests := []struct {
		name   string
		gitdir func(work string) string // the .git file's target
		hooks  func(work string) string // the folder its hooks are in
	}{
		{"relative", func(string) string { return "meta/repo" }, func(w string) string { return filepath.Join(w, "meta/repo/hooks") }},
		{"absolute", func(w string) string { return filepath.Join(w, "meta/repo") }, func(w string) string { return filepath.Join(w, "meta/repo/hooks") }},
		{"outside", func(string) string { return filepath.Join(outside, "repo") }, func(string) string { return filepath.Join(outside, "repo/hooks") }},
	}
	s, err := sandbox.New(sandbox.Config{})
	require.NoError(t, err)
	defer s.Close()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			work, err := filepath.EvalSymlinks(t.TempDir())
			require.NoError(t, err)
			require.NoError(t, os.MkdirAll(filepath.Join(work, "meta/repo/hooks"), 0o755))
			gitFile := "gitdir: " + tt.gitdir(work) + "\n"
			require.NoError(t, os.WriteFile(filepath.Join(work, ".git"), []byte(gitFile), 0o644))
			hook := filepath.Join(tt.hooks(work), "post-checkout")
			out, err := run(t, s, work, "echo evil > "+sbQuote(hook))
			assert.Error(t, err, out)
			assert.NoFileExists(t, hook, "a hook was written in the repository the .git file names")
			out, err = run(t, s, work, "echo 'gitdir: /tmp/evil' > .git")
			assert.Error(t, err, out)
			got, err := os.ReadFile(filepath.Join(work, ".git"))
			require.NoError(t, err)
			assert.Equal(t, gitFile, string(got))
			out, err = run(t, s, work, "echo ok > meta/file")
			assert.NoError(t, err, "the rest of the work dir stays writable: %s", out)
		})
	}
}

// Protects (C18): home's .helios (the trust store) stays read-only when
// home reaches a writable folder through a link: a home that is a
// symlink into the work dir (before .helios exists), and a ~/.helios that
// is itself a symlink into the work dir.
func TestClauseC18LinkedHome(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, work string) (home string)
	}{
		{"home is a link", func(t *testing.T, work string) string {
			require.NoError(t, os.Mkdir(filepath.Join(work, "home"), 0o755))
			link := filepath.Join(t.TempDir(), "home")
			require.NoError(t, os.Symlink(filepath.Join(work, "home"), link))
			return link
		}},
		{".helios is a link", func(t *testing.T, work string) string {
			require.NoError(t, os.MkdirAll(filepath.Join(work, "state"), 0o755))
			home := t.TempDir()
			require.NoError(t, os.Symlink(filepath.Join(work, "state"), filepath.Join(home, ".helios")))
			return home
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			work, err := filepath.EvalSymlinks(t.TempDir())
			require.NoError(t, err)
			home := tt.setup(t, work)
			t.Setenv("HOME", home)
			s, err := sandbox.New(sandbox.Config{})
			require.NoError(t, err)
			defer s.Close()
			out, err := run(t, s, work, `mkdir -p "$HOME/.helios" 2>&1; echo '{"version":1,"trusted":[]}' > "$HOME/.helios/trust.json"`)
			assert.Error(t, err, out)
			assert.NoFileExists(t, filepath.Join(home, ".helios", "trust.json"), "a command wrote the trust store")
			out, err = run(t, s, work, "echo ok > file")
			assert.NoError(t, err, "the work dir stays writable: %s", out)
		})
	}
}

// Protects (C17, C18): `helios sandbox check` (Sandbox.Report) names, for
// each protection, the mechanism that keeps it on this machine, and says
// the truth when the network is on: no socket promise, no mechanism.
func TestClauseC18ReportNamesEachMechanism(t *testing.T) {
	work, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	mechanisms := func(cfg sandbox.Config) map[string]string {
		s, err := sandbox.New(cfg)
		require.NoError(t, err)
		defer s.Close()
		rep := s.Report(work)
		require.True(t, rep.Enforceable, rep.Error)
		out := map[string]string{}
		for _, p := range rep.Protections {
			assert.NotEmpty(t, p.Promise, p.Name)
			out[p.Name] = p.Mechanism
		}
		return out
	}
	off := mechanisms(networkOff)
	for name, want := range map[string]string{
		"files":           "Landlock ABI",
		"protected paths": "read-only bind mounts",
		"network":         "seccomp filter on socket(2) and io_uring_setup(2)",
		"unix sockets":    "socket",
		"terminal":        "seccomp filter on ioctl(2)",
		"privileges":      "capset(2)",
		"processes":       "no CAP_SYS_PTRACE",
	} {
		assert.Contains(t, off[name], want, name)
	}
	if os.Geteuid() == 0 {
		assert.Contains(t, off["processes"], "the kernel process non-dumpable")
	} else {
		assert.Contains(t, off["protected paths"], "user namespace")
	}
	on := mechanisms(networkOn)
	assert.Equal(t, "seccomp filter on socket(2) for netlink", on["network"], "with the network on, only netlink sockets are filtered")
	assert.NotContains(t, on, "unix sockets")
	assert.Equal(t, off["terminal"], on["terminal"], "the terminal is closed whatever the network")
}

// Protects (C17): each session writes its own TMPDIR: a command of one
// session cannot write another session's temp dir, nor the temp root
// they share, and each session's TMPDIR is its own.
func TestClauseC17SessionTempDirs(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	s, err := sandbox.New(sandbox.Config{TempRoot: root})
	require.NoError(t, err)
	defer s.Close()
	work := t.TempDir()
	tmpOf := func(id string) string {
		cmd, _, err := s.Command(id, work, "sh", "-c", `echo mine > "$TMPDIR/own" && printf %s "$TMPDIR"`)
		require.NoError(t, err)
		var out bytes.Buffer
		cmd.Cmd.Stdout, cmd.Cmd.Stderr = &out, &out
		require.NoError(t, cmd.Run(), out.String())
		return out.String()
	}
	a, b := tmpOf("a"), tmpOf("b")
	assert.NotEqual(t, a, b)
	assert.Equal(t, s.TempDir("a"), a)
	cmd, _, err := s.Command("b", work, "sh", "-c", "echo x > "+sbQuote(a+"/from-b")+"; echo x > "+sbQuote(root+"/from-b"))
	require.NoError(t, err)
	_ = cmd.Run()
	assert.NoFileExists(t, filepath.Join(a, "from-b"), "a session wrote another's TMPDIR")
	assert.NoFileExists(t, filepath.Join(root, "from-b"), "a session wrote the temp root")
}
