package sandbox_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/helios-agents/helios/sandbox"
)

// sbWork is a work dir holding a repository, a config and Helios's and the
// agents' folders, with a skills folder in each.
func sbWork(t *testing.T) string {
	t.Helper()
	work, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	for _, d := range []string{".git/hooks", ".helios/skills", ".agents/skills", ".agents/other"} {
		require.NoError(t, os.MkdirAll(filepath.Join(work, d), 0o755))
	}
	for _, f := range []string{"helios.config.json", "helios-lock.json", ".git/config", ".helios/settings.json"} {
		require.NoError(t, os.WriteFile(filepath.Join(work, f), []byte("precious\n"), 0o644))
	}
	return work
}

// Protects: the protected paths stay read-only inside the writable work
// dir for a confined command: no write, truncation, removal, rename or new
// file in .git, helios.config.json, helios-lock.json, .helios and .agents,
// while their skills folders and the rest of the work dir stay writable.
// The mounts that do this stay in the command's namespace: the machine's
// mount table is unchanged.
func TestConfinedProtectedPaths(t *testing.T) {
	work := sbWork(t)
	if os.Geteuid() == 0 {
		// As on a systemd machine, the work dir is a shared mount: a mount
		// made under it in a namespace copied from this one would propagate
		// back here unless the child makes its mounts slaves.
		require.NoError(t, unix.Mount(work, work, "", unix.MS_BIND, ""))
		t.Cleanup(func() { _ = unix.Unmount(work, unix.MNT_DETACH) })
		require.NoError(t, unix.Mount("", work, "", unix.MS_SHARED, ""))
	}
	before := mountsOfThisTest(t, work)
	s, err := sandbox.New(sandbox.Config{})
	require.NoError(t, err)
	defer s.Close()

	refused := []string{
		"echo evil > .git/hooks/pre-commit",
		"echo evil >> .git/config",
		": > helios.config.json",
		"rm helios.config.json",
		"mv helios.config.json x.json",
		": > helios-lock.json",
		"rm helios-lock.json",
		"mv .git git-moved",
		"rm -r .git",
		"echo x > .helios/new",
		"echo x > .helios/settings.json",
		"mkdir .agents/more",
		"echo x > .agents/other/x",
		"ln -s /etc .helios/link",
	}
	for _, cmd := range refused {
		out, err := run(t, s, work, cmd)
		assert.Error(t, err, "%s: %s", cmd, out)
		// A mount point cannot be removed or renamed: "busy".
		assert.Regexp(t, "Read-only file system|Device or resource busy", out, cmd)
	}
	for _, f := range []string{"helios.config.json", "helios-lock.json", ".git/config", ".helios/settings.json"} {
		got, err := os.ReadFile(filepath.Join(work, f))
		assert.NoError(t, err, f)
		assert.Equal(t, "precious\n", string(got), f)
	}
	for _, f := range []string{".git/hooks/pre-commit", ".helios/new", ".agents/more", ".agents/other/x", "git-moved", "x.json"} {
		assert.NoFileExists(t, filepath.Join(work, f))
	}

	out, err := run(t, s, work, "mkdir -p .helios/skills/new .agents/skills/b && echo ok > .helios/skills/new/SKILL.md && echo b > .agents/skills/b/SKILL.md && echo w > work.txt && mkdir sub && echo s > sub/helios.config.json && cat .helios/skills/new/SKILL.md")
	assert.NoError(t, err, out)
	assert.Equal(t, "ok\n", out)
	assert.FileExists(t, filepath.Join(work, ".agents/skills/b/SKILL.md"))
	assert.FileExists(t, filepath.Join(work, "sub/helios.config.json"), "only the top of the work dir is protected")

	assert.Equal(t, before, mountsOfThisTest(t, work), "a mount of the command leaked into the machine's mount table")
}

