package unit_test

// Contract C13: the catalog budget.

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/assembly"
	"github.com/helios-agents/helios/kernel/skills"
)

func budSkill(name, source, desc string) skills.Skill {
	return skills.Skill{Name: name, Source: source, Description: desc, BaseDir: "/s/" + source + "/" + name,
		Load: func(context.Context) (skills.Content, error) {
			return skills.Content{Name: name, Body: "Body of " + name + "."}, nil
		}}
}

// budLogs collects log records.
type budLogs struct {
	mu   sync.Mutex
	recs []string
}

func (h *budLogs) Enabled(context.Context, slog.Level) bool { return true }

func (h *budLogs) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Level.String() + " " + r.Message)
	r.Attrs(func(a slog.Attr) bool { b.WriteString(" " + a.String()); return true })
	h.mu.Lock()
	h.recs = append(h.recs, b.String())
	h.mu.Unlock()
	return nil
}

func (h *budLogs) WithAttrs([]slog.Attr) slog.Handler { return h }

func (h *budLogs) WithGroup(string) slog.Handler { return h }

func (h *budLogs) count(sub string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, r := range h.recs {
		if strings.Contains(r, sub) {
			n++
		}
	}
	return n
}

// C13: `helios skills catalog` prints exactly the message the model would
// receive, then the summary; --json gives the summary's keys.
func TestCatalogBudgetCLI(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, ".helios", "skills")
	for i := range 20 {
		catWriteSkill(t, root, fmt.Sprintf("skill-%02d", i), "Does task "+fmt.Sprint(i)+" when the user asks for it.", "body")
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "helios.config.json"),
		[]byte(`{"skills":{"userRoots":[],"catalog":{"budget":300,"pinned":["skill-19","ghost"]}}}`), 0o644))
	k, err := assembly.Load(context.Background(), filepath.Join(dir, "helios.config.json"), assembly.Options{WorkDir: dir})
	require.NoError(t, err)
	want := k.CatalogView(k.Catalog(context.Background()))
	k.Close()
	require.NotEmpty(t, want.Summary.Omitted)

	cfg := filepath.Join(dir, "helios.config.json")
	out, code := budHelios(t, dir, "--config", cfg, "skills", "catalog")
	require.Equal(t, 0, code, out)
	assert.True(t, strings.HasPrefix(out, want.Message+"\n"), "the output starts with the exact message:\n%s", out)
	assert.Contains(t, out, fmt.Sprintf("budget 300 characters, used %d", want.Summary.Used))

	out, code = budHelios(t, dir, "--config", cfg, "--json", "skills", "catalog")
	require.Equal(t, 0, code, out)
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	for _, key := range []string{"budget", "used", "total", "included", "shortened", "omitted", "message"} {
		assert.Contains(t, got, key)
	}
	assert.Equal(t, want.Message, got["message"])
	assert.EqualValues(t, 300, got["budget"])
	assert.EqualValues(t, 20, got["total"])
	assert.Len(t, got["omitted"], len(want.Summary.Omitted))

	out, code = budHelios(t, dir, "--config", cfg, "skills", "list")
	require.Equal(t, 0, code, out)
	assert.Contains(t, out, "skills.catalog.budget")
	assert.Contains(t, out, `pinned skill "ghost" is not in the catalog`)
}

// budHelios runs the CLI binary the suite builds, in dir, with an empty
// HOME; it returns stdout (stderr when stdout is empty) and the exit code.
func budHelios(t *testing.T, dir string, args ...string) (string, int) {
	t.Helper()
	r := helios(t, t.TempDir(), dir, args...)
	if r.stdout == "" {
		return r.stderr, r.code
	}
	return r.stdout, r.code
}
