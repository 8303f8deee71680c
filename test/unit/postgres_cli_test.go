package unit_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/assembly"
	"github.com/helios-agents/helios/internal/pgtest"
	"github.com/helios-agents/helios/kernel/session"
	"github.com/helios-agents/helios/provider/modeltest"
)

// pgURLEnv is the variable the test configs name in sessions.postgres.urlEnv.
const pgURLEnv = "HELIOS_TEST_SESSIONS_DB"

// pgConfig writes a config using the postgres session store.
func pgConfig(t *testing.T, dir, modelURL string) {
	writeFile(t, filepath.Join(dir, "helios.config.json"), `{
  "workDir": ".",
  "skills": {"userRoots": []},
  "model": {"baseURL": "`+modelURL+`", "name": "scripted", "apiKeyEnv": ""},
  "sessions": {"store": "postgres", "postgres": {"urlEnv": "`+pgURLEnv+`", "maxConns": 4}}
}`)
}

// Two helios processes resume one session: the first holds it, the second
// is refused at once naming the holder and exits 1; `sessions show` reads
// it meanwhile, and `sessions list` sees the result.
func TestPostgresCLIOneWriter(t *testing.T) {
	url, _ := pgtest.Schema(t)
	t.Setenv(pgURLEnv, url)
	home, dir := t.TempDir(), t.TempDir()
	entered, release := make(chan struct{}), make(chan struct{})
	srv := modeltest.NewServer(t,
		modeltest.Say("first answer"),
		func(modeltest.Recorded) modeltest.Reply {
			close(entered)
			<-release
			return modeltest.Reply{Text: "second answer"}
		},
	)
	defer func() {
		select {
		case <-release:
		default:
			close(release)
		}
	}()
	pgConfig(t, dir, srv.URL())

	r := helios(t, home, dir, "--config", filepath.Join(dir, "helios.config.json"), "run", "hello")
	require.Equal(t, 0, r.code, "helios run: %s", r.stderr)
	m := regexp.MustCompile(`session (\S+) \(helios run --resume`).FindStringSubmatch(r.stdout)
	require.NotNil(t, m, "no session id in:\n%s", r.stdout)
	id := m[1]

	first := exec.Command(heliosBin(), "--config", filepath.Join(dir, "helios.config.json"), "run", "--resume", id, "again")
	first.Dir, first.Env = dir, append(os.Environ(), "HOME="+home)
	var firstOut, firstErr bytes.Buffer
	first.Stdout, first.Stderr = &firstOut, &firstErr
	require.NoError(t, first.Start())
	select {
	case <-entered: // the first process holds the session and waits for the model
	case <-time.After(60 * time.Second):
		first.Process.Kill()
		first.Wait()
		t.Fatalf("the first resume never reached the model:\n%s", firstErr.String())
	}

	start := time.Now()
	second := helios(t, home, dir, "--config", filepath.Join(dir, "helios.config.json"), "run", "--resume", id, "meanwhile")
	assert.Less(t, time.Since(start), 30*time.Second)
	t.Logf("the second process said: %s", second.stderr)
	assert.Equal(t, 1, second.code, "stdout:\n%s\nstderr:\n%s", second.stdout, second.stderr)
	host, err := os.Hostname()
	require.NoError(t, err)
	assert.Regexp(t, regexp.QuoteMeta(fmt.Sprintf("%q: the session is open for writing by pid %d on host %s since ", id, first.Process.Pid, host))+`\d{4}-\d\d-\d\dT`, second.stderr)

	show := helios(t, home, dir, "--config", filepath.Join(dir, "helios.config.json"), "sessions", "show", id)
	assert.Equal(t, 0, show.code, "sessions show while another process writes: %s", show.stderr)
	assert.Contains(t, show.stdout, "first answer")

	close(release)
	require.NoError(t, first.Wait(), "the first resume:\n%s\n%s", firstOut.String(), firstErr.String())
	assert.Contains(t, firstOut.String(), "second answer")

	var shown struct {
		Events []session.Event `json:"events"`
	}
	show = helios(t, home, dir, "--config", filepath.Join(dir, "helios.config.json"), "--json", "sessions", "show", id)
	require.Equal(t, 0, show.code, show.stderr)
	require.NoError(t, json.Unmarshal([]byte(show.stdout), &shown))
	var said []string
	for i, e := range shown.Events {
		assert.Equal(t, int64(i+1), e.Seq)
		if e.Type == session.User || e.Type == session.Assistant {
			said = append(said, e.Text)
		}
	}
	assert.Equal(t, []string{"hello", "first answer", "again", "second answer"}, said)

	var listed struct {
		Sessions []session.Info `json:"sessions"`
	}
	list := helios(t, home, dir, "--config", filepath.Join(dir, "helios.config.json"), "--json", "sessions", "list")
	require.Equal(t, 0, list.code, list.stderr)
	require.NoError(t, json.Unmarshal([]byte(list.stdout), &listed))
	require.Len(t, listed.Sessions, 1)
	assert.Equal(t, id, listed.Sessions[0].ID)
	assert.Equal(t, "hello", listed.Sessions[0].Title)
	assert.Equal(t, len(shown.Events), listed.Sessions[0].Events)
}

