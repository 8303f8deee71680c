package sandbox_test

// Confined commands (DESIGN.md C17, issue 17) and the environment of
// everything the model runs (C11, issue 10 item 1), through the step loop:
// a kernel assembled from a real helios.config.json, the real adapter
// talking to a scripted model, Bash running on the real Landlock and
// seccomp of this machine (the test binary is the sandbox's entry point:
// see TestMain). Every escape is checked twice: the command fails, and
// nothing was left where it tried to write.

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/assembly"
	"github.com/helios-agents/helios/internal/testkit"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/model"
	"github.com/helios-agents/helios/provider/modeltest"
	"github.com/helios-agents/helios/sandbox"
)

// sbWorld is a work dir and a temp HOME for one sandbox test.
type sbWorld struct {
	work, home string
	logs       *testkit.SyncBuffer
	// before[i], when set, runs just before the model asks for call i.
	before map[int]func()
	// last is the model's last request of the latest run.
	last modeltest.Recorded
}

func newSBWorld(t *testing.T) *sbWorld {
	t.Helper()
	w := &sbWorld{work: sbReal(t, t.TempDir()), home: sbReal(t, t.TempDir()), logs: &testkit.SyncBuffer{}}
	t.Setenv("HOME", w.home)
	return w
}

// sbReal resolves symlinks, as the kernel does for the work dir.
func sbReal(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	require.NoError(t, err)
	return r
}

// run opens a session on a kernel assembled from tools (the "tools" key of
// the config) and model (extra "model" keys), lets the scripted model run
// each step, and returns the tool results in order.
func (w *sbWorld) run(t *testing.T, tools map[string]any, modelKeys map[string]any, calls ...model.ToolCall) []sbResult {
	t.Helper()
	steps := make([][]model.ToolCall, len(calls))
	for i, c := range calls {
		steps[i] = []model.ToolCall{c}
	}
	return w.runSteps(t, tools, modelKeys, steps...)
}

// runSteps is run with several tool calls in a step: steps[i] are the
// calls of step i (before[i] runs before it); the results are in the
// order of the calls.
func (w *sbWorld) runSteps(t *testing.T, tools map[string]any, modelKeys map[string]any, calls ...[]model.ToolCall) []sbResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	var mu sync.Mutex // the steps run on the server's goroutine
	var results []sbResult
	var steps []modeltest.Step
	n := 0
	var prev []string // the ids of the step before
	collect := func(req modeltest.Recorded, ids []string) {
		mu.Lock()
		defer mu.Unlock()
		for _, id := range ids {
			results = append(results, sbToolResult(req, id))
		}
	}
	for i, cs := range calls {
		var ids []string
		var batch []model.ToolCall
		for _, c := range cs {
			n++
			c.ID = fmt.Sprintf("c%d", n)
			ids = append(ids, c.ID)
			batch = append(batch, c)
		}
		done := prev
		steps = append(steps, func(req modeltest.Recorded) modeltest.Reply {
			collect(req, done)
			if f := w.before[i]; f != nil {
				f()
			}
			return modeltest.Reply{ToolCalls: batch}
		})
		prev = ids
	}
	done := prev
	steps = append(steps, func(req modeltest.Recorded) modeltest.Reply {
		collect(req, done)
		mu.Lock()
		w.last = req
		mu.Unlock()
		return modeltest.Reply{Text: "done"}
	})
	srv := modeltest.NewServer(t, steps...)
	m := map[string]any{"baseURL": srv.URL(), "name": "scripted", "apiKeyEnv": ""}
	for k, v := range modelKeys {
		m[k] = v
	}
	cfg := map[string]any{
		"workDir":  ".",
		"skills":   map[string]any{"watch": map[string]any{"mode": "off"}},
		"model":    m,
		"sessions": map[string]any{"dir": filepath.Join(w.home, "sessions")},
		"tools":    tools,
	}
	data, err := json.Marshal(cfg)
	require.NoError(t, err)
	path := filepath.Join(w.work, "helios.config.json")
	require.NoError(t, os.WriteFile(path, data, 0o644))
	logger := slog.New(slog.NewTextHandler(w.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	k, err := assembly.Load(ctx, path, assembly.Options{Logger: logger})
	require.NoError(t, err)
	defer k.Close()
	s, err := k.OpenSession(ctx, kernel.SessionConfig{})
	require.NoError(t, err)
	defer s.Close()
	answer, err := s.Run(ctx, "go")
	require.NoError(t, err)
	require.Equal(t, "done", answer)
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, results, n)
	return results
}

