package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func realTemp(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	return d
}

// Protects: the plan of the protected mounts: each protected name at the
// top of every root (resolved: a symlinked config protects its target when
// that lies in a root, and nothing when it lies outside, where Landlock
// keeps it read-only), the skills folders writable again after their
// read-only parent, home's .helios when home lies in a root, and the
// "gitdir:" target of a .git file. A missing .git is planned (and made
// empty only when create is set).
func TestProtectedMountsPlan(t *testing.T) {
	work, other, outside := realTemp(t), realTemp(t), realTemp(t)
	home := filepath.Join(work, "home")
	for _, d := range []string{".helios/skills", ".agents", "meta/gitdir", "home/.helios/skills"} {
		require.NoError(t, os.MkdirAll(filepath.Join(work, d), 0o755))
	}
	require.NoError(t, os.WriteFile(filepath.Join(work, ".git"), []byte("gitdir: meta/gitdir\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(work, "real.json"), []byte("{}"), 0o644))
	require.NoError(t, os.Symlink("real.json", filepath.Join(work, "helios.config.json")))
	require.NoError(t, os.WriteFile(filepath.Join(outside, "cfg.json"), []byte("{}"), 0o644))
	require.NoError(t, os.Symlink(filepath.Join(outside, "cfg.json"), filepath.Join(other, "helios.config.json")))

	got, err := protectedMounts([]string{work, other}, home, false)
	require.NoError(t, err)
	assert.Equal(t, []protectMount{
		{Path: filepath.Join(other, ".git")},
		{Path: filepath.Join(work, ".agents")},
		{Path: filepath.Join(work, ".git")},
		{Path: filepath.Join(work, ".helios")},
		{Path: filepath.Join(work, ".helios/skills"), Writable: true},
		{Path: filepath.Join(work, "home/.helios")},
		{Path: filepath.Join(work, "home/.helios/skills"), Writable: true},
		{Path: filepath.Join(work, "meta/gitdir")},
		{Path: filepath.Join(work, "real.json")},
	}, sortedByRoot(got, other))
	assert.NoDirExists(t, filepath.Join(other, ".git"), "a report made a folder")

	_, err = protectedMounts([]string{work, other}, home, true)
	require.NoError(t, err)
	assert.DirExists(t, filepath.Join(other, ".git"))
}

// sortedByRoot puts the mounts under first before the others (the temp
// dirs' names decide the plan's order, the test's must not depend on it).
func sortedByRoot(ms []protectMount, first string) []protectMount {
	var a, b []protectMount
	for _, m := range ms {
		if _, ok := within(first, m.Path); ok {
			a = append(a, m)
		} else {
			b = append(b, m)
		}
	}
	return append(a, b...)
}

// Protects: the config check's notion of a protected path: the top-level
// names of a root and home's .helios, never a skills folder or a deeper
// name.
func TestProtectedPath(t *testing.T) {
	roots, home := []string{"/w", "/x"}, "/h"
	for p, want := range map[string]string{
		"/w/.git":                 "/w/.git",
		"/w/.git/hooks":           "/w/.git",
		"/x/helios.config.json":   "/x/helios.config.json",
		"/w/.helios":              "/w/.helios",
		"/w/.agents/other":        "/w/.agents",
		"/h/.helios/trust.json":   "/h/.helios",
		"/w/.helios/skills/a":     "",
		"/h/.helios/skills":       "",
		"/h/.agents/x":            "",
		"/w/sub/.git":             "",
		"/w":                      "",
		"/elsewhere/.git":         "",
		"/w/helios.config.json.d": "",
	} {
		got, ok := protectedPath(p, roots, home)
		assert.Equal(t, want, got, p)
		assert.Equal(t, want != "", ok, p)
	}
}
