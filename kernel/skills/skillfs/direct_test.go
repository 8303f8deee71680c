package skillfs_test

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/kernel/skills/skillfs"
)

// viaFS is the local file system under another type: a DirSource reads
// every FS, OSFS included, the one way (FS.Open, Stat, Read, Close).
type viaFS struct{ skillfs.OSFS }

// Protects: the reads of a local root (OSFS) reach exactly the outcome of
// any other FS over the same files, entry by entry — the same skills, the
// same warnings word for word, in the same order, for every kind of entry a
// root can hold: a FIFO or a folder where SKILL.md should be, symlinks
// (good, broken, looping), binary and broken files, a lower-case skill.md,
// flat files, and names taken twice.
func TestDirSourceDirectReadsMatchFS(t *testing.T) {
	root := t.TempDir()
	md := func(name, desc string) string {
		return "---\nname: " + name + "\ndescription: " + desc + "\n---\nBody.\n"
	}
	write := func(rel, content string) {
		p := filepath.Join(root, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	write("good/SKILL.md", md("good", "A good skill."))
	write("lower/skill.md", md("lower", "Lower-case file name."))
	write("both/SKILL.md", md("both", "Upper wins."))
	write("both/skill.md", md("both", "Lower loses."))
	write("binary/SKILL.md", "---\nname: binary\x00\x01\x02\n---\n")
	write("unclosed/SKILL.md", "---\nname: unclosed\ndescription: never closed\n")
	write("badyaml/SKILL.md", "---\nname: [x\ndescription: y\n---\n")
	write("nodesc/SKILL.md", "---\nname: nodesc\n---\n")
	write("twin/SKILL.md", md("good", "Takes a name already taken."))
	write("other/SKILL.md", md("renamed", "Name differs from the folder."))
	write("flat.md", md("flat", "A flat skill."))
	write("notes.txt", "not a skill")
	write(".hidden/SKILL.md", md("hidden", "Never read."))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "empty"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "dirmd", "SKILL.md"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "fifo"), 0o755))
	require.NoError(t, syscall.Mkfifo(filepath.Join(root, "fifo", "SKILL.md"), 0o644))
	require.NoError(t, os.Symlink(filepath.Join(root, "good"), filepath.Join(root, "link")))
	require.NoError(t, os.Symlink(filepath.Join(root, "nowhere"), filepath.Join(root, "broken")))
	require.NoError(t, os.Symlink("loop", filepath.Join(root, "loop")))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "filelink"), 0o755))
	require.NoError(t, os.Symlink(filepath.Join(root, "flat.md"), filepath.Join(root, "filelink", "SKILL.md")))

	read := func(fsys skillfs.FS) (skills.Set, []skills.Skill) {
		src := &skillfs.DirSource{FS: fsys, Source: skills.SourceUser, Roots: []string{root}}
		set, err := src.Skills(context.Background())
		require.NoError(t, err)
		plain := make([]skills.Skill, len(set.Skills))
		for i, s := range set.Skills {
			s.Load = nil // closures never compare equal
			plain[i] = s
		}
		return set, plain
	}
	direct, directSkills := read(skillfs.OSFS{})
	generic, genericSkills := read(viaFS{})

	// Not an empty comparison: the tree yields skills and warnings of
	// every kind above.
	require.NotEmpty(t, genericSkills)
	require.GreaterOrEqual(t, len(generic.Warnings), 8, "%v", generic.Warnings)
	assert.Equal(t, genericSkills, directSkills)
	assert.Equal(t, generic.Warnings, direct.Warnings)
	assert.Equal(t, generic.Incomplete, direct.Incomplete)
	var fifo bool
	for _, w := range direct.Warnings {
		fifo = fifo || w.Path == filepath.Join(root, "fifo")
	}
	assert.True(t, fifo, "no warning about the FIFO: %v", direct.Warnings)
}
