package host

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"github.com/helios-agents/helios/internal/proctest"
	"github.com/helios-agents/helios/internal/testkit"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/hookdata"
	"github.com/helios-agents/helios/kernel/hooks"
	"github.com/helios-agents/helios/plugins"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The plugin describes itself from its EXTENSION.md, its hooks, tools and
// skills folder; the skill's base dir is absolute, on disk beside it.
func TestLaunchDescribes(t *testing.T) {
	c := launch(t, Config{})
	st := c.Status()
	require.NotZero(t, st.PID, "status after launch: %+v", st)
	require.True(t, proctest.Alive(st.PID), "status after launch: %+v", st)
	require.Nil(t, st.Down, "status after launch: %+v", st)
	d := st.Description
	assert.Equal(t, "release-notes", d.Name, "name, description, %q", d.Description)
	assert.True(t, strings.HasPrefix(d.Description, "Drafts release notes"), "name, description, %q", d.Description)
	assert.Equal(t, d.Description, c.Description(), "Description()")
	wantMounts := []plugins.Mount{{Point: "context:prepare"}, {Point: "tool:before", Name: "guard-tags"}}
	assert.Empty(t, cmp.Diff(wantMounts, d.Mounts), "mounts (-want +got)")
	var names []string
	for _, m := range c.Mounts() {
		names = append(names, m.Point+"="+m.Name)
	}
	assert.Empty(t, cmp.Diff([]string{"context:prepare=", "tool:before=release-notes/guard-tags"}, names), "kernel mounts (-want +got)")
	set, err := c.Skills(context.Background())
	require.NoError(t, err, "Skills = %+v", set)
	require.False(t, set.Incomplete, "Skills = %+v", set)
	require.Len(t, set.Skills, 1, "Skills = %+v", set)
	s := set.Skills[0]
	wantBase := filepath.Join(exampleDir, "skills", "release-notes")
	assert.Equal(t, "release-notes", s.Name, "skill = %+v, want base dir %s", s, wantBase)
	assert.Equal(t, "capability:release-notes", s.Source, "skill = %+v, want base dir %s", s, wantBase)
	assert.Equal(t, wantBase, s.BaseDir, "skill = %+v, want base dir %s", s, wantBase)
	_, err = os.Stat(filepath.Join(s.BaseDir, "scripts", "collect.sh"))
	assert.NoError(t, err, "the skill's script is not where its base dir says")
	tools, err := c.Tools(context.Background())
	require.NoError(t, err, "Tools")
	require.Len(t, tools, 1, "Tools")
	require.Equal(t, "release_notes_format", tools[0].Name, "Tools")
	require.NotEmpty(t, tools[0].Schema, "Tools")
}

// A hook result crosses the wire with an explicit handled bit: a pass is a
// pass, a decision comes back typed.
func TestHandlePassAndDecide(t *testing.T) {
	c := launch(t, Config{})
	guard := mountOn(t, c, "tool:before")
	ctx := context.Background()
	for _, tt := range []struct {
		name, tool, command string
		want                hooks.Result
	}{
		{"other tool passes", "Read", "", hooks.Pass},
		{"harmless bash passes", "Bash", "git log --oneline", hooks.Pass},
		{"tag deletion denied", "Bash", "git tag -d v1.2.0", hooks.Result{Handled: true, Value: kernel.ToolDecision{Deny: true}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args, _ := json.Marshal(map[string]string{"command": tt.command})
			res, err := guard(ctx, kernel.ToolBeforeIn{SessionID: "s", Call: hookdata.ToolCall{ID: "1", Name: tt.tool, Arguments: args}})
			require.NoError(t, err)
			require.Equal(t, tt.want.Handled, res.Handled, "handled (value %#v)", res.Value)
			if !res.Handled {
				assert.Equal(t, nil, res.Value, "a pass carries a value")
				return
			}
			d, ok := res.Value.(kernel.ToolDecision)
			assert.True(t, ok, "decision = %#v", res.Value)
			assert.True(t, d.Deny, "decision = %#v", res.Value)
			assert.Contains(t, d.Reason, "deletes a tag", "decision = %#v", res.Value)
		})
	}
}

