package sandbox_test

// The probes of issue 37 that the other tests of this package do not run
// yet, each through the step loop with a scripted model, as root and as
// uid 65534 (the way TestConfinement does): a swapper left running by a
// Bash call against later Write calls (probe 1), the session's own
// terminal (probe 5), a model-made .helios redirecting the installer
// (probe 7), and, as an ordinary user on a machine refusing user
// namespaces, a Bash call that fails closed naming what is missing.

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/helios-agents/helios/internal/gittest"
	"github.com/helios-agents/helios/kernel/model"
	"github.com/helios-agents/helios/sandbox"
	"github.com/helios-agents/helios/skillinstall"
)

// sessionTTYEnv, set, says the test process runs in a session whose
// controlling terminal is the pty on its stdin (see probeSessionTerminal).
const sessionTTYEnv = "HELIOS_TEST_SESSION_TTY"

// probeSwap exchanges args[0] and args[1] (renameat2 RENAME_EXCHANGE) in a
// loop for args[2] seconds (args[3] only marks the command line), creating
// "swapping" after the first exchange, or "swap.err" with the error.
func probeSwap(args []string) int {
	secs, _ := strconv.Atoi(args[2])
	deadline := time.Now().Add(time.Duration(secs) * time.Second)
	for n := 0; time.Now().Before(deadline); n++ {
		if err := unix.Renameat2(unix.AT_FDCWD, args[0], unix.AT_FDCWD, args[1], unix.RENAME_EXCHANGE); err != nil {
			_ = os.WriteFile("swap.err", []byte("swap refused: "+err.Error()+"\n"), 0o644)
			return 0
		}
		if n == 0 {
			_ = os.WriteFile("swapping", nil, 0o644)
		}
	}
	return 0
}

// probeTTY opens each of args for reading, then asks whether the
// descriptors 0 to 2 are a terminal (TCGETS), one line each.
func probeTTY(args []string) int {
	for _, p := range args {
		fd, err := unix.Open(p, unix.O_RDONLY|unix.O_NOCTTY, 0) // reading is enough to steal keystrokes, and tcsetattr needs no more
		if err == nil {
			unix.Close(fd)
			fmt.Printf("open %s ok\n", p)
		} else {
			fmt.Printf("open %s refused: %v\n", p, err)
		}
	}
	for fd := range 3 {
		if _, err := unix.IoctlGetTermios(fd, unix.TCGETS); err == nil {
			fmt.Printf("tcgets %d ok\n", fd)
		} else {
			fmt.Printf("tcgets %d refused: %v\n", fd, err)
		}
	}
	return 0
}

// TestIssue37Probes runs the probes as root and as an unprivileged user,
// as TestConfinement does.
func TestIssue37Probes(t *testing.T) {
	probes := func(t *testing.T) {
		t.Run("swapper against Write", probeSwapperAgainstWrite)
		t.Run("session terminal", probeSessionTerminal)
		t.Run("installer redirect", probeInstallerRedirect)
		t.Run("no user namespace", probeNoUserNamespace)
	}
	t.Run("root", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("the suite does not run as root: the root half of the probes needs it (CI runs as root)")
		}
		probes(t)
	})
	t.Run("user", func(t *testing.T) {
		if os.Geteuid() != 0 {
			if err := userNamespace(); err != nil {
				// Commands fail closed here (TestConfinement checks the
				// machine's reason); the simulated refusal names its own.
				t.Logf("no user namespace for uid %d here (%v): checking that commands fail closed", os.Geteuid(), err)
				t.Run("no user namespace", probeNoUserNamespace)
				return
			}
			probes(t)
			return
		}
		asUnprivileged(t, "^TestIssue37Probes$/^user$")
	})
}

// testPattern is the -test.run pattern of exactly the test named name
// (t.Name(): its parts joined by "/", spaces made "_").
func testPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

