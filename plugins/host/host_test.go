package host

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"github.com/helios-agents/helios/internal/proctest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/hooks"
	"github.com/helios-agents/helios/kernel/model"
	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/plugins"
)

// The plugin describes itself from its EXTENSION.md, its hooks, tools and
// skills folder; the skill's base dir is absolute, on disk beside it.
func TestLaunchDescribes(t *testing.T) {
	c := launch(t, Config{})
	st := c.Status()
	if st.PID == 0 || !proctest.Alive(st.PID) || st.Down != nil {
		t.Fatalf("status after launch: %+v", st)
	}
	d := st.Description
	if d.Name != "release-notes" || !strings.HasPrefix(d.Description, "Drafts release notes") {
		t.Errorf("name, description = %q, %q", d.Name, d.Description)
	}
	if got := c.Description(); got != d.Description {
		t.Errorf("Description() = %q", got)
	}
	wantMounts := []plugins.Mount{{Point: "context:prepare"}, {Point: "tool:before", Name: "guard-tags"}}
	if diff := cmp.Diff(wantMounts, d.Mounts); diff != "" {
		t.Errorf("mounts (-want +got):\n%s", diff)
	}
	var names []string
	for _, m := range c.Mounts() {
		names = append(names, m.Point+"="+m.Name)
	}
	if diff := cmp.Diff([]string{"context:prepare=", "tool:before=release-notes/guard-tags"}, names); diff != "" {
		t.Errorf("kernel mounts (-want +got):\n%s", diff)
	}
	set, err := c.Skills(context.Background())
	if err != nil || set.Incomplete || len(set.Skills) != 1 {
		t.Fatalf("Skills = %+v, %v", set, err)
	}
	s := set.Skills[0]
	wantBase := filepath.Join(exampleDir, "skills", "release-notes")
	if s.Name != "release-notes" || s.Source != "capability:release-notes" || s.BaseDir != wantBase {
		t.Errorf("skill = %+v, want base dir %s", s, wantBase)
	}
	if _, err := os.Stat(filepath.Join(s.BaseDir, "scripts", "collect.sh")); err != nil {
		t.Errorf("the skill's script is not where its base dir says: %v", err)
	}
	tools, err := c.Tools(context.Background())
	if err != nil || len(tools) != 1 || tools[0].Name != "release_notes_format" || len(tools[0].Schema) == 0 {
		t.Fatalf("Tools = %+v, %v", tools, err)
	}
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
			res, err := guard(ctx, kernel.ToolBeforeIn{SessionID: "s", Call: model.ToolCall{ID: "1", Name: tt.tool, Arguments: args}})
			if err != nil {
				t.Fatal(err)
			}
			if res.Handled != tt.want.Handled {
				t.Fatalf("handled = %v, want %v (value %#v)", res.Handled, tt.want.Handled, res.Value)
			}
			if !res.Handled {
				if res.Value != nil {
					t.Errorf("a pass carries %#v", res.Value)
				}
				return
			}
			d, ok := res.Value.(kernel.ToolDecision)
			if !ok || !d.Deny || !strings.Contains(d.Reason, "deletes a tag") {
				t.Errorf("decision = %#v", res.Value)
			}
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
	cat := skills.Catalog{Complete: true}
	for _, n := range names {
		cat.Skills = append(cat.Skills, skills.Skill{Name: n, Description: "d", Source: "test"})
	}
	return kernel.PrepareIn{SessionID: "s", Step: 1, Catalog: cat}
}

