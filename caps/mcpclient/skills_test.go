package mcpclient

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/internal/mcptest"
	"github.com/helios-agents/helios/kernel/skills"
)

func names(ss []skills.Skill) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.Name
	}
	return out
}

// Skills served over the extension: listed with their source, loaded with
// their files written beside SKILL.md, every digest checked.
func TestSkillsFromServer(t *testing.T) {
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			sc := stdioServer("t")
			if transport == "http" {
				var srv *mcptest.Server
				sc, srv = httpServer(t, "t", true)
				srv.AddDemoSkills()
			}
			dir := t.TempDir()
			ss, _ := start(t, Config{SkillDir: dir}, sc)
			s := ss[0]
			set, err := s.Skills(ctxT(t))
			require.NoError(t, err)
			assert.Empty(t, set.Warnings)
			require.Equal(t, []string{"demo", "tampered"}, names(set.Skills))
			demo := set.Skills[0]
			assert.Equal(t, "mcp:t", demo.Source)
			assert.Equal(t, "Demonstrate a skill served over MCP.", demo.Description)
			assert.Equal(t, filepath.Join(dir, "t", "demo"), demo.BaseDir)

			text, err := skills.Load(ctxT(t), demo)
			require.NoError(t, err)
			assert.Contains(t, text, "Base directory for this skill: "+demo.BaseDir)
			assert.Contains(t, text, "Run scripts/hello.sh, then read references/GUIDE.md.")
			for rel, want := range map[string]string{
				"scripts/hello.sh":    "#!/bin/sh\necho hello from demo\n",
				"references/GUIDE.md": "# Guide\nBe kind.\n",
				"SKILL.md":            "---\nname: demo\n",
			} {
				data, err := os.ReadFile(filepath.Join(demo.BaseDir, rel))
				require.NoError(t, err, "%s written where the load text says", rel)
				assert.True(t, strings.HasPrefix(string(data), want), "%s: %q", rel, data)
			}

			_, err = skills.Load(ctxT(t), set.Skills[1])
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrDigestMismatch)
			assert.Contains(t, err.Error(), `MCP server "t": file references/GUIDE.md of the skill (skill://tampered/references/GUIDE.md): digest mismatch`)
			_, err = os.Stat(filepath.Join(set.Skills[1].BaseDir, "references", "GUIDE.md"))
			assert.ErrorIs(t, err, os.ErrNotExist, "a file that failed its digest is never written")
		})
	}
}

// A load reads the skill again: an edited file on the server is the file
// on disk after the next load; a file no longer listed is removed.
func TestSkillLoadFollowsServer(t *testing.T) {
	sc, srv := httpServer(t, "t", true)
	srv.AddSkill(mcptest.Skill{Name: "live", Description: "Changes.", Body: "v1\n", Files: map[string]string{"a.txt": "one", "b.txt": "two"}})
	ss, _ := start(t, Config{}, sc)
	set, err := ss[0].Skills(ctxT(t))
	require.NoError(t, err)
	require.Len(t, set.Skills, 1)
	sk := set.Skills[0]
	text, err := skills.Load(ctxT(t), sk)
	require.NoError(t, err)
	assert.True(t, strings.HasSuffix(text, "v1\n"))

	srv.AddSkill(mcptest.Skill{Name: "live", Description: "Changes.", Body: "v2\n", Files: map[string]string{"a.txt": "uno"}})
	text, err = skills.Load(ctxT(t), sk)
	require.NoError(t, err)
	assert.True(t, strings.HasSuffix(text, "v2\n"), "no body cache")
	data, err := os.ReadFile(filepath.Join(sk.BaseDir, "a.txt"))
	require.NoError(t, err)
	assert.Equal(t, "uno", string(data))
	_, err = os.Stat(filepath.Join(sk.BaseDir, "b.txt"))
	assert.ErrorIs(t, err, os.ErrNotExist)
}

