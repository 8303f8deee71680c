package agents_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/caps/agents"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/workfs"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
}

func messages(ws []contract.Warning) []string {
	var out []string
	for _, w := range ws {
		out = append(out, w.String())
	}
	return out
}

// Protects: Claude Code's fields as published: tools as a comma string or a
// list (Task and Agent(type) are the Agent tool, "*" is unset),
// disallowedTools, skills, mcpServers names (an inline server is a warning,
// its name kept), model, maxTurns, permissionMode; the body is the prompt;
// color passes silently, a field Helios does not apply or know is a
// warning naming it, and the rest applies.
func TestParseClaudeCodeFields(t *testing.T) {
	def, warns, err := agents.Parse("/a/reviewer.md", "project", []byte(`---
name: reviewer
description: Reviews code. Use PROACTIVELY.
tools: Read, Grep, Task, Agent(tester)
disallowedTools: [Bash]
skills:
  - go-style
mcpServers:
  - github
  - local: {command: ./srv}
model: sonnet
maxTurns: 7
permissionMode: plan
color: blue
memory: project
frobnicate: 1
---
You review code.
`))
	require.NoError(t, err)
	assert.Equal(t, kernel.AgentDef{Name: "reviewer", Description: "Reviews code. Use PROACTIVELY.", Prompt: "You review code.",
		Tools: []string{"Read", "Grep", "Agent"}, DisallowedTools: []string{"Bash"}, Skills: []string{"go-style"},
		MCPServers: []string{"github", "local"}, Model: "sonnet", MaxTurns: 7, PermissionMode: "plan", Source: "project", Path: "/a/reviewer.md"}, def)
	got := strings.Join(messages(warns), "\n")
	assert.Contains(t, got, `project: /a/reviewer.md: mcpServers: inline server "local"`)
	assert.Contains(t, got, "memory: Claude Code's field is not applied")
	assert.Contains(t, got, "frobnicate: unknown field")
	assert.NotContains(t, got, "color")
	assert.Len(t, warns, 3)

	def, warns, err = agents.Parse("/a/all.md", "user", []byte("---\nname: all\ndescription: d\ntools: \"*\"\n---\n"))
	require.NoError(t, err)
	assert.Empty(t, warns)
	assert.Nil(t, def.Tools, `"*" means the parent's tools`)
	assert.Nil(t, def.Skills, "unset skills: the parent's")

	_, warns, err = agents.Parse("/a/bad.md", "user", []byte("---\nname: bad\ndescription: d\nmaxTurns: many\ntools: {a: 1}\n---\n"))
	require.NoError(t, err)
	assert.Equal(t, []string{`user: /a/bad.md: maxTurns: "many" is not a positive integer; the default applies`,
		"user: /a/bad.md: tools: neither a comma-separated string nor a list of names; ignored"}, messages(warns))
}

// Protects: a file with no description (or no name, or no frontmatter)
// defines no agent: an error naming the file and the field.
func TestParseSkipsWhatCannotBeChosen(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"---\nname: x\n---\nbody", "/a/x.md: description: missing or empty"},
		{"---\ndescription: d\n---\nbody", "/a/x.md: name: missing or empty"},
		{"no frontmatter", "no frontmatter"},
	} {
		_, _, err := agents.Parse("/a/x.md", "user", []byte(tc.text))
		require.ErrorIs(t, err, agents.ErrSkipped)
		assert.Contains(t, err.Error(), tc.want)
	}
}