// mountOn returns the plugin's handler on a point.
func mountOn(t *testing.T, c *Capability, point string) hooks.Handler {
	t.Helper()
	for _, m := range c.Mounts() {
		if m.Point == point {
			return m.Handler
		}
	}
	t.Fatalf("no mount on %s", point)
	return nil
}

func prepareIn(names ...string) kernel.PrepareIn {
	in := kernel.PrepareIn{SessionID: "s", Step: 1, Complete: true}
	for _, n := range names {
		in.Skills = append(in.Skills, hookdata.Skill{Name: n, Description: "d", Source: "test"})
	}
	return in
}

// The checksum is verified before the process starts: the right one
// launches; a wrong one is refused, naming the plugin and both sums, and
// nothing ran.
func TestChecksum(t *testing.T) {
	bin := filepath.Join(exampleDir, "release-notes")
	data, err := os.ReadFile(bin)
	require.NoError(t, err)
	sum := sha256.Sum256(data)
	right := hex.EncodeToString(sum[:])

	launch(t, Config{SHA256: strings.ToUpper(right)})

	dir, env := debugDir(t)
	wrong := strings.Repeat("ab", 32)
	_, err = Launch(context.Background(), Config{Name: "notes", Command: bin, SHA256: wrong, Env: []string{env}})
	require.ErrorIs(t, err, ErrChecksum, "wrong sha256")
	for _, part := range []string{`"notes"`, right, wrong, bin} {
		assert.Contains(t, err.Error(), part, "error %q does not name %s", err, part)
	}
	assert.Empty(t, calls(t, dir, "start"), "the refused binary ran anyway: started")

	_, err = Launch(context.Background(), Config{Name: "notes", Command: bin, SHA256: "xyz"})
	assert.ErrorContains(t, err, "64 hex digits", "malformed sha256")
}

// Plugins built for another protocol version, or speaking net/rpc, are
// refused at the handshake with go-plugin's explanation; a program that is
// no plugin at all times out with its stderr in the error.
func TestHandshakeRefusals(t *testing.T) {
	for _, tt := range []struct{ name, script, want string }{
		{"other protocol version", `echo '1|2|unix|/nonexistent|grpc|'; exec sleep 10`, "incompatible API version"},
		{"net/rpc", `echo '1|1|unix|/nonexistent|netrpc|'; exec sleep 10`, "unsupported plugin protocol"},
		{"not a plugin", `echo 'I am not a plugin' >&2; exit 3`, "I am not a plugin"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			script := filepath.Join(t.TempDir(), "plugin.sh")
			require.NoError(t, os.WriteFile(script, []byte("#!/bin/sh\n"+tt.script+"\n"), 0o755))
			_, err := Launch(context.Background(), Config{Name: "odd", Command: script, StartTimeout: 5 * time.Second, Logger: testLogger(t)})
			require.ErrorContains(t, err, tt.want, "err = %v, want it to name the plugin and say %q", err, tt.want)
			require.Contains(t, err.Error(), `"odd"`, "err = %v, want it to name the plugin and say %q", err, tt.want)
		})
	}
}

// The plugin's stderr is re-logged under its name: the SDK's JSON records
// keep their level and message; a raw line is logged as it is. A hostile
// line that would panic go-plugin's own parser does not touch the kernel.
func TestStderrRelogged(t *testing.T) {
	var rec testkit.SyncBuffer
	launch(t, Config{Logger: recordingLogger(&rec)})
	proctest.Eventually(t, 5*time.Second, "the SDK's serving record", func() bool { return strings.Contains(rec.String(), "msg=serving") })
	for line := range strings.Lines(rec.String()) {
		if strings.Contains(line, "msg=serving") {
			for _, want := range []string{"level=DEBUG", "plugin=release-notes", "stream=stderr", "dir="} {
				assert.Contains(t, line, want, "relogged record %q lacks %s", line, want)
			}
		}
	}

	var hostile testkit.SyncBuffer
	script := filepath.Join(t.TempDir(), "plugin.sh")
	body := "#!/bin/sh\necho '{\"@message\": 5, \"@level\": []}' >&2\necho 'plain words' >&2\nexit 1\n"
	require.NoError(t, os.WriteFile(script, []byte(body), 0o755))
	_, err := Launch(context.Background(), Config{Name: "hostile", Command: script, Logger: recordingLogger(&hostile)})
	require.Error(t, err, "a script that exits launched")
	for _, want := range []string{`msg="{\"@message\": 5, \"@level\": []}" plugin=hostile stream=stderr`, `msg="plain words" plugin=hostile stream=stderr`} {
		assert.Contains(t, hostile.String(), want, "log lacks %s:\n%s", want, hostile.String())
	}
}