// mountsOfThisTest is the machine's mount table (/proc/self/mountinfo) less
// the mounts another test process makes of its own temp dir at the same time
// (this test run twice at once: its work dir is a bind mount as root), so
// that only what this test's commands could leak is compared.
func mountsOfThisTest(t *testing.T, work string) []string {
	t.Helper()
	b, err := os.ReadFile("/proc/self/mountinfo")
	require.NoError(t, err)
	others := filepath.Join(os.TempDir(), "Test")
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Fields(line)
		if len(f) > 4 && strings.HasPrefix(f[4], others) && f[4] != work && !strings.HasPrefix(f[4], work+"/") {
			continue
		}
		out = append(out, line)
	}
	return out
}

// Protects: a work dir without a repository gets an empty .git to mount
// over, so that no command can create one (git ignores an empty .git);
// the same for a writable path. A .git that is a symlink cannot be kept:
// the command does not run.
func TestConfinedMissingGit(t *testing.T) {
	work, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	extra, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	s, err := sandbox.New(sandbox.Config{Writable: []string{extra}})
	require.NoError(t, err)
	defer s.Close()
	out, err := run(t, s, work, "git init -q . 2>&1 || mkdir -p .git/hooks 2>&1; echo x > "+extra+"/.git/config")
	assert.Error(t, err, out)
	assert.Contains(t, out, "Read-only file system")
	for _, d := range []string{work, extra} {
		entries, err := os.ReadDir(filepath.Join(d, ".git"))
		assert.NoError(t, err)
		assert.Empty(t, entries, "%s/.git", d)
	}

	link, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	require.NoError(t, os.Symlink(t.TempDir(), filepath.Join(link, ".git")))
	_, _, err = s.Command("s2", link, "sh", "-c", "true")
	assert.ErrorIs(t, err, sandbox.ErrUnenforceable)
	assert.ErrorContains(t, err, ".git is a symbolic link")
}

// Protects: a worktree's or submodule's .git is a "gitdir:" file: the file
// stays read-only, and so does the folder it names when that lies in the
// writable work dir.
func TestConfinedGitdirFile(t *testing.T) {
	work, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(work, "meta/repo/hooks"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(work, "tree"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(work, "tree/.git"), []byte("gitdir: ../meta/repo\n"), 0o644))
	s, err := sandbox.New(sandbox.Config{Writable: []string{filepath.Join(work, "tree")}})
	require.NoError(t, err)
	defer s.Close()
	for _, cmd := range []string{"echo 'gitdir: /tmp/evil' > tree/.git", "echo evil > meta/repo/hooks/post-checkout"} {
		out, err := run(t, s, work, cmd)
		assert.Error(t, err, cmd)
		assert.Contains(t, out, "Read-only file system", cmd)
	}
	got, err := os.ReadFile(filepath.Join(work, "tree/.git"))
	require.NoError(t, err)
	assert.Equal(t, "gitdir: ../meta/repo\n", string(got))
}

// Protects: the command runs without any capability, with no new
// privileges, in a session of its own without a controlling terminal. As
// root that is what stops mknod, sethostname and the rest.
func TestConfinedPrivilegesAndSession(t *testing.T) {
	s, err := sandbox.New(sandbox.Config{})
	require.NoError(t, err)
	defer s.Close()
	out, err := run(t, s, t.TempDir(), `grep -E '^(Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs):' /proc/self/status; `+
		`set -- $(cut -d' ' -f6,7 /proc/$$/stat); echo "session-leader=$([ "$1" = $$ ] && echo yes || echo no) tty=$2"; `+
		`mknod dev c 1 3 2>&1 || echo mknod-refused`)
	require.NoError(t, err, out)
	for _, set := range []string{"CapInh", "CapPrm", "CapEff", "CapAmb"} {
		assert.Contains(t, out, set+":\t0000000000000000\n")
	}
	if os.Geteuid() == 0 {
		assert.Contains(t, out, "CapBnd:\t0000000000000000\n")
	}
	assert.Contains(t, out, "NoNewPrivs:\t1\n")
	assert.Contains(t, out, "session-leader=yes tty=0\n")
	assert.Contains(t, out, "mknod-refused")
}