// The checksum is verified before the process starts: the right one
// launches; a wrong one is refused, naming the plugin and both sums, and
// nothing ran.
func TestChecksum(t *testing.T) {
	bin := filepath.Join(exampleDir, "release-notes")
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	right := hex.EncodeToString(sum[:])

	launch(t, Config{SHA256: strings.ToUpper(right)})

	dir, env := debugDir(t)
	wrong := strings.Repeat("ab", 32)
	_, err = Launch(context.Background(), Config{Name: "notes", Command: bin, SHA256: wrong, Env: []string{env}})
	if !errors.Is(err, ErrChecksum) {
		t.Fatalf("wrong sha256: err = %v, want ErrChecksum", err)
	}
	for _, part := range []string{`"notes"`, right, wrong, bin} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("error %q does not name %s", err, part)
		}
	}
	if got := calls(t, dir, "start"); len(got) != 0 {
		t.Errorf("the refused binary ran anyway: started %v", got)
	}

	if _, err := Launch(context.Background(), Config{Name: "notes", Command: bin, SHA256: "xyz"}); err == nil || !strings.Contains(err.Error(), "64 hex digits") {
		t.Errorf("malformed sha256: err = %v", err)
	}
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
			if err := os.WriteFile(script, []byte("#!/bin/sh\n"+tt.script+"\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			_, err := Launch(context.Background(), Config{Name: "odd", Command: script, StartTimeout: 5 * time.Second, Logger: testLogger(t)})
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), `"odd"`) {
				t.Fatalf("err = %v, want it to name the plugin and say %q", err, tt.want)
			}
		})
	}
}

// The plugin's stderr is re-logged under its name: the SDK's JSON records
// keep their level and message; a raw line is logged as it is. A hostile
// line that would panic go-plugin's own parser does not touch the kernel.
func TestStderrRelogged(t *testing.T) {
	var rec records
	launch(t, Config{Logger: rec.logger()})
	proctest.Eventually(t, 5*time.Second, "the SDK's serving record", func() bool { return strings.Contains(rec.String(), "msg=serving") })
	for line := range strings.Lines(rec.String()) {
		if strings.Contains(line, "msg=serving") {
			for _, want := range []string{"level=DEBUG", "plugin=release-notes", "stream=stderr", "dir="} {
				if !strings.Contains(line, want) {
					t.Errorf("relogged record %q lacks %s", line, want)
				}
			}
		}
	}

	var hostile records
	script := filepath.Join(t.TempDir(), "plugin.sh")
	body := "#!/bin/sh\necho '{\"@message\": 5, \"@level\": []}' >&2\necho 'plain words' >&2\nexit 1\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Launch(context.Background(), Config{Name: "hostile", Command: script, Logger: hostile.logger()}); err == nil {
		t.Fatal("a script that exits launched")
	}
	for _, want := range []string{`msg="{\"@message\": 5, \"@level\": []}" plugin=hostile stream=stderr`, `msg="plain words" plugin=hostile stream=stderr`} {
		if !strings.Contains(hostile.String(), want) {
			t.Errorf("log lacks %s:\n%s", want, hostile.String())
		}
	}
}