// Killing the plugin mid-call costs that call (an error) and the plugin's
// skills their completeness (still listed, with a warning); the next call
// fails fast while the restart backoff runs; after it, the plugin is
// restarted and answers again.
func TestCrashMidCallRestartsAfterBackoff(t *testing.T) {
	dir, env := debugDir(t)
	var rec testkit.SyncBuffer
	const backoff = 400 * time.Millisecond
	c := launch(t, Config{Env: []string{env}, RestartBackoff: backoff, Logger: recordingLogger(&rec)})
	var invalidated atomic.Int32
	require.NoError(t, c.Watch(func() { invalidated.Add(1) }, make(chan struct{})), "Watch")
	prepare := mountOn(t, c, "context:prepare")
	ctx := context.Background()
	pid := c.Status().PID

	stall := filepath.Join(dir, "stall")
	require.NoError(t, os.WriteFile(stall, nil, 0o644))
	errc := make(chan error, 1)
	go func() {
		_, err := prepare(ctx, prepareIn("release-notes"))
		errc <- err
	}()
	proctest.Eventually(t, 5*time.Second, "the call to reach the plugin", func() bool { return len(calls(t, dir, "context:prepare")) == 1 })
	require.NoError(t, syscall.Kill(pid, syscall.SIGKILL))
	select {
	case err := <-errc:
		t.Logf("call during the crash: %v", err)
		require.ErrorIs(t, err, ErrCrashed, "call during the crash: err, want ErrCrashed naming the plugin")
		require.Contains(t, err.Error(), `"release-notes"`, "call during the crash: err, want ErrCrashed naming the plugin")
	case <-time.After(5 * time.Second):
		t.Fatal("the call did not return after the plugin died")
	}
	// The call's error and the skills stream may notice the death first;
	// whichever does logs and invalidates, perhaps just after the call
	// returned.
	assert.Eventually(t, func() bool {
		return strings.Contains(rec.String(), "level=WARN msg=\"plugin died; it is restarted on its next use\"")
	}, 5*time.Second, 5*time.Millisecond, "no warning logged")
	assert.Eventually(t, func() bool { return invalidated.Load() > 0 }, 5*time.Second, 5*time.Millisecond, "the crash did not invalidate the plugin's skills")
	os.Remove(stall)

	// While the backoff runs: fast errors, last known skills, incomplete.
	t0 := time.Now()
	_, err := prepare(ctx, prepareIn("release-notes"))
	t.Logf("call during the backoff: %v", err)
	require.ErrorIs(t, err, ErrDown, "call during the backoff")
	took := time.Since(t0)
	assert.LessOrEqual(t, took, 100*time.Millisecond, "a call to a down plugin took")
	set, err := c.Skills(ctx)
	require.NoError(t, err, "Skills while down = %+v; want the last known skill, incomplete, with a warning", set)
	require.True(t, set.Incomplete, "Skills while down = %+v; want the last known skill, incomplete, with a warning", set)
	require.Len(t, set.Skills, 1, "Skills while down = %+v; want the last known skill, incomplete, with a warning", set)
	require.Equal(t, "release-notes", set.Skills[0].Name, "Skills while down = %+v; want the last known skill, incomplete, with a warning", set)
	require.NotEmpty(t, set.Warnings, "Skills while down = %+v; want the last known skill, incomplete, with a warning", set)
	proctest.Eventually(t, 2*time.Second, "the killed plugin to be gone", func() bool { return !proctest.Alive(pid) })

	// After the backoff: the next use restarts it.
	time.Sleep(time.Until(t0.Add(backoff)))
	proctest.Eventually(t, 5*time.Second, "the restarted plugin to answer", func() bool {
		res, err := prepare(ctx, prepareIn("release-notes"))
		return err == nil && res.Handled
	})
	st := c.Status()
	assert.NotZero(t, st.PID, "after restart: %+v (old pid %d)", st, pid)
	assert.NotEqual(t, pid, st.PID, "after restart: %+v (old pid %d)", st, pid)
	assert.Equal(t, 1, st.Restarts, "after restart: %+v (old pid %d)", st, pid)
	assert.True(t, proctest.Alive(st.PID), "after restart: %+v (old pid %d)", st, pid)
	set, err = c.Skills(ctx)
	assert.NoError(t, err, "Skills after restart = %+v", set)
	assert.False(t, set.Incomplete, "Skills after restart = %+v", set)
	assert.Len(t, set.Skills, 1, "Skills after restart = %+v", set)
}