// The server's resources/list_changed invalidates its registration only;
// a new skill reaches the next snapshot.
func TestSkillsChangeInvalidatesRegistration(t *testing.T) {
	ss, _ := start(t, Config{}, stdioServer("t"))
	s := ss[0]
	reg := skills.NewRegistry(skills.RegistryConfig{})
	g := reg.Register(s.SkillSource(), s)
	defer g.Close()
	cat := reg.Snapshot(ctxT(t))
	require.True(t, cat.Complete)
	require.Equal(t, []string{"demo", "tampered"}, names(cat.Skills))
	assert.Equal(t, 0, reg.Snapshot(ctxT(t)).ProvidersAsked, "a clean catalog is served from cache")

	assert.Equal(t, "serving skill fresh", call(t, s, "mcp__t__add_skill", `{"text":"fresh"}`).Content)
	eventually(t, "the new skill in the catalog", func() bool {
		return slices.Contains(names(reg.Snapshot(ctxT(t)).Skills), "fresh")
	})
}

func TestServerWithoutExtensionHasNoSkills(t *testing.T) {
	ss, _ := start(t, Config{}, stdioServer("t", "MCPTEST_SKILLS=0"))
	set, err := ss[0].Skills(ctxT(t))
	require.NoError(t, err)
	assert.Empty(t, set.Skills)
	assert.Empty(t, set.Warnings)
	assert.False(t, ss[0].Status().HasSkillsExtension)
}

// A hostile or broken manifest skips its skill with a warning naming it.
func TestParseManifest(t *testing.T) {
	d := "sha256:" + strings.Repeat("a", 64)
	md := skillResource{URI: "skill://s/SKILL.md", Digest: d, Size: 10}
	for _, tc := range []struct {
		name string
		e    skillEntry
		want string
	}{
		{"no SKILL.md URI", skillEntry{URI: "skill://s/README.md"}, "does not name a SKILL.md"},
		{"SKILL.md not listed", skillEntry{URI: "skill://s/SKILL.md", Resources: []skillResource{{URI: "skill://s/a", Digest: d}}}, "does not list"},
		{"outside", skillEntry{URI: "skill://s/SKILL.md", Resources: []skillResource{md, {URI: "skill://other/a", Digest: d}}}, "lies outside the skill"},
		{"dot-dot", skillEntry{URI: "skill://s/SKILL.md", Resources: []skillResource{md, {URI: "skill://s/../../etc/passwd", Digest: d}}}, `".." would not stay inside`},
		{"escaped dot-dot", skillEntry{URI: "skill://s/SKILL.md", Resources: []skillResource{md, {URI: "skill://s/%2E%2E/x", Digest: d}}}, `".." would not stay inside`},
		{"escaped slash", skillEntry{URI: "skill://s/SKILL.md", Resources: []skillResource{md, {URI: "skill://s/a%2F..%2F..%2Fx", Digest: d}}}, "would not stay inside"},
		{"bad digest", skillEntry{URI: "skill://s/SKILL.md", Resources: []skillResource{{URI: "skill://s/SKILL.md", Digest: "md5:abc"}}}, "is not sha256:"},
		{"twice", skillEntry{URI: "skill://s/SKILL.md", Resources: []skillResource{md, md}}, "listed twice"},
		{"too big", skillEntry{URI: "skill://s/SKILL.md", Resources: []skillResource{{URI: "skill://s/SKILL.md", Digest: d, Size: MaxSkillBytes + 1}}}, "over the limit of 16777216 a skill"},
	} {
		_, err := parseManifest(tc.e)
		require.Error(t, err, tc.name)
		assert.Contains(t, err.Error(), tc.want, tc.name)
	}
	many := skillEntry{URI: "skill://s/SKILL.md", Resources: []skillResource{md}}
	for i := range MaxSkillFiles {
		many.Resources = append(many.Resources, skillResource{URI: "skill://s/f" + strconv.Itoa(i), Digest: d})
	}
	_, err := parseManifest(many)
	assert.ErrorContains(t, err, "513 files, over the limit of 512")

	m, err := parseManifest(skillEntry{URI: "skill://org/team/s/SKILL.md", Resources: []skillResource{
		{URI: "skill://org/team/s/refs/My%20Guide.md", Digest: d}, {URI: "skill://org/team/s/SKILL.md", Digest: d}}})
	require.NoError(t, err)
	assert.Equal(t, "s", m.folder, "a prefix before the name is allowed")
	assert.Equal(t, []string{"SKILL.md", "refs/My Guide.md"}, []string{m.files[0].rel, m.files[1].rel}, "SKILL.md first; names unescaped")
}
