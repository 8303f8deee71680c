package unit_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/helios-agents/helios/assembly"
	"github.com/helios-agents/helios/internal/testkit"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/mcpserver"
)

// One bound for frontmatter everywhere (issue 22): what `helios mcp`
// re-encodes (skills/list, skills/get) obeys discovery's limit
// (skills.maxFrontmatter): only the head of a SKILL.md is read, and what
// YAML aliases add when they are followed is held to the same limit.

// aliasBomb is a 1 KB frontmatter whose metadata expands to 9^levels
// strings: at 9 levels a "billion laughs". Discovery, which never follows
// aliases, lists it.
func aliasBomb(name string, levels int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "name: %s\ndescription: A skill whose metadata is a billion laughs.\nmetadata:\n", name)
	b.WriteString("  a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n")
	prev := "a"
	for _, c := range "bcdefghi"[:levels-1] {
		fmt.Fprintf(&b, "  %c: &%c [", c, c)
		for i := range 9 {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString("*" + prev)
		}
		b.WriteString("]\n")
		prev = string(c)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// mcpEntries returns skills/list's entries by name and its warnings.
func mcpEntries(t testing.TB, cs *mcp.ClientSession) (map[string]mcpserver.SkillEntry, string) {
	t.Helper()
	list := mcpSkillsList(t, cs)
	out := map[string]mcpserver.SkillEntry{}
	for _, e := range list.Skills {
		out[e.Frontmatter["name"].(string)] = e
	}
	warns, _ := json.Marshal(list.Meta[mcpserver.WarningsMeta])
	return out, string(warns)
}

// In process, with skills.maxFrontmatter at 2 KiB: a small bomb (9^5
// strings, a few megabytes expanded: in process, a regression must not
// take the machine down; the real one is the child's below) keeps
// the catalog's name and description and a warning names its file and the
// limit; aliases within the limit are still expanded; nesting past 64
// levels is refused the same way; the other skills keep their whole
// frontmatter.
func TestMCPFrontmatterAliasBound(t *testing.T) {
	work := t.TempDir()
	project := mustMkdir(t, filepath.Join(work, ".helios", "skills"))
	bomb := mcpPutSkill(t, project, "bomb", aliasBomb("bomb", 5), "bomb body\n")
	mcpPutSkill(t, project, "fine", "name: fine\ndescription: Aliases within the limit.\nmetadata:\n  base: &b {tier: gold, tags: [a, b]}\n  copy: *b", "fine body\n")
	deep := "name: deep\ndescription: Nested past 64 levels through aliases.\nmetadata:\n  l0: &l0 [x]\n"
	for i := 1; i <= 70; i++ {
		deep += fmt.Sprintf("  l%d: &l%d [*l%d]\n", i, i, i-1)
	}
	mcpPutSkill(t, project, "deep", strings.TrimSuffix(deep, "\n"), "deep body\n")
	cfg := filepath.Join(t.TempDir(), "helios.config.json")
	writeFile(t, cfg, `{"skills": {"userRoots": [], "maxFrontmatter": 2048, "watch": {"mode": "off"}}}`)
	k, err := assembly.Load(context.Background(), cfg, assembly.Options{WorkDir: work})
	require.NoError(t, err)
	t.Cleanup(func() { k.Close() })
	cs, _ := mcpConnect(t, mcpNewServer(t, k), "2025-11-25")

	entries, warns := mcpEntries(t, cs)
	require.Len(t, entries, 3, "every skill is listed; warnings: %s", warns)
	assert.Equal(t, map[string]any{"name": "bomb", "description": "A skill whose metadata is a billion laughs."}, entries["bomb"].Frontmatter)
	assert.Contains(t, warns, filepath.Join(bomb, "SKILL.md"), "the warning names the file")
	assert.Contains(t, warns, "2048 bytes (the limit skills.maxFrontmatter)")
	assert.Equal(t, map[string]any{"name": "fine", "description": "Aliases within the limit.", "metadata": map[string]any{
		"base": map[string]any{"tier": "gold", "tags": []any{"a", "b"}},
		"copy": map[string]any{"tier": "gold", "tags": []any{"a", "b"}},
	}}, entries["fine"].Frontmatter)
	assert.Equal(t, map[string]any{"name": "deep", "description": "Nested past 64 levels through aliases."}, entries["deep"].Frontmatter)
	assert.Contains(t, warns, "deeper than 64 levels")

	g, err := mcpSkillsGet(cs, "skill://bomb/SKILL.md")
	require.NoError(t, err)
	assert.Len(t, g.Skill.Frontmatter, 2)
	assert.Contains(t, fmt.Sprint(g.Meta[mcpserver.WarningsMeta]), "skills.maxFrontmatter")
	text, isErr := mcpCall(t, cs, "skill", map[string]any{"name": "bomb"})
	assert.False(t, isErr, "the skill still loads: %s", text)
	assert.Contains(t, text, "bomb body")
}

// Only the head is read, as discovery reads it: a SKILL.md whose
// frontmatter is not closed within the limit (a file that grew after
// discovery, or a capability's skill that was never discovered from disk)
// is refused with a warning naming the file and the limit; the entry keeps
// the catalog's name and description.
func TestMCPFrontmatterReadBound(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "SKILL.md")
	writeFile(t, file, "---\nname: grown\ndescription: Grew.\nnotes: |\n"+strings.Repeat("  a line of notes that never ends the frontmatter\n", 2000)+"---\nbody\n")
	sk := skills.Skill{Name: "grown", Description: "Grew.", File: file, BaseDir: dir,
		Load: func(context.Context) (skills.Content, error) {
			return skills.Content{Name: "grown", Body: "body\n"}, nil
		}}
	k, err := kernel.New(kernel.Config{WorkDir: t.TempDir(), UserSkillRoots: []string{}, Capabilities: []kernel.Capability{testkit.NewCapability("testcap", 0, sk)}})
	require.NoError(t, err)
	t.Cleanup(func() { k.Close() })
	cs, _ := mcpConnect(t, mcpNewServer(t, k), "2025-11-25")
	entries, warns := mcpEntries(t, cs)
	assert.Equal(t, map[string]any{"name": "grown", "description": "Grew."}, entries["grown"].Frontmatter)
	assert.Contains(t, warns, file)
	assert.Contains(t, warns, "not closed within the first 65536 bytes (the limit skills.maxFrontmatter)")
}