// sbResult is one tool result the model received.
type sbResult struct {
	Content string
	IsError bool
}

// sbToolResult finds the result of call id in the request. The modeltest
// request has no error bit; the kernel marks a failed Bash call with a
// final "[exit code N]" or another bracketed status line.
func sbToolResult(req modeltest.Recorded, id string) sbResult {
	for _, m := range req.Messages {
		if m.Role == model.RoleTool && m.ToolCallID == id {
			last := m.Content[strings.LastIndex(m.Content, "\n")+1:]
			failed := strings.HasPrefix(last, "[exit code") || strings.HasPrefix(m.Content, "the command was not run") ||
				strings.HasPrefix(m.Content, "could not start")
			return sbResult{Content: m.Content, IsError: failed}
		}
	}
	return sbResult{Content: "(no result for " + id + ")", IsError: true}
}

func sbBash(command string) model.ToolCall {
	args, _ := json.Marshal(map[string]string{"command": command})
	return model.ToolCall{Name: "Bash", Arguments: args}
}

// sbNotConfined checks that the kernel process itself was never confined:
// none of its threads has no_new_privs or a seccomp filter, and it can
// still write outside the work dir.
func sbNotConfined(t *testing.T, outside string) {
	t.Helper()
	tasks, err := filepath.Glob("/proc/self/task/*/status")
	require.NoError(t, err)
	for _, st := range tasks {
		data, err := os.ReadFile(st)
		if err != nil {
			continue // the thread ended
		}
		assert.Contains(t, string(data), "NoNewPrivs:\t0", "%s: the kernel confined itself", st)
		assert.Contains(t, string(data), "Seccomp:\t0", "%s: the kernel confined itself", st)
	}
	p := filepath.Join(outside, "kernel-can-write")
	assert.NoError(t, os.WriteFile(p, []byte("x"), 0o644), "the kernel process lost its own rights")
	_ = os.Remove(p)
}

// Protects: workspace-write, the default. Writes in the work dir, TMPDIR
// (the session's own temp dir, not the kernel's) and a writable path
// succeed; writes to HOME, to /tmp outside the session's temp dir and
// through a symlink in the work dir pointing out fail with the operating
// system's refusal and leave nothing. The first confined command says so
// once. The kernel itself stays unconfined.
func TestSandboxWorkspaceWrite(t *testing.T) {
	w := newSBWorld(t)
	outside := sbReal(t, t.TempDir()) // under /tmp, outside the session's temp dir
	writable := sbReal(t, t.TempDir())
	require.NoError(t, os.Symlink(outside, filepath.Join(w.work, "out")))
	kernelTmp := os.TempDir()
	victim := filepath.Join(outside, "victim.txt")
	require.NoError(t, os.WriteFile(victim, []byte("precious"), 0o644))

	res := w.run(t, map[string]any{"sandbox": map[string]any{"writable": []string{writable}}}, nil,
		sbBash(`echo in > inside.txt && mkdir -p sub && mv inside.txt sub/ && cat sub/inside.txt`),
		sbBash(`echo x > "$HOME/escape.txt"`),
		sbBash(`echo x > `+outside+`/escape.txt`),
		sbBash(`echo x > out/escape.txt`),
		sbBash(`printf tmp > "$TMPDIR/t.txt" && cat "$TMPDIR/t.txt" && echo " $TMPDIR"`),
		sbBash(`echo w > `+writable+`/w.txt && cat `+writable+`/w.txt`),
		sbBash(`truncate -s 0 `+outside+`/victim.txt || rm `+outside+`/victim.txt`),
	)

	assert.False(t, res[0].IsError, res[0].Content)
	assert.True(t, strings.HasPrefix(res[0].Content, "in\n"), res[0].Content)
	assert.Contains(t, res[0].Content, "[sandbox: commands run confined (workspace-write, network off")
	assert.FileExists(t, filepath.Join(w.work, "sub", "inside.txt"))
	for i, what := range map[int]string{1: "home", 2: "/tmp outside the session's temp dir", 3: "a symlink pointing out"} {
		assert.True(t, res[i].IsError, "%s: %s", what, res[i].Content)
		assert.Regexp(t, "Read-only file system|Permission denied", res[i].Content, what)
		assert.NotContains(t, res[i].Content, "[sandbox:", "the note is shown once per session")
	}
	assert.NoFileExists(t, filepath.Join(w.home, "escape.txt"))
	assert.NoFileExists(t, filepath.Join(outside, "escape.txt"))

	tmpOut := strings.Fields(res[4].Content)
	require.Len(t, tmpOut, 2, res[4].Content)
	assert.Equal(t, "tmp", tmpOut[0])
	assert.NotEqual(t, filepath.Clean(kernelTmp), tmpOut[1], "TMPDIR must be the session's own temp dir")
	assert.Contains(t, filepath.Base(tmpOut[1]), "helios-session-")
	assert.NoDirExists(t, tmpOut[1], "the session's temp dir is removed with the session")

	assert.False(t, res[5].IsError, res[5].Content)
	assert.Equal(t, "w\n", res[5].Content)

	assert.True(t, res[6].IsError, res[6].Content)
	got, err := os.ReadFile(victim)
	assert.NoError(t, err, "a file outside was removed")
	assert.Equal(t, "precious", string(got), "a file outside was truncated")

	sbNotConfined(t, outside)
}