// Probe 1 through the step loop: the model's Bash call leaves a swapper
// running (setsid, so the kill of the call's process group misses it)
// that exchanges a folder x and a symlink to .git, then calls Write
// x/config with an fsmonitor payload again and again. The kernel runs the
// tool calls of a step one after another, so the race needs the swapper
// to outlive its call: it does not (the call's PID namespace ends with
// it), and .git/config never changes. (The race of a Write against a
// concurrent swap is workfs's TestWorkFSWriteRaceWithASwappedLink.)
func probeSwapperAgainstWrite(t *testing.T) {
	const steps, writesPerStep = 4, 50 // the issue's race won within 80 tries
	w := newSBWorld(t)
	const gitConfig = "[core]\n\trepositoryformatversion = 0\n"
	require.NoError(t, os.MkdirAll(filepath.Join(w.work, ".git"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(w.work, ".git", "config"), []byte(gitConfig), 0o644))
	require.NoError(t, os.Mkdir(filepath.Join(w.work, "x"), 0o755))
	require.NoError(t, os.Symlink(".git", filepath.Join(w.work, "y")))
	token := fmt.Sprintf("swapper-%d-%d", os.Getpid(), time.Now().UnixNano())
	exe, _ := os.Executable()
	bash := sbBash("setsid " + sbQuote(exe) + " " + probeArg + " swap x y 60 " + token + " >/dev/null 2>&1 & " +
		"for i in $(seq 500); do [ -e swapping ] || [ -e swap.err ] && break; sleep 0.01; done; cat swap.err 2>/dev/null; echo started")
	calls := [][]model.ToolCall{{bash}}
	for range steps {
		var batch []model.ToolCall
		for range writesPerStep {
			batch = append(batch, toolCall("Write", map[string]string{"path": "x/config", "content": "[core]\n\tfsmonitor = \"touch pwned\"\n"}))
		}
		calls = append(calls, batch)
	}
	var left []string
	w.before = map[int]func(){1: func() {
		deadline := time.Now().Add(5 * time.Second)
		for left = sbProcsWith(token); len(left) > 0 && time.Now().Before(deadline); left = sbProcsWith(token) {
			time.Sleep(20 * time.Millisecond)
		}
	}}
	res := w.runSteps(t, map[string]any{}, nil, calls...)
	require.Len(t, res, 1+steps*writesPerStep)
	sbGone(t, token) // kills survivors, so a failure leaves nothing running
	require.Contains(t, res[0].Content, "started")
	require.NotContains(t, res[0].Content, "swap refused", "the swapper could not swap")
	require.FileExists(t, filepath.Join(w.work, "swapping"), "the swapper never swapped")
	assert.Empty(t, left, "the swapper outlived its Bash call")
	got, err := os.ReadFile(filepath.Join(w.work, ".git", "config"))
	require.NoError(t, err)
	assert.Equal(t, gitConfig, string(got), ".git/config was rewritten through the swapped link")
}

// Probe 5: the session's terminal, the pty the user types at, is out of
// reach: the command opens neither /dev/tty nor the pty's /dev/pts name,
// and none of its descriptors 0-2 is a terminal. The test process re-runs
// itself in a session of its own on a fresh pty (its controlling
// terminal, owned by the test's user, as a login's is).
func probeSessionTerminal(t *testing.T) {
	if os.Getenv(sessionTTYEnv) == "" {
		exe, err := os.Executable()
		require.NoError(t, err)
		cmd := exec.Command(exe, "-test.run", testPattern(t.Name()), "-test.v", "-test.count=1", "-test.timeout=5m")
		cmd.Env = append(os.Environ(), sessionTTYEnv+"=1")
		ptm, err := pty.Start(cmd) // setsid, and the pty becomes the controlling terminal
		require.NoError(t, err)
		defer ptm.Close()
		var out bytes.Buffer
		copied := make(chan struct{})
		go func() { _, _ = io.Copy(&out, ptm); close(copied) }()
		err = cmd.Wait()
		select {
		case <-copied:
		case <-time.After(10 * time.Second):
		}
		require.NoError(t, err, "the probe in a session with a terminal failed:\n%s", out.String())
		require.Contains(t, out.String(), "--- PASS: "+t.Name(), "the probe did not run:\n%s", out.String())
		return
	}
	tty, err := os.Readlink("/proc/self/fd/0")
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(tty, "/dev/pts/"), "stdin is %s, not a pty", tty)
	ctl, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	require.NoError(t, err, "the test process has no controlling terminal")
	ctl.Close()
	f, err := os.OpenFile(tty, os.O_RDWR, 0)
	require.NoError(t, err, "the test's user cannot open its own terminal")
	f.Close()

	w := newSBWorld(t)
	res := w.run(t, map[string]any{}, nil,
		probeCall("tty", "/dev/tty", tty),
		sbBash("exec "+sbQuote(os.Args[0])+" "+probeArg+" tty </dev/tty"), // the shell's own redirection
	)
	out := res[0].Content
	assert.Contains(t, out, "open /dev/tty refused: ")
	assert.Contains(t, out, "open "+tty+" refused: ")
	for fd := range 3 {
		assert.Contains(t, out, fmt.Sprintf("tcgets %d refused: ", fd))
	}
	assert.NotContains(t, out, " ok\n", "a command reached the session's terminal:\n%s", out)
	assert.True(t, res[1].IsError, res[1].Content)
	assert.NotContains(t, res[1].Content, "tcgets 0 ok")
}