// Protects: TIOCSTI is refused even on a terminal the command made its
// controlling terminal (a fresh pty no session owns, given as its stdin:
// the kernel itself would allow it there), and no input reaches the
// terminal; TIOCLINUX is refused too. (No terminal can be opened by its
// name: see TestConfinedWorld.)
func TestConfinedTerminalInjection(t *testing.T) {
	ptm, tty, err := pty.Open()
	require.NoError(t, err)
	defer ptm.Close()
	defer tty.Close()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is needed to call ioctl from the confined command")
	}
	s, err := sandbox.New(sandbox.Config{})
	require.NoError(t, err)
	defer s.Close()
	prog := `
import fcntl, termios
fcntl.ioctl(0, termios.TIOCSCTTY, 0)
for name, req, args in (("TIOCSTI", termios.TIOCSTI, (b"X", b"\n")), ("TIOCLINUX", 0x541c, (b"\x03",))):
    try:
        for a in args:
            fcntl.ioctl(0, req, a)
        print(name, "allowed")
    except OSError as e:
        print(name, "refused", e.strerror)
`
	// exec: python must be the session leader, the one process that can
	// take a terminal as its controlling one.
	cmd, _, err := s.Command("s1", t.TempDir(), "sh", "-c", "exec "+py+" -c '"+strings.ReplaceAll(prog, "'", `'\''`)+"'")
	require.NoError(t, err)
	// A file of its own: os/exec makes the one it hands over blocking, and
	// tty is read below with a deadline.
	stdin, err := os.OpenFile(tty.Name(), os.O_RDWR|unix.O_NOCTTY, 0)
	require.NoError(t, err)
	defer stdin.Close()
	var out strings.Builder
	cmd.Cmd.Stdin, cmd.Cmd.Stdout, cmd.Cmd.Stderr = stdin, &out, &out
	require.NoError(t, cmd.Run(), out.String())
	assert.Contains(t, out.String(), "TIOCSTI refused Operation not permitted")
	assert.Contains(t, out.String(), "TIOCLINUX refused Operation not permitted")
	require.NoError(t, tty.SetReadDeadline(time.Now().Add(200*time.Millisecond)))
	buf := make([]byte, 16)
	n, _ := tty.Read(buf)
	assert.Zero(t, n, "input reached the terminal: %q", buf[:n])
}

// Protects: the child fails closed: when it cannot apply its plan (a
// Landlock ABI above the kernel's, a writable path removed after New
// checked it) the command never runs, and the error says why.
func TestChildFailsClosed(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	above := func() sandbox.Support {
		s := sandbox.Probe()
		s.LandlockABI += 5
		return s
	}
	gone := filepath.Join(t.TempDir(), "gone")
	require.NoError(t, os.Mkdir(gone, 0o755))
	tests := []struct {
		name string
		cfg  sandbox.Config
		want string
	}{
		{"ABI above the kernel's", sandbox.Config{Probe: above}, "landlock"},
		{"writable path removed", sandbox.Config{Writable: []string{gone}}, gone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := sandbox.New(tt.cfg)
			require.NoError(t, err)
			defer s.Close()
			if len(tt.cfg.Writable) > 0 {
				require.NoError(t, os.RemoveAll(gone)) // after New checked it
			}
			cmd, _, err := s.Command("s", t.TempDir(), "sh", "-c", "touch "+marker)
			if err == nil {
				err = cmd.Run()
			}
			require.Error(t, err)
			assert.ErrorContains(t, err, tt.want)
			assert.NoFileExists(t, marker, "the command ran")
		})
	}
}