// The case end to end: `helios mcp` as a child process under a
// memory limit answers skills/list and skills/get over a project skill
// whose metadata is the 1 KB alias bomb, within a bound, and its memory
// stays small. (It used to grow to 18 GB in 10 minutes.)
//
// The limit is RLIMIT_AS, set on the child with prlimit(2) right after it
// starts (before the bomb is asked for): it needs no cgroup (which a
// container rarely delegates) and caps the damage a regression can do to a
// shared machine — a runtime that cannot map more memory dies, and the
// call fails — while VmHWM, the peak resident memory the kernel reports,
// gives the figure. The address-space limit sits 1 GiB above the child's
// own start (a Go process reserves far more address space than it uses).
func TestMCPAliasBombMemoryBound(t *testing.T) {
	work, home := t.TempDir(), t.TempDir()
	project := mustMkdir(t, filepath.Join(work, ".helios", "skills"))
	bomb := mcpPutSkill(t, project, "bomb", aliasBomb("bomb", 9), "bomb body\n")
	mcpPutSkill(t, project, "plain", "name: plain\ndescription: A plain skill.\nlicense: MIT", "plain body\n")
	data, err := os.ReadFile(filepath.Join(bomb, "SKILL.md"))
	require.NoError(t, err)
	require.Less(t, len(data), 1100, "the bomb is about 1 KB")

	cmd := exec.Command(heliosBin(), "--work-dir", work, "mcp")
	cmd.Env = append(os.Environ(), "HOME="+home)
	var stderr testkit.SyncBuffer
	cmd.Stderr = &stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	mcpSkillMethods(t, client)
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	pid := cmd.Process.Pid
	start := procStatusKB(t, pid, "VmSize")
	limit := uint64(start+1<<20) << 10 // 1 GiB above its start
	require.NoError(t, unix.Prlimit(pid, unix.RLIMIT_AS, &unix.Rlimit{Cur: limit, Max: limit}, nil))

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	list, err := mcp.CallCustomMethod[*mcpserver.ListSkillsParams, *mcpserver.ListSkillsResult](ctx, cs, "skills/list", &mcpserver.ListSkillsParams{})
	require.NoError(t, err, "skills/list over the bomb; stderr ends:\n%s", lastBytes(stderr.String(), 2000))
	require.Len(t, list.Skills, 2)
	for _, e := range list.Skills {
		switch e.Frontmatter["name"] {
		case "bomb":
			assert.Len(t, e.Frontmatter, 2, "name and description only")
		case "plain":
			assert.Equal(t, "MIT", e.Frontmatter["license"])
		}
	}
	warns := fmt.Sprint(list.Meta[mcpserver.WarningsMeta])
	assert.Contains(t, warns, filepath.Join(bomb, "SKILL.md"))
	assert.Contains(t, warns, "skills.maxFrontmatter")
	_, err = mcp.CallCustomMethod[*mcpserver.GetSkillParams, *mcpserver.GetSkillResult](ctx, cs, "skills/get", &mcpserver.GetSkillParams{URI: "skill://bomb/SKILL.md"})
	require.NoError(t, err)
	assert.Contains(t, stderr.String(), "skills.maxFrontmatter", "the warning is logged")

	peak := procStatusKB(t, pid, "VmHWM")
	t.Logf("helios mcp answering the alias bomb: peak RSS %.1f MB (address space at start %.0f MB, limit +1 GiB)", float64(peak)/1024, float64(start)/1024)
	assert.Less(t, peak, 256*1024, "peak RSS in KiB")
}

func lastBytes(s string, n int) string { return s[max(0, len(s)-n):] }

// procStatusKB reads a "<field>: N kB" line of /proc/<pid>/status.
func procStatusKB(t *testing.T, pid int, field string) int {
	t.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			require.NoError(t, err)
			return n
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}