// Killing the plugin mid-call costs that call (an error) and the plugin's
// skills their completeness (still listed, with a warning); the next call
// fails fast while the restart backoff runs; after it, the plugin is
// restarted and answers again.
func TestCrashMidCallRestartsAfterBackoff(t *testing.T) {
	dir, env := debugDir(t)
	var rec records
	const backoff = 400 * time.Millisecond
	c := launch(t, Config{Env: []string{env}, RestartBackoff: backoff, Logger: rec.logger()})
	var invalidated atomic.Int32
	if err := c.Watch(func() { invalidated.Add(1) }, make(chan struct{})); err != nil {
		t.Fatalf("Watch: %v", err)
	}
	prepare := mountOn(t, c, "context:prepare")
	ctx := context.Background()
	pid := c.Status().PID

	stall := filepath.Join(dir, "stall")
	if err := os.WriteFile(stall, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() {
		_, err := prepare(ctx, prepareIn("release-notes"))
		errc <- err
	}()
	proctest.Eventually(t, 5*time.Second, "the call to reach the plugin", func() bool { return len(calls(t, dir, "context:prepare")) == 1 })
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errc:
		t.Logf("call during the crash: %v", err)
		if !errors.Is(err, ErrCrashed) || !strings.Contains(err.Error(), `"release-notes"`) {
			t.Fatalf("call during the crash: err = %v, want ErrCrashed naming the plugin", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the call did not return after the plugin died")
	}
	if !strings.Contains(rec.String(), "level=WARN msg=\"plugin died; it is restarted on its next use\"") {
		t.Errorf("no warning logged:\n%s", rec.String())
	}
	if invalidated.Load() == 0 {
		t.Error("the crash did not invalidate the plugin's skills")
	}
	os.Remove(stall)

	// While the backoff runs: fast errors, last known skills, incomplete.
	t0 := time.Now()
	_, err := prepare(ctx, prepareIn("release-notes"))
	t.Logf("call during the backoff: %v", err)
	if !errors.Is(err, ErrDown) {
		t.Fatalf("call during the backoff: err = %v, want ErrDown", err)
	}
	if took := time.Since(t0); took > 100*time.Millisecond {
		t.Errorf("a call to a down plugin took %v", took)
	}
	set, err := c.Skills(ctx)
	if err != nil || !set.Incomplete || len(set.Skills) != 1 || set.Skills[0].Name != "release-notes" || len(set.Warnings) == 0 {
		t.Fatalf("Skills while down = %+v, %v; want the last known skill, incomplete, with a warning", set, err)
	}
	proctest.Eventually(t, 2*time.Second, "the killed plugin to be gone", func() bool { return !proctest.Alive(pid) })

	// After the backoff: the next use restarts it.
	time.Sleep(time.Until(t0.Add(backoff)))
	proctest.Eventually(t, 5*time.Second, "the restarted plugin to answer", func() bool {
		res, err := prepare(ctx, prepareIn("release-notes"))
		return err == nil && res.Handled
	})
	st := c.Status()
	if st.PID == 0 || st.PID == pid || st.Restarts != 1 || !proctest.Alive(st.PID) {
		t.Errorf("after restart: %+v (old pid %d)", st, pid)
	}
	if set, err := c.Skills(ctx); err != nil || set.Incomplete || len(set.Skills) != 1 {
		t.Errorf("Skills after restart = %+v, %v", set, err)
	}
}

// A handler that does not answer costs its call deadline and nothing more:
// the plugin is not restarted and answers the next call.
func TestHangHitsDeadline(t *testing.T) {
	dir, env := debugDir(t)
	const timeout = 300 * time.Millisecond
	c := launch(t, Config{Env: []string{env}, CallTimeout: timeout})
	prepare := mountOn(t, c, "context:prepare")
	pid := c.Status().PID
	if err := os.WriteFile(filepath.Join(dir, "stall"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	_, err := prepare(context.Background(), prepareIn("release-notes"))
	took := time.Since(t0)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "callTimeout") {
		t.Fatalf("err = %v, want a deadline naming callTimeout", err)
	}
	if took < timeout || took > timeout+2*time.Second {
		t.Errorf("the hung call took %v with a %v deadline", took, timeout)
	}
	os.Remove(filepath.Join(dir, "stall"))
	res, err := prepare(context.Background(), prepareIn("release-notes"))
	if err != nil || !res.Handled {
		t.Fatalf("next call: %+v, %v", res, err)
	}
	if st := c.Status(); st.PID != pid || st.Restarts != 0 {
		t.Errorf("a hang restarted the plugin: %+v (pid was %d)", st, pid)
	}
}

// Close kills the plugin, even in the middle of a hung call, and no
// process is left.
func TestCloseLeavesNoProcess(t *testing.T) {
	dir, env := debugDir(t)
	c := launch(t, Config{Env: []string{env}, CallTimeout: time.Minute})
	pid := c.Status().PID
	if err := os.WriteFile(filepath.Join(dir, "stall"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() {
		_, err := mountOn(t, c, "context:prepare")(context.Background(), prepareIn())
		errc <- err
	}()
	proctest.Eventually(t, 5*time.Second, "the call to reach the plugin", func() bool { return len(calls(t, dir, "context:prepare")) == 1 })
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if proctest.Alive(pid) {
		t.Errorf("plugin %d still running after Close", pid)
	}
	select {
	case err := <-errc:
		if err == nil {
			t.Error("the hung call succeeded")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the hung call did not return after Close")
	}
	if _, err := mountOn(t, c, "context:prepare")(context.Background(), prepareIn()); !errors.Is(err, ErrClosed) {
		t.Errorf("call after Close: %v, want ErrClosed", err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// A kernel killed with SIGKILL runs no Close; its plugin must still go:
// through the parent-death signal on Linux, and through the SDK's own
// parent watch where there is none.
func TestHostKilledLeavesNoPlugin(t *testing.T) {
	for _, mode := range []string{"pdeathsig", "watch"} {
		t.Run(mode, func(t *testing.T) {
			host, pid := startHelperHost(t, mode)
			if !proctest.Alive(pid) {
				t.Fatalf("plugin %d not running", pid)
			}
			if err := host.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
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
	if err := c.Watch(func() { changed <- struct{}{} }, make(chan struct{})); err != nil {
		t.Fatalf("Watch: %v", err)
	}
	ctx := context.Background()
	names := func() []string {
		set, err := c.Skills(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, s := range set.Skills {
			out = append(out, s.Name)
		}
		return out
	}
	if diff := cmp.Diff([]string{"release-notes"}, names()); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	select {
	case <-changed:
		t.Fatal("invalidated with nothing changed")
	case <-time.After(200 * time.Millisecond):
	}
	skill := filepath.Join(dir, "skills", "hotfix-notes", "SKILL.md")
	os.MkdirAll(filepath.Dir(skill), 0o755)
	if err := os.WriteFile(skill, []byte("---\nname: hotfix-notes\ndescription: Notes for a hotfix release.\n---\nBody.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	case <-time.After(5 * time.Second):
		t.Fatal("the plugin never said its skills changed")
	}
	if diff := cmp.Diff([]string{"hotfix-notes", "release-notes"}, names()); diff != "" {
		t.Errorf("after the change (-want +got):\n%s", diff)
	}
}

// A skill load goes over the wire every time: an edit shows at once.
func TestLoadSkillReadsEveryTime(t *testing.T) {
	dir := ownCopy(t)
	c := launch(t, Config{Command: filepath.Join(dir, "release-notes")})
	set, err := c.Skills(context.Background())
	if err != nil || len(set.Skills) != 1 {
		t.Fatal(set, err)
	}
	load := set.Skills[0].Load
	first, err := load(context.Background())
	if err != nil || first.Name != "release-notes" || !strings.Contains(first.Body, "scripts/collect.sh") {
		t.Fatalf("load = %+v, %v", first, err)
	}
	file := filepath.Join(dir, "skills", "release-notes", "SKILL.md")
	data, _ := os.ReadFile(file)
	if err := os.WriteFile(file, []byte(strings.Replace(string(data), "# Release notes", "# Release notes, edited", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	second, err := load(context.Background())
	if err != nil || !strings.Contains(second.Body, "# Release notes, edited") {
		t.Fatalf("load after edit = %+v, %v", second, err)
	}
}

// Messages past gRPC's 4 MiB server default cross in both directions.
func TestLargeMessages(t *testing.T) {
	c := launch(t, Config{})
	tools, err := c.Tools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	log.WriteString("since: v1.0.0\n")
	for i := 0; log.Len() < 6<<20; i++ {
		log.WriteString("abc1234 feat: a feature with a fairly long subject line to fill the log quickly\n")
	}
	args, _ := json.Marshal(map[string]string{"version": "v2.0.0", "log": log.String()})
	res, err := tools[0].Call(context.Background(), args)
	if err != nil || res.IsError {
		t.Fatalf("a %d-byte call: %+v, %v", len(args), res.IsError, err)
	}
	if len(res.Content) < 4<<20 || !strings.HasPrefix(res.Content, "# v2.0.0") {
		t.Errorf("result: %d bytes, %.40q", len(res.Content), res.Content)
	}
}
