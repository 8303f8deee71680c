package unit_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// C11: `helios skills watch` keeps publishing with `loop -> loop` in a root:
// the loop is a permanent error, so the catalog is complete and every later
// change is published.
func TestSkillsIOCLIWatchKeepsPublishingWithSymlinkLoop(t *testing.T) {
	work, home := t.TempDir(), t.TempDir()
	root := filepath.Join(work, ".helios", "skills")
	writeFile(t, filepath.Join(root, "alpha", "SKILL.md"), skillMD("name: alpha\ndescription: First.", "body"))
	require.NoError(t, os.Symlink("loop", filepath.Join(root, "loop")))

	cmd, next := startSkillsWatch(t, work, home, 15*time.Second)
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	first := next("the first catalog")
	assert.True(t, first.Complete, "the first catalog is complete despite the loop: %+v", first)
	require.Len(t, first.Skills, 1)
	writeFile(t, filepath.Join(root, "gamma", "SKILL.md"), skillMD("name: gamma\ndescription: Third.", "body"))
	ev := next("gamma's arrival")
	assert.Equal(t, "change", ev.Event)
	assert.Equal(t, []string{"gamma"}, ev.Added)
	require.NoError(t, os.Symlink("loop2", filepath.Join(root, "loop2")))
	writeFile(t, filepath.Join(root, "delta", "SKILL.md"), skillMD("name: delta\ndescription: Fourth.", "body"))
	ev = next("delta's arrival beside a second loop")
	assert.Equal(t, []string{"delta"}, ev.Added)
}

// C11: `helios skills list` over a root holding a 300 MB SKILL.md (a
// frontmatter, then a long body) stays under 64 MB of peak RSS: discovery
// reads only the frontmatter.
func TestSkillsIOCLIListHugeSkillPeakRSS(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 300 MB sparse file")
	}
	work, home := t.TempDir(), t.TempDir()
	file := filepath.Join(work, ".helios", "skills", "huge", "SKILL.md")
	writeFile(t, filepath.Join(work, ".helios", "skills", "small", "SKILL.md"), skillMD("name: small\ndescription: Small.", "body"))
	// The body's first 4 MiB are text; the rest of the 300 MB is a hole (it
	// reads as zero bytes, as a real file's content would be read).
	f, err := os.Create(filepath.Join(mustMkdir(t, filepath.Dir(file)), "SKILL.md"))
	require.NoError(t, err)
	w := bufio.NewWriter(f)
	fmt.Fprint(w, "---\nname: huge\ndescription: A skill with a 300 MB body.\n---\n")
	line := "Step: run the build, then check the artifacts against the list in references/.\n"
	for n := 0; n < 4<<20; n += len(line) {
		w.WriteString(line)
	}
	require.NoError(t, w.Flush())
	require.NoError(t, f.Truncate(300<<20))
	require.NoError(t, f.Close())

	// A child's peak RSS counts the memory of the process that started it
	// (Linux carries the starter's high-water mark across exec), and this
	// test process is large (-race): helios is started by peakrss, a small
	// program that reports the peak.
	outFile := filepath.Join(t.TempDir(), "list.json")
	cmd := exec.Command(peakRSSBin, outFile, heliosBin(), "--work-dir", work, "skills", "list", "--json")
	cmd.Env = append(os.Environ(), "HOME="+home)
	report, err := cmd.Output()
	require.NoError(t, err)
	var helper, peak int64
	_, err = fmt.Sscanf(string(report), "%d %d", &helper, &peak)
	require.NoError(t, err, "helper said %q", report)
	out, err := os.ReadFile(outFile)
	require.NoError(t, err)
	assert.Contains(t, string(out), `"name": "huge"`, "the huge skill is listed, not skipped")
	// (The starter's own figure carries this process's high-water mark; the
	// command's carries only the starter's fresh memory.)
	t.Logf("helios skills list over a 300 MB SKILL.md: peak RSS %.1f MB (its starter's: %.1f MB)", float64(peak)/(1<<20), float64(helper)/(1<<20))
	assert.Less(t, peak, int64(64<<20), "peak RSS %d bytes", peak)
}

func mustMkdir(t *testing.T, dir string) string {
	t.Helper()
	require.NoError(t, os.MkdirAll(dir, 0o755))
	return dir
}

// Issue 11: concurrency never changes an outcome: the same tree gives
// byte-identical `skills list --json` at GOMAXPROCS 1, 2 and 8 (skills,
// duplicates, warnings, bad entries).
func TestSkillsIOCLIListSameAtAnyGOMAXPROCS(t *testing.T) {
	work, home := t.TempDir(), t.TempDir()
	root := filepath.Join(work, ".helios", "skills")
	for i := range 300 {
		name := fmt.Sprintf("skill-%03d", i)
		fm := fmt.Sprintf("name: %s\ndescription: Skill number %d.", name, i)
		switch i % 10 {
		case 1:
			fm = fmt.Sprintf("name: skill-%03d\ndescription: A duplicate of %d.", i-1, i-1) // same name as the previous
		case 2:
			fm = fmt.Sprintf("name: %s", name) // no description: skipped
		case 3:
			fm = fmt.Sprintf("name: Bad_%d\ndescription: \"quoted \\\"%d\\\"\"\nunknown: x", i, i) // warnings
		}
		writeFile(t, filepath.Join(root, name, "SKILL.md"), skillMD(fm, "body\n"))
	}
	require.NoError(t, os.Symlink("loop", filepath.Join(root, "loop")))
	writeFile(t, filepath.Join(root, "empty", "README"), "no skill here")
	writeFile(t, filepath.Join(root, "flat.md"), skillMD("name: flat\ndescription: A flat skill.", ""))

	var first string
	for _, procs := range []string{"1", "2", "8"} {
		cmd := exec.Command(heliosBin(), "--work-dir", work, "skills", "list", "--json")
		cmd.Env = append(os.Environ(), "HOME="+home, "GOMAXPROCS="+procs)
		out, err := cmd.Output()
		require.NoError(t, err)
		require.True(t, strings.Contains(string(out), `"warnings"`))
		if first == "" {
			first = string(out)
			continue
		}
		assert.Equal(t, first, string(out), "GOMAXPROCS=%s changes the output", procs)
	}
}