// Protects: the folders' order (project through the port, then the user's,
// then the extra ones), first wins with a warning naming both files, a
// skipped file warned about, and live reading: a file added after one call
// is offered by the next.
func TestSourceOrderDuplicatesAndLive(t *testing.T) {
	work, home, plugin := t.TempDir(), t.TempDir(), t.TempDir()
	md := func(name, desc string) string {
		return "---\nname: " + name + "\ndescription: " + desc + "\n---\nprompt of " + desc
	}
	write(t, filepath.Join(work, ".claude/agents/rev.md"), md("rev", "project claude"))
	write(t, filepath.Join(work, ".helios/agents/nested/rev.md"), md("rev", "project helios"))
	write(t, filepath.Join(home, "rev.md"), md("rev", "user"))
	write(t, filepath.Join(home, "solo.md"), md("solo", "user solo"))
	write(t, filepath.Join(home, "README.md"), "not an agent")
	write(t, filepath.Join(home, "nodesc.md"), "---\nname: nodesc\n---\n")
	write(t, filepath.Join(plugin, "p.md"), md("p", "from a plugin"))
	port, err := workfs.New(work)
	require.NoError(t, err)
	defer port.Close()
	single := filepath.Join(t.TempDir(), "single.md")
	write(t, single, md("single", "one file of a plugin"))
	src := agents.New(agents.Options{Port: port, UserDirs: []string{home, filepath.Join(home, "missing")}, ExtraDirs: []agents.Dir{
		{Path: plugin, Source: "plugin:demo"}, {Path: single, Source: "plugin:one"}}})

	defs, warns := src.Agents(t.Context())
	var names, descs []string
	for _, d := range defs {
		names, descs = append(names, d.Name), append(descs, d.Source+" "+d.Description)
	}
	assert.Equal(t, []string{"rev", "solo", "p", "single"}, names)
	assert.Equal(t, []string{"project project helios", "user user solo", "plugin:demo from a plugin", "plugin:one one file of a plugin"}, descs)
	got := messages(warns)
	require.Len(t, got, 3, "%q", got)
	assert.Contains(t, got[0], filepath.Join(work, ".claude/agents/rev.md")+`: name: agent "rev" is already defined by `+filepath.Join(work, ".helios/agents/nested/rev.md"))
	assert.Contains(t, got[1], "nodesc.md: agent skipped")
	assert.Contains(t, got[1], "description: missing or empty")
	assert.Contains(t, got[2], `user: `+filepath.Join(home, "rev.md")+`: name: agent "rev" is already defined`)

	write(t, filepath.Join(work, ".helios/agents/late.md"), md("late", "added later"))
	defs, _ = src.Agents(t.Context())
	assert.Equal(t, "late", defs[0].Name, "a new file is offered at the next call")

	// An edit is read again (a file whose size and time did not change is not).
	late := filepath.Join(work, ".helios/agents/late.md")
	write(t, late, md("late", "edited later, longer"))
	defs, _ = src.Agents(t.Context())
	assert.Equal(t, "edited later, longer", defs[0].Description)
}

// Protects: a project folder that is a symlink out of the work dir is
// refused by the port, with a warning, and nothing of it is read.
func TestProjectFolderThroughThePort(t *testing.T) {
	work, outside := t.TempDir(), t.TempDir()
	write(t, filepath.Join(outside, "x.md"), "---\nname: x\ndescription: d\n---\n")
	require.NoError(t, os.MkdirAll(filepath.Join(work, ".claude"), 0o755))
	require.NoError(t, os.Symlink(outside, filepath.Join(work, ".claude/agents")))
	port, err := workfs.New(work)
	require.NoError(t, err)
	defer port.Close()
	defs, warns := agents.New(agents.Options{Port: port}).Agents(t.Context())
	assert.Empty(t, defs)
	require.Len(t, warns, 1)
	assert.Contains(t, warns[0].Message, "agents folder unreadable")
}

// Protects: an unknown tool in tools is a warning naming it; the rest
// applies.
func TestScopeWarningsNameUnknownTools(t *testing.T) {
	def := kernel.AgentDef{Source: "user", Path: "/a/x.md", Tools: []string{"Read", "NotebookEdit"}, DisallowedTools: []string{"WebFetch"}}
	assert.Equal(t, []string{`user: /a/x.md: tools: unknown tool "NotebookEdit"; ignored, the rest applies`,
		`user: /a/x.md: disallowedTools: unknown tool "WebFetch"; ignored, the rest applies`},
		messages(kernel.AgentScopeWarnings(def, []string{"Read", "Bash"})))
}