// Protects: read-only mode writes nothing but the session's temp dir; the
// work dir is refused too, and configured writable paths do not apply.
func TestSandboxReadOnly(t *testing.T) {
	w := newSBWorld(t)
	writable := sbReal(t, t.TempDir())
	require.NoError(t, os.WriteFile(filepath.Join(w.work, "keep.txt"), []byte("kept\n"), 0o644))
	res := w.run(t, map[string]any{"sandbox": map[string]any{"mode": "read-only", "writable": []string{writable}}}, nil,
		sbBash(`cat keep.txt && echo x > new.txt`),
		sbBash(`echo x > `+writable+`/w.txt`),
		sbBash(`echo t > "$TMPDIR/t" && cat "$TMPDIR/t"`),
	)
	assert.True(t, res[0].IsError, res[0].Content)
	assert.Contains(t, res[0].Content, "kept\n")
	assert.Contains(t, res[0].Content, "Permission denied")
	assert.Contains(t, res[0].Content, "[sandbox: commands run confined (read-only, network off")
	assert.NoFileExists(t, filepath.Join(w.work, "new.txt"))
	assert.True(t, res[1].IsError, res[1].Content)
	assert.NoFileExists(t, filepath.Join(writable, "w.txt"))
	assert.False(t, res[2].IsError, res[2].Content)
	assert.Equal(t, "t\n", res[2].Content)
}

// sbListeners starts a TCP and a UDP listener on 127.0.0.1 and reports
// what reached them.
type sbListeners struct {
	tcp      net.Listener
	udp      net.PacketConn
	accepted chan struct{}
	received chan string
}

func newSBListeners(t *testing.T) *sbListeners {
	t.Helper()
	l := &sbListeners{accepted: make(chan struct{}, 8), received: make(chan string, 8)}
	var err error
	l.tcp, err = net.Listen("tcp4", "127.0.0.1:0")
	require.NoError(t, err)
	l.udp, err = net.ListenPacket("udp4", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { l.tcp.Close(); l.udp.Close() })
	go func() {
		for {
			c, err := l.tcp.Accept()
			if err != nil {
				return
			}
			l.accepted <- struct{}{}
			c.Close()
		}
	}()
	go func() {
		buf := make([]byte, 64)
		for {
			n, _, err := l.udp.ReadFrom(buf)
			if err != nil {
				return
			}
			l.received <- string(buf[:n])
		}
	}()
	return l
}

func (l *sbListeners) tcpPort() int { return l.tcp.Addr().(*net.TCPAddr).Port }
func (l *sbListeners) udpPort() int { return l.udp.LocalAddr().(*net.UDPAddr).Port }

// connect and send are bash commands: a TCP connect, a UDP datagram.
func (l *sbListeners) commands() []model.ToolCall {
	return []model.ToolCall{
		sbBash(fmt.Sprintf(`exec 3<>/dev/tcp/127.0.0.1/%d && echo connected`, l.tcpPort())),
		sbBash(fmt.Sprintf(`echo datagram > /dev/udp/127.0.0.1/%d && echo sent`, l.udpPort())),
	}
}