// Probe 7 through the step loop: the state folders exist before the first
// step, so the model's `mkdir -p .helios && ln -s <outside> .helios/skills`
// (or removing or moving the folder first) fails, and a later
// `helios skills add --project` installs inside the work dir, nothing
// outside. A skills root that is a symlink anyway (a cloned repository's)
// makes the installer refuse, naming the link.
func probeInstallerRedirect(t *testing.T) {
	w := newSBWorld(t)
	outside := sbReal(t, t.TempDir())
	q := sbQuote(outside)
	var link string
	var linkErr error
	w.before = map[int]func(){1: func() {
		link, linkErr = os.Readlink(filepath.Join(w.work, ".helios", "skills", filepath.Base(outside)))
	}}
	res := w.run(t, map[string]any{}, nil,
		sbBash("mkdir -p .helios && ln -s "+q+" .helios/skills"),
		sbBash("rm -rf .helios/skills && ln -s "+q+" .helios/skills"),
		sbBash("mv .helios/skills .helios/old && ln -s "+q+" .helios/skills"),
		sbBash("rm -rf .helios && mkdir .helios && ln -s "+q+" .helios/skills"),
		sbBash("rm -rf .agents/skills && ln -s "+q+" .agents/skills"),
	)
	// The first lands in the real skills folder, under the outside
	// folder's name (a link the installer does not use); the others fail.
	assert.False(t, res[0].IsError, res[0].Content)
	assert.NoError(t, linkErr, "the link did not land inside the real skills folder")
	assert.Equal(t, outside, link)
	for i, r := range res[1:] {
		assert.True(t, r.IsError, "call %d: %s", i+1, r.Content)
	}
	for _, d := range []string{".helios/skills", ".agents/skills"} {
		fi, err := os.Lstat(filepath.Join(w.work, d))
		require.NoError(t, err)
		assert.True(t, fi.IsDir(), "%s is %v; want the real folder", d, fi.Mode())
	}

	repo := gittest.New(t, "skills")
	repo.Commit(map[string]gittest.File{"pdf/SKILL.md": gittest.Text(skillMD("name: pdf\ndescription: Work with PDF files.", "Body.\n"))})
	in, err := skillinstall.New(skillinstall.ProjectConfig(w.work))
	require.NoError(t, err)
	_, err = in.Add(t.Context(), repo.URL(), skillinstall.AddOptions{})
	require.NoError(t, err)
	assert.FileExists(t, filepath.Join(w.work, ".helios", "skills", "pdf", "SKILL.md"))
	entries, err := os.ReadDir(outside)
	require.NoError(t, err)
	assert.Empty(t, entries, "the installer wrote outside the work dir")

	cloned := sbReal(t, t.TempDir())
	require.NoError(t, os.Mkdir(filepath.Join(cloned, ".helios"), 0o755))
	require.NoError(t, os.Symlink(outside, filepath.Join(cloned, ".helios", "skills")))
	in, err = skillinstall.New(skillinstall.ProjectConfig(cloned))
	require.NoError(t, err)
	_, err = in.Add(t.Context(), repo.URL(), skillinstall.AddOptions{})
	require.ErrorIs(t, err, skillinstall.ErrOutsideTree)
	assert.ErrorContains(t, err, filepath.Join(cloned, ".helios", "skills")+" is a symlink")
	entries, err = os.ReadDir(outside)
	require.NoError(t, err)
	assert.Empty(t, entries, "the installer wrote outside the work dir")
}

// As an ordinary user on a machine that refuses user namespaces to it
// (simulated: HELIOS_SANDBOX_SIMULATE=userns=off), a Bash call fails
// closed: the command does not run and the model reads what is missing.
func probeNoUserNamespace(t *testing.T) {
	t.Setenv(sandbox.SimulateEnv, "userns=off")
	w := newSBWorld(t)
	res := w.run(t, map[string]any{}, nil, sbBash(`echo ran > ran.txt; echo ran`))
	require.Len(t, res, 1)
	assert.True(t, res[0].IsError, res[0].Content)
	assert.True(t, strings.HasPrefix(res[0].Content, "the command was not run"), res[0].Content)
	assert.Contains(t, res[0].Content, "user namespace")
	assert.Contains(t, res[0].Content, "simulated by "+sandbox.SimulateEnv)
	assert.NotContains(t, res[0].Content, "ran\n")
	assert.NoFileExists(t, filepath.Join(w.work, "ran.txt"))
}