// A handler that does not answer costs its call deadline and nothing more:
// the plugin is not restarted and answers the next call.
func TestHangHitsDeadline(t *testing.T) {
	dir, env := debugDir(t)
	const timeout = 300 * time.Millisecond
	c := launch(t, Config{Env: []string{env}, CallTimeout: timeout})
	prepare := mountOn(t, c, "context:prepare")
	pid := c.Status().PID
	require.NoError(t, os.WriteFile(filepath.Join(dir, "stall"), nil, 0o644))
	t0 := time.Now()
	_, err := prepare(context.Background(), prepareIn("release-notes"))
	took := time.Since(t0)
	require.ErrorIs(t, err, context.DeadlineExceeded, "err, want a deadline naming callTimeout")
	require.Contains(t, err.Error(), "callTimeout", "err, want a deadline naming callTimeout")
	assert.GreaterOrEqual(t, took, timeout, "the hung call took %v with a %v deadline", took, timeout)
	assert.LessOrEqual(t, took, timeout+2*time.Second, "the hung call took %v with a %v deadline", took, timeout)
	os.Remove(filepath.Join(dir, "stall"))
	res, err := prepare(context.Background(), prepareIn("release-notes"))
	require.NoError(t, err, "next call: %+v", res)
	require.True(t, res.Handled, "next call: %+v", res)
	st := c.Status()
	assert.Equal(t, pid, st.PID, "a hang restarted the plugin: %+v (pid was)", st)
	assert.Zero(t, st.Restarts, "a hang restarted the plugin: %+v (pid was)", st)
}

// Close kills the plugin, even in the middle of a hung call, and no
// process is left.
func TestCloseLeavesNoProcess(t *testing.T) {
	dir, env := debugDir(t)
	c := launch(t, Config{Env: []string{env}, CallTimeout: time.Minute})
	pid := c.Status().PID
	require.NoError(t, os.WriteFile(filepath.Join(dir, "stall"), nil, 0o644))
	errc := make(chan error, 1)
	go func() {
		_, err := mountOn(t, c, "context:prepare")(context.Background(), prepareIn())
		errc <- err
	}()
	proctest.Eventually(t, 5*time.Second, "the call to reach the plugin", func() bool { return len(calls(t, dir, "context:prepare")) == 1 })
	require.NoError(t, c.Close())
	assert.False(t, proctest.Alive(pid), "plugin %d still running after Close", pid)
	select {
	case err := <-errc:
		assert.Error(t, err, "the hung call succeeded")
	case <-time.After(5 * time.Second):
		t.Fatal("the hung call did not return after Close")
	}
	_, err := mountOn(t, c, "context:prepare")(context.Background(), prepareIn())
	assert.ErrorIs(t, err, ErrClosed, "call after Close")
	assert.NoError(t, c.Close(), "second Close")
}