// Protects: network off (the default) refuses a TCP connect to a listener
// on 127.0.0.1 (Landlock) and a UDP send (seccomp); network on allows both.
func TestSandboxNetwork(t *testing.T) {
	t.Run("off", func(t *testing.T) {
		w, l := newSBWorld(t), newSBListeners(t)
		res := w.run(t, map[string]any{}, nil, l.commands()...)
		assert.True(t, res[0].IsError, res[0].Content)
		assert.Contains(t, res[0].Content, "Permission denied")
		assert.True(t, res[1].IsError, res[1].Content)
		assert.Contains(t, res[1].Content, "Permission denied")
		select {
		case <-l.accepted:
			t.Error("a confined command connected over TCP with the network off")
		case d := <-l.received:
			t.Errorf("a confined command sent a UDP datagram %q with the network off", d)
		case <-time.After(200 * time.Millisecond):
		}
	})
	t.Run("on", func(t *testing.T) {
		w, l := newSBWorld(t), newSBListeners(t)
		res := w.run(t, map[string]any{"sandbox": map[string]any{"network": true}}, nil, l.commands()...)
		assert.False(t, res[0].IsError, res[0].Content)
		assert.Contains(t, res[0].Content, "connected\n")
		assert.Contains(t, res[0].Content, "network on")
		assert.False(t, res[1].IsError, res[1].Content)
		sbWait(t, l.accepted, "the TCP connection")
		select {
		case d := <-l.received:
			assert.Equal(t, "datagram\n", d)
		case <-time.After(5 * time.Second):
			t.Error("the UDP datagram never arrived")
		}
	})
}

func sbWait(t *testing.T, ch chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(5 * time.Second):
		t.Errorf("%s never arrived", what)
	}
}

// Protects: a machine whose Landlock is the oldest usable (ABI 3,
// simulated: no network rules, no scopes) still keeps the network off and
// the files confined: seccomp refuses every IP socket whatever the ABI.
func TestSandboxNetworkWithoutLandlockTCP(t *testing.T) {
	t.Setenv(sandbox.SimulateEnv, "landlock=3")
	w, l := newSBWorld(t), newSBListeners(t)
	res := w.run(t, map[string]any{}, nil, append(l.commands(), sbBash(`echo x > "$HOME/escape.txt"`))...)
	assert.Contains(t, res[0].Content, "Landlock ABI 3 for files, read-only mounts for the protected paths, seccomp for sockets")
	for i := range 3 {
		assert.True(t, res[i].IsError, res[i].Content)
		assert.Regexp(t, "Read-only file system|Permission denied", res[i].Content)
	}
	assert.NoFileExists(t, filepath.Join(w.home, "escape.txt"))
	select {
	case <-l.accepted:
		t.Error("connected over TCP with the network off")
	case <-time.After(200 * time.Millisecond):
	}
}

