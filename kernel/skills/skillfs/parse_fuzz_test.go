package skillfs

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/frontmatter"
)

// FuzzParseSkill checks that ParseSkill never panics, that a usable result
// has a name and a trimmed, non-empty description, that an unusable one
// carries nothing, and that discovery's reading of the file's head only (up
// to the end of its frontmatter) judges the skill exactly as a load of the
// whole file does. Seeds: every SKILL.md in the repository, a few edge
// cases, and testdata/fuzz.
func FuzzParseSkill(f *testing.F) {
	for _, seed := range []string{
		"",
		"---\nname: pdf\ndescription: Fill forms.\n---\n# Body\n",
		"\ufeff---\r\nname: pdf\r\ndescription: x\r\n---\r\nbody\r\n",
		"---\nname: Bad_Name\ndescription: \"quoted \\\"x\\\"\"\nextra: 1\n---\n",
		"---\ndescription: |-\n  ----\n  --- x\n---\n",
		"---\nname: a\ndescription: b\ndisable-model-invocation: yes\nmetadata: [1]\n---\n",
		"---\nname: a\ndescription:\n---\n",
		"---\nname: a\ndescription: b\n---\n\x00binary body",
		"---\nname: a\ndescription: b\n",
		"no frontmatter",
		"---\nname: 技能\ndescription: 做事。\n---\n",
	} {
		f.Add([]byte(seed))
	}
	root, err := filepath.Abs("../..")
	require.NoError(f, err)
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if d.Name() == "SKILL.md" || d.Name() == "skill.md" {
			if data, err := os.ReadFile(p); err == nil {
				f.Add(data)
			}
		}
		return nil
	})
	f.Fuzz(func(t *testing.T, data []byte) {
		meta, body, findings := ParseSkill("s/SKILL.md", "s", data)
		usable := true
		for _, fd := range findings {
			require.NotEmpty(t, fd.Message)
			usable = usable && fd.Severity != Unusable
		}
		if usable {
			assert.NotEmpty(t, meta.Name)
			assert.NotEmpty(t, meta.Description)
			assert.Equal(t, strings.TrimSpace(meta.Description), meta.Description)
		} else {
			assert.Equal(t, Meta{}, meta)
			assert.Empty(t, body)
		}
		// Discovery reads only the head; its verdict is the load's.
		end, done := frontmatter.HeadLen(data, true)
		require.True(t, done, "HeadLen at EOF is always done")
		require.LessOrEqual(t, end, len(data))
		if end == 0 || isBinary(data, false) != isBinary(data, true) {
			return
		}
		hmeta, _, hfindings := parseSkill("s/SKILL.md", "s", data, end)
		assert.Equal(t, meta, hmeta, "the head of %q", data)
		assert.Equal(t, findings, hfindings, "the head of %q", data)
	})
}