// A kernel killed with SIGKILL runs no Close; its plugin must still go:
// through the parent-death signal on Linux, and through the SDK's own
// parent watch where there is none.
func TestHostKilledLeavesNoPlugin(t *testing.T) {
	for _, mode := range []string{"pdeathsig", "watch"} {
		t.Run(mode, func(t *testing.T) {
			host, pid := startHelperHost(t, mode)
			require.True(t, proctest.Alive(pid), "plugin %d not running", pid)
			require.NoError(t, host.Process.Signal(syscall.SIGKILL))
			host.Wait()
			proctest.Eventually(t, 3*time.Second, "the orphaned plugin to exit", func() bool { return !proctest.Alive(pid) })
		})
	}
}

// "Skills changed" travels from the plugin's folder watch to the kernel's
// invalidate; until then the last answer is served without asking.
func TestSkillsChangedInvalidates(t *testing.T) {
	dir := ownCopy(t)
	c := launch(t, Config{Command: filepath.Join(dir, "release-notes")})
	changed := make(chan struct{}, 16)
	require.NoError(t, c.Watch(func() { changed <- struct{}{} }, make(chan struct{})), "Watch")
	ctx := context.Background()
	names := func() []string {
		set, err := c.Skills(ctx)
		require.NoError(t, err)
		var out []string
		for _, s := range set.Skills {
			out = append(out, s.Name)
		}
		return out
	}
	require.Empty(t, cmp.Diff([]string{"release-notes"}, names()))
	select {
	case <-changed:
		t.Fatal("invalidated with nothing changed")
	case <-time.After(200 * time.Millisecond):
	}
	skill := filepath.Join(dir, "skills", "hotfix-notes", "SKILL.md")
	os.MkdirAll(filepath.Dir(skill), 0o755)
	require.NoError(t, os.WriteFile(skill, []byte("---\nname: hotfix-notes\ndescription: Notes for a hotfix release.\n---\nBody.\n"), 0o644))
	select {
	case <-changed:
	case <-time.After(5 * time.Second):
		t.Fatal("the plugin never said its skills changed")
	}
	assert.Empty(t, cmp.Diff([]string{"hotfix-notes", "release-notes"}, names()), "after the change (-want +got)")
}

// A skill load goes over the wire every time: an edit shows at once.
func TestLoadSkillReadsEveryTime(t *testing.T) {
	dir := ownCopy(t)
	c := launch(t, Config{Command: filepath.Join(dir, "release-notes")})
	set, err := c.Skills(context.Background())
	require.NoError(t, err)
	require.Len(t, set.Skills, 1, "skills = %+v", set)
	load := set.Skills[0].Load
	first, err := load(context.Background())
	require.NoError(t, err, "load = %+v", first)
	require.Equal(t, "release-notes", first.Name, "load = %+v", first)
	require.Contains(t, first.Body, "scripts/collect.sh", "load = %+v", first)
	file := filepath.Join(dir, "skills", "release-notes", "SKILL.md")
	data, _ := os.ReadFile(file)
	require.NoError(t, os.WriteFile(file, []byte(strings.Replace(string(data), "# Release notes", "# Release notes, edited", 1)), 0o644))
	second, err := load(context.Background())
	require.NoError(t, err, "load after edit = %+v", second)
	require.Contains(t, second.Body, "# Release notes, edited", "load after edit = %+v", second)
}

// Messages past gRPC's 4 MiB server default cross in both directions.
func TestLargeMessages(t *testing.T) {
	c := launch(t, Config{})
	tools, err := c.Tools(context.Background())
	require.NoError(t, err)
	var log strings.Builder
	log.WriteString("since: v1.0.0\n")
	for i := 0; log.Len() < 6<<20; i++ {
		log.WriteString("abc1234 feat: a feature with a fairly long subject line to fill the log quickly\n")
	}
	args, _ := json.Marshal(map[string]string{"version": "v2.0.0", "log": log.String()})
	res, err := tools[0].Call(context.Background(), args)
	require.NoError(t, err, "a %d-byte call", len(args))
	require.False(t, res.IsError, "a %d-byte call", len(args))
	assert.GreaterOrEqual(t, len(res.Content), 4<<20, "result: %d bytes, %.40q", len(res.Content), res.Content)
	assert.True(t, strings.HasPrefix(res.Content, "# v2.0.0"), "result: %d bytes, %.40q", len(res.Content), res.Content)
}