// Without the URL variable, a command that needs the store fails naming
// it; commands that need none work.
func TestPostgresCLIMissingURL(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	pgConfig(t, dir, "http://127.0.0.1:1/v1")
	t.Setenv(pgURLEnv, "")
	r := helios(t, home, dir, "--config", filepath.Join(dir, "helios.config.json"), "sessions", "list")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, pgURLEnv)
	assert.Contains(t, r.stderr, "sessions.postgres.urlEnv")
	r = helios(t, home, dir, "--config", filepath.Join(dir, "helios.config.json"), "skills", "list")
	assert.Equal(t, 0, r.code, r.stderr)
}

// The store's keys are checked like every other: an unknown store or a
// negative pool size is an error naming the key.
func TestPostgresConfigKeys(t *testing.T) {
	for _, tc := range []struct{ sessions, want string }{
		{`{"store": "sqlite"}`, `sessions.store: unknown value "sqlite" (want one of jsonl, postgres)`},
		{`{"store": "postgres", "postgres": {"maxConns": -1}}`, "sessions.postgres.maxConns: must not be negative"},
		{`{"store": "postgres", "postgres": {"url": "postgres://x"}}`, "sessions.postgres.url: unknown key"},
	} {
		dir := t.TempDir()
		path := filepath.Join(dir, "helios.config.json")
		writeFile(t, path, `{"sessions": `+tc.sessions+`}`)
		_, err := assembly.Load(t.Context(), path, assembly.Options{WorkDir: dir})
		require.Error(t, err, tc.sessions)
		assert.Contains(t, err.Error(), tc.want)
	}
}

// Only the assembly imports the PostgreSQL store; the rest of the kernel
// never depends on the driver.
func TestPostgresStoreOnlyInAssembly(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-json=ImportPath,Imports,Deps", module+"/...").Output()
	require.NoError(t, err)
	store := module + "/store/postgres"
	dec := json.NewDecoder(bytes.NewReader(out))
	importers := 0
	for dec.More() {
		var p struct {
			ImportPath    string
			Imports, Deps []string
		}
		require.NoError(t, dec.Decode(&p))
		if !strings.HasPrefix(p.ImportPath, module+"/") || p.ImportPath == store {
			continue
		}
		if slices.Contains(p.Imports, store) {
			importers++
			assert.Equal(t, module+"/assembly", p.ImportPath, "only the assembly may import %s", store)
		}
		if under(p.ImportPath, "kernel") {
			for _, d := range p.Deps {
				assert.False(t, strings.HasPrefix(d, "github.com/jackc/"), "%s depends on %s", p.ImportPath, d)
			}
		}
	}
	assert.Equal(t, 1, importers)
}

// The interactive UI runs unchanged on the PostgreSQL store: the session
// it names on exit is in the database.
func TestPostgresTUI(t *testing.T) {
	url, _ := pgtest.Schema(t)
	t.Setenv(pgURLEnv, url)
	home, work := asmTempDir(t), asmTempDir(t)
	srv := modeltest.NewServer(t, modeltest.Say("Stored in PostgreSQL."))
	pgConfig(t, work, srv.URL())
	ui := tuiStart(t, home, work)
	ui.waitScreen(t, "the status line", func(s string) bool { return strings.Contains(s, "model scripted") })
	ui.typ(t, "remember this\r")
	ui.waitScreen(t, "the answer", func(s string) bool { return strings.Contains(s, "Stored in PostgreSQL.") })
	ui.typ(t, "\x03")
	ui.waitExit(t)
	after := string(ui.rawAfterAltScreen())
	i := strings.Index(after, "session ")
	require.True(t, i >= 0 && strings.Contains(after, "--resume"), "output after the UI = %q; want the session named", after)
	id := strings.Fields(after[i:])[1]

	var shown struct {
		Events []session.Event `json:"events"`
	}
	show := helios(t, home, work, "--config", filepath.Join(work, "helios.config.json"), "--json", "sessions", "show", id)
	require.Equal(t, 0, show.code, show.stderr)
	require.NoError(t, json.Unmarshal([]byte(show.stdout), &shown))
	var said []string
	for _, e := range shown.Events {
		if e.Type == session.User || e.Type == session.Assistant {
			said = append(said, e.Text)
		}
	}
	assert.Equal(t, []string{"remember this", "Stored in PostgreSQL."}, said)
}