// Protects: fail closed. When the configured mode cannot be enforced (the
// probe simulates a machine without Landlock, or without seccomp), the
// command is not run and the model reads why and which key to set; never
// an unconfined run.
func TestSandboxFailClosed(t *testing.T) {
	tests := []struct {
		name, simulate string
		mode           string
		want           []string
	}{
		{"no landlock", "landlock=0", "", []string{"Landlock is not available", `tools.sandbox.mode to "off"`}},
		{"no landlock, read-only", "landlock=0", "read-only", []string{`mode "read-only"`, "Landlock is not available"}},
		{"landlock too old", "landlock=2", "", []string{"Landlock ABI 2 is too old", `tools.sandbox.mode to "off"`}},
		{"no seccomp", "seccomp=off", "", []string{"seccomp is not available", "terminal injection", `tools.sandbox.mode to "off"`}},
		{"no user namespace", "userns=off", "read-only", []string{"needs a user namespace, which this machine refuses (simulated by", "PID", `tools.sandbox.mode to "off"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(sandbox.SimulateEnv, tt.simulate)
			w := newSBWorld(t)
			sb := map[string]any{}
			if tt.mode != "" {
				sb["mode"] = tt.mode
			}
			res := w.run(t, map[string]any{"sandbox": sb}, nil, sbBash(`echo ran > "$HOME/ran.txt"; echo ran > ran.txt`))
			assert.True(t, res[0].IsError, res[0].Content)
			assert.True(t, strings.HasPrefix(res[0].Content, "the command was not run: commands cannot run confined"), res[0].Content)
			for _, want := range tt.want {
				assert.Contains(t, res[0].Content, want)
			}
			assert.NoFileExists(t, filepath.Join(w.home, "ran.txt"))
			assert.NoFileExists(t, filepath.Join(w.work, "ran.txt"))
		})
	}
}

// Protects: "off" restores the unconfined behaviour (writes outside the
// work dir, network), says nothing to the model, and logs once that
// commands are not confined; the environment allowlist still applies.
func TestSandboxOff(t *testing.T) {
	t.Setenv(sandbox.SimulateEnv, "landlock=0") // off needs nothing from the machine
	t.Setenv("SB_OFF_SECRET", "off-secret-value")
	w, l := newSBWorld(t), newSBListeners(t)
	res := w.run(t, map[string]any{"sandbox": map[string]any{"mode": "off"}}, nil,
		sbBash(`echo x > "$HOME/written.txt" && echo ok`),
		l.commands()[0],
		sbBash(`env`),
	)
	assert.Equal(t, "ok\n", res[0].Content)
	assert.FileExists(t, filepath.Join(w.home, "written.txt"))
	assert.Equal(t, "connected\n", res[1].Content)
	sbWait(t, l.accepted, "the TCP connection")
	assert.NotContains(t, res[2].Content, "off-secret-value")
	assert.Equal(t, 1, strings.Count(w.logs.String(), "not confined"), w.logs.String())
}

// Protects: the environment of the model's commands is an allowlist (issue
// 10 item 1): the API key's variable never reaches `env`, nor HELIOS_*
// variables nor any other variable of the kernel's environment; tools.env
// and tools.passEnv add to it. Checked in a confined and an unconfined mode.
func TestSandboxEnvironment(t *testing.T) {
	for _, mode := range []string{"workspace-write", "off"} {
		t.Run(mode, func(t *testing.T) {
			const key = "sk-live-0123456789abcdef"
			t.Setenv("SB_TEST_API_KEY", key)
			t.Setenv("HELIOS_SB_INTERNAL", "helios-internal-value")
			t.Setenv("SB_UNLISTED", "unlisted-value")
			t.Setenv("SB_PASSED", "passed-value")
			t.Setenv("LC_SB_TEST", "lc-value")
			t.Setenv("TZ", "Europe/Paris")
			w := newSBWorld(t)
			res := w.run(t, map[string]any{
				"sandbox": map[string]any{"mode": mode},
				"env":     map[string]any{"SB_SET": "set-value"},
				"passEnv": []string{"SB_PASSED"},
			}, map[string]any{"apiKeyEnv": "SB_TEST_API_KEY"}, sbBash(`env`))
			out := res[0].Content
			assert.False(t, res[0].IsError, out)
			assert.NotContains(t, out, key, "the API key reached the model")
			assert.NotContains(t, out, "SB_TEST_API_KEY")
			assert.NotContains(t, out, "helios-internal-value")
			assert.NotContains(t, out, "unlisted-value")
			vars := strings.Split(out, "\n") // one variable a line, in no promised order
			for _, want := range []string{"SB_PASSED=passed-value", "SB_SET=set-value", "LC_SB_TEST=lc-value", "TZ=Europe/Paris", "HOME=" + w.home} {
				assert.Contains(t, vars, want, "env lacks %s", want)
			}
			assert.True(t, slices.ContainsFunc(vars, func(v string) bool { return strings.HasPrefix(v, "PATH=") }), "env lacks PATH")
		})
	}
}

// Protects: a skill's script runs from its base dir, confined, in both
// confining modes: skill folders are readable and their scripts executable
// wherever they are (here in the user-level root, outside the work dir).
func TestSandboxSkillScript(t *testing.T) {
	for _, mode := range []string{"workspace-write", "read-only"} {
		t.Run(mode, func(t *testing.T) {
			w := newSBWorld(t)
			base := filepath.Join(w.home, ".helios", "skills", "greet")
			writeFile(t, filepath.Join(base, "SKILL.md"), skillMD("name: greet\ndescription: Greets.", "Run scripts/hello.sh."))
			writeFile(t, filepath.Join(base, "data.txt"), "from the skill's folder\n")
			writeFile(t, filepath.Join(base, "scripts", "hello.sh"), "#!/bin/sh\necho hello; cat data.txt; echo scratch > \"$TMPDIR/scratch\" && echo scratch ok\n")
			require.NoError(t, os.Chmod(filepath.Join(base, "scripts", "hello.sh"), 0o755))
			res := w.run(t, map[string]any{"sandbox": map[string]any{"mode": mode}}, nil,
				model.ToolCall{Name: "skill", Arguments: json.RawMessage(`{"name":"greet"}`)},
				sbBash(`cd `+base+` && ./scripts/hello.sh`),
			)
			assert.Contains(t, res[0].Content, "Base directory for this skill: "+base)
			assert.False(t, res[1].IsError, res[1].Content)
			assert.True(t, strings.HasPrefix(res[1].Content, "hello\nfrom the skill's folder\nscratch ok\n"), res[1].Content)
		})
	}
}

// Protects: bad sandbox and environment config is an error naming the JSON
// path and the reason; one bad entry does not hide another. A writable
// path or an allowed socket inside a protected path (of the work dir or of
// another writable path) would reopen it: refused.
func TestSandboxConfigErrors(t *testing.T) {
	exists := sbReal(t, t.TempDir())
	tests := []struct {
		name  string
		tools string
		model string
		want  []string
	}{
		{"unknown mode", `{"sandbox": {"mode": "strict"}}`, "", []string{"tools.sandbox.mode", `"strict"`}},
		{"relative writable", `{"sandbox": {"writable": ["build/out"]}}`, "", []string{"tools.sandbox.writable[0]", "relative"}},
		{"missing writable", `{"sandbox": {"writable": ["` + exists + `", "` + exists + `/nope"]}}`, "", []string{"tools.sandbox.writable[1]", "no such file"}},
		{"network not a boolean", `{"sandbox": {"network": "yes"}}`, "", []string{"tools.sandbox.network", "boolean"}},
		{"passEnv names the API key", `{"passEnv": ["PATH", "MY_KEY"]}`, `"apiKeyEnv": "MY_KEY"`, []string{"tools.passEnv[1]", "MY_KEY", "model.apiKeyEnv"}},
		{"passEnv names the default key", `{"passEnv": ["HELIOS_API_KEY"]}`, "", []string{"tools.passEnv[0]", "HELIOS_API_KEY"}},
		{"env sets a HELIOS_ variable", `{"env": {"HELIOS_DEBUG": "1"}}`, "", []string{"tools.env.HELIOS_DEBUG", "HELIOS_"}},
		{"two problems, both reported", `{"passEnv": ["MY_KEY"], "sandbox": {"writable": ["rel"]}}`, `"apiKeyEnv": "MY_KEY"`,
			[]string{"tools.passEnv[0]", "tools.sandbox.writable[0]"}},
		{"writable inside the work dir's .git", `{"sandbox": {"writable": ["WORK/.git/hooks"]}}`, "", []string{"tools.sandbox.writable[0]", "WORK/.git/hooks", "is in WORK/.git", "read-only"}},
		{"writable in another's protected path", `{"sandbox": {"writable": ["` + exists + `", "` + exists + `/.helios/x"]}}`, "", []string{"tools.sandbox.writable[1]", "is in " + exists + "/.helios"}},
		{"unixSockets relative", `{"sandbox": {"unixSockets": ["run/db.sock"]}}`, "", []string{"tools.sandbox.unixSockets[0]", "relative"}},
		{"unixSockets missing", `{"sandbox": {"unixSockets": ["` + exists + `/nope.sock"]}}`, "", []string{"tools.sandbox.unixSockets[0]", "no such file"}},
		{"unixSockets not a socket", `{"sandbox": {"unixSockets": ["` + exists + `"]}}`, "", []string{"tools.sandbox.unixSockets[0]", "is not a Unix socket (it is a directory)"}},
		{"unixSockets in a protected path", `{"sandbox": {"unixSockets": ["WORK/.helios/agent.sock"]}}`, "", []string{"tools.sandbox.unixSockets[0]", "is in WORK/.helios"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := sbShortDir(t) // it holds a socket
			require.NoError(t, os.MkdirAll(filepath.Join(exists, ".helios", "x"), 0o755))
			require.NoError(t, os.MkdirAll(filepath.Join(dir, ".git", "hooks"), 0o755))
			require.NoError(t, os.MkdirAll(filepath.Join(dir, ".helios"), 0o755))
			l, err := net.Listen("unix", filepath.Join(dir, ".helios", "agent.sock"))
			require.NoError(t, err)
			defer l.Close()
			m := `"model": {` + tt.model + `}, `
			cfg := `{"workDir": ".", ` + m + `"skills": {"userRoots": []}, "tools": ` + strings.ReplaceAll(tt.tools, "WORK", dir) + `}`
			path := filepath.Join(dir, "helios.config.json")
			writeFile(t, path, cfg)
			k, err := assembly.Load(context.Background(), path, assembly.Options{})
			if k != nil {
				k.Close()
			}
			require.Error(t, err)
			for _, want := range tt.want {
				assert.Contains(t, err.Error(), strings.ReplaceAll(want, "WORK", dir))
			}
		})
	}
}

// writeFile creates path (and its parents) with content.
func writeFile(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}

// skillMD renders a SKILL.md with the given frontmatter lines and body.
func skillMD(frontmatter, body string) string {
	return "---\n" + frontmatter + "\n---\n" + body
}