// Protects: a confined command reads nothing of processes outside its own
// tree: not the kernel's environment (which holds the API key), memory,
// maps or open files, nor those of another process of the same user; its
// own child's it can read (the probe works).
func TestConfinedProcSecrets(t *testing.T) {
	sibling := exec.Command("sleep", "60")
	sibling.Env = []string{"SIBLING_SECRET=sibling-secret-value"}
	require.NoError(t, sibling.Start())
	defer func() { _ = sibling.Process.Kill(); _ = sibling.Wait() }()
	s, err := sandbox.New(sandbox.Config{})
	require.NoError(t, err)
	defer s.Close()
	var probes []string
	for _, pid := range []int{os.Getpid(), sibling.Process.Pid} {
		for _, f := range []string{"environ", "maps", "mem"} {
			probes = append(probes, fmt.Sprintf("head -c 64 /proc/%d/%s >/dev/null 2>&1 && echo read-%d-%s", pid, f, pid, f))
		}
		probes = append(probes, fmt.Sprintf("readlink /proc/%d/fd/0 >/dev/null 2>&1 && echo read-%d-fd", pid, pid))
		probes = append(probes, fmt.Sprintf("readlink /proc/%d/cwd >/dev/null 2>&1 && echo read-%d-cwd", pid, pid))
	}
	probes = append(probes, `sh -c 'sleep 1' & OWN=$!; head -c 64 /proc/$OWN/environ >/dev/null && echo own-child-readable; kill $OWN`)
	out, err := run(t, s, t.TempDir(), strings.Join(probes, "; "))
	assert.NoError(t, err, out)
	assert.Equal(t, "own-child-readable\n", out, "a confined command read another process's /proc files")
}

// Protects: in a confining mode, a kernel running as root makes itself
// non-dumpable, so that its /proc files (the API key in its environment)
// need CAP_SYS_PTRACE, which no command holds; an ordinary user's stays
// dumpable (its commands' user namespaces need that).
func TestNewProtectsTheKernelProcess(t *testing.T) {
	s, err := sandbox.New(sandbox.Config{})
	require.NoError(t, err)
	defer s.Close()
	got, err := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0)
	require.NoError(t, err)
	if os.Geteuid() == 0 {
		assert.Zero(t, got)
	} else {
		assert.Equal(t, 1, got)
	}
}

// Protects (issue 37): the command's world is its own: it is the init of
// its PID namespace and /proc shows only its processes; /dev holds only
// null, zero, full, random and urandom (no pts, no tty); with the network
// off it sees only a loopback interface of its own.
func TestConfinedWorld(t *testing.T) {
	s, err := sandbox.New(sandbox.Config{})
	require.NoError(t, err)
	defer s.Close()
	out, err := run(t, s, t.TempDir(), `echo "pid $$"; ls /proc | grep -c '^[0-9]'; ls /dev | tr '\n' ' '; echo; tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '`)
	require.NoError(t, err, out)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 4, out)
	assert.Equal(t, "pid 1", lines[0])
	n, err := strconv.Atoi(lines[1])
	require.NoError(t, err, out)
	assert.LessOrEqual(t, n, 4, "/proc shows processes outside the command:\n%s", out)
	assert.Equal(t, "fd full null random stderr stdin stdout urandom zero", strings.TrimSpace(lines[2]))
	assert.Equal(t, "lo", lines[3])
}

// Protects (issue 37): when Helios dies (SIGKILL, no chance to clean up),
// the commands it started die with it (PR_SET_PDEATHSIG on the PID
// namespace's init).
func TestConfinedDiesWithHelios(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	token := fmt.Sprintf("orphan-%d-%d", os.Getpid(), time.Now().UnixNano())
	helios := exec.Command(exe, "-helios-probe", "spawn", "sleep 30; : "+token, t.TempDir())
	stdout, err := helios.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, helios.Start())
	line := make([]byte, 64)
	n, _ := stdout.Read(line)
	require.Equal(t, "spawn ok\n", string(line[:n]))
	require.NotEmpty(t, sbProcsWith(token), "the confined command is not running")
	require.NoError(t, helios.Process.Kill())
	_ = helios.Wait()
	sbGone(t, token)
}
