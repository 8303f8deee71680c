package skills_test

// Contract tests of the one exit from skills to the model
// (DESIGN.md "C3 One exit to the model: ToSkillTools and the load result").
//
// What the model sees is text, so these tests pin text: the exact tool names
// and descriptions, the load result's base directory and resolution rule.
// Seed 003 is why the load result is checked for the rule and the cd
// sentence and not only for the path: a path alone passed every test while
// models ran scripts from the wrong directory.

import (
	"context"
	"encoding/json"
	"github.com/helios-agents/helios/kernel/skills/skillfs/skillfstest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/kernel/skills/skillfs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Protects: M8 (tool name prefixed), M2 (templated description). In tools
// mode each visible skill is one tool named exactly by its frontmatter name
// and described exactly by its frontmatter description; a name that cannot
// be a tool name is left out with a warning naming the file; calling a tool
// returns the load text.
func TestSkillToolsToolsMode(t *testing.T) {
	fx := stToolFixture(t)
	tools, warns := skills.ToSkillTools(skills.Catalog{Skills: fx.set.Skills}, skills.ModeTools, skills.Budget{})

	got := map[string]string{}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
		got[tl.Name] = tl.Description
	}
	// Order follows the input (the catalog's order); hidden and invalid
	// tool names are absent.
	require.Empty(t, cmp.Diff([]string{"MySkill", "pdf", "release-notes"}, names), "tool names (-want +got)")
	want := map[string]string{
		"MySkill":       fx.desc["MySkill"],
		"pdf":           fx.desc["pdf"],
		"release-notes": fx.desc["release-notes"],
	}
	assert.Empty(t, cmp.Diff(want, got), "tool descriptions are not the frontmatter descriptions (-want +got)")

	// Exactly the two names that are not tool names, each named with its file.
	assert.Len(t, warns, 2, "got %d warnings, want 2 (My Skill, 技能):\n%s", len(warns), stWarningsText(warns))
	stRequireWarning(t, warns, fx.file["My Skill"], `"My Skill"`, "not a valid tool name")
	stRequireWarning(t, warns, fx.file["技能"], `"技能"`, "not a valid tool name")

	for _, tl := range tools {
		assert.True(t, json.Valid(tl.Schema), "tool %q: schema is not JSON: %s", tl.Name, tl.Schema)
		res, err := tl.Call(context.Background(), json.RawMessage(`{}`))
		require.NoError(t, err, "call %q: %v %+v", tl.Name, err, res)
		require.False(t, res.IsError, "call %q: %v %+v", tl.Name, err, res)
		s := stMustLookup(t, fx.set.Skills, tl.Name)
		assert.Equal(t, loadText(s.BaseDir, fx.body[tl.Name]), res.Content, "call %q returned\nwant the load text", tl.Name)
	}
}

// Catalog mode offers the tool "skill", that takes {"name"}, then
// skill_search (tested in search_test.go). Model
// mistakes are tool results with IsError (never Go errors), and an unknown
// name gets close matches. Names that cannot be tool names load here.
func TestSkillToolsCatalogMode(t *testing.T) {
	fx := stToolFixture(t)
	tools, warns := skills.ToSkillTools(skills.Catalog{Skills: fx.set.Skills}, skills.ModeCatalog, skills.Budget{})
	require.Equal(t, []string{"skill", "skill_search"}, stToolNames(tools), "catalog mode tools")
	assert.Empty(t, warns, "catalog mode warnings:\n%s", stWarningsText(warns))
	tool := tools[0]

	var schema struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	require.NoError(t, json.Unmarshal(tool.Schema, &schema), "schema")
	_, ok := schema.Properties["name"]
	assert.Equal(t, "object", schema.Type, "schema = %s, want an object with a required name", tool.Schema)
	assert.True(t, ok, "schema = %s, want an object with a required name", tool.Schema)
	assert.Equal(t, []string{"name"}, schema.Required, "schema = %s, want an object with a required name", tool.Schema)

	call := func(args string) contract.ToolResult {
		t.Helper()
		res, err := tool.Call(context.Background(), json.RawMessage(args))
		require.NoError(t, err, "call %s: a Go error, want a tool result", args)
		return res
	}
	for _, name := range []string{"pdf", "技能", "My Skill"} {
		res := call(stJSONName(name))
		s := stMustLookup(t, fx.set.Skills, name)
		assert.False(t, res.IsError, "load %q = %+v, want the load text", name, res)
		assert.Equal(t, loadText(s.BaseDir, fx.body[name]), res.Content, "load %q = %+v, want the load text", name, res)
	}

	errorCases := []struct {
		name, args string
		want       []string
	}{
		{"unknown name with a close match", stJSONName("pfd"), []string{`"pfd"`, "pdf"}},
		{"unknown name with nothing close", stJSONName("kubernetes-deploy"), []string{`"kubernetes-deploy"`}},
		{"hidden from the model", stJSONName("hidden-one"), []string{`"hidden-one"`}},
		{"no name", `{}`, []string{"name"}},
		{"not JSON", `{"name":`, []string{"name"}},
	}
	for _, tc := range errorCases {
		t.Run(tc.name, func(t *testing.T) {
			res := call(tc.args)
			require.True(t, res.IsError, "result = %+v", res)
			for _, w := range tc.want {
				assert.Contains(t, res.Content, w, "result %q does not mention %s", res.Content, w)
			}
			assert.NotContains(t, res.Content, "Base directory", "an error result leaks a load")
			assert.NotContains(t, res.Content, "hidden body", "an error result leaks a load")
		})
	}
}

// Protects: M1 (no base dir), M14 (path without the resolution rule), M15
// (rule without cd). The load text starts with the absolute base directory,
// then states that relative paths resolve against it and not the current
// working directory, and that shell commands must cd there first (quoted for
// the shell when needed); then the body.
func TestSkillLoadText(t *testing.T) {
	tests := []struct {
		name, dir, cd string
	}{
		{"plain", "/home/ada/.helios/skills/pdf", "cd /home/ada/.helios/skills/pdf"},
		{"space", "/home/ada/my skills/pdf", "cd '/home/ada/my skills/pdf'"},
		{"quote", "/home/ada/it's/pdf", `cd '/home/ada/it'\''s/pdf'`},
	}
	body := "# PDF\n\nRun `python scripts/fill.py form.pdf`.\n"
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := loadText(tt.dir, body)
			stRequireLoadText(t, text, tt.dir, body)
			assert.Contains(t, text, tt.cd+" ", "load text lacks %q", tt.cd)
		})
	}
}

// Protects: M12 (base dir relative). A source built on a RELATIVE root still
// gives an absolute base directory, in the Skill and in the load text.
func TestSkillLoadBaseDirAbsolute(t *testing.T) {
	base := skillfstest.RealTempDir(t)
	t.Chdir(base)
	skillfstest.WriteSkill(t, filepath.Join(base, "rel", "skills"), "pdf", "name: pdf\ndescription: Fill PDF forms.", "Run scripts/fill.py.\n")
	wantDir := filepath.Join(base, "rel", "skills", "pdf")

	src := &skillfs.DirSource{FS: skillfs.OSFS{}, Source: skills.SourceUser, Roots: []string{filepath.Join("rel", "skills")}}
	set, err := src.Skills(context.Background())
	require.NoError(t, err, "Skills = %+v; want one skill", set)
	require.Len(t, set.Skills, 1, "Skills = %+v; want one skill", set)
	s := set.Skills[0]
	assert.True(t, filepath.IsAbs(s.BaseDir), "BaseDir = %q, want the absolute %q", s.BaseDir, wantDir)
	assert.Equal(t, wantDir, s.BaseDir, "BaseDir = %q, want the absolute %q", s.BaseDir, wantDir)
	text, err := skills.Load(context.Background(), s)
	require.NoError(t, err)
	stRequireLoadText(t, text, wantDir, "Run scripts/fill.py.\n")

	// The kernel's user roots may be relative too.
	k := stNewKernel(t, kernel.Config{WorkDir: base, UserSkillRoots: []string{filepath.Join("rel", "skills")}})
	text, err = k.LoadSkill(context.Background(), "pdf")
	require.NoError(t, err)
	stRequireLoadText(t, text, wantDir, "Run scripts/fill.py.\n")
}

// Bodies are never cached: each load reads the file again, through the
// kernel and through a tool made before the edit. A base dir with a space is
// quoted after cd.
func TestSkillLoadRereadsAndQuotes(t *testing.T) {
	root := filepath.Join(skillfstest.RealTempDir(t), "my skills")
	file := skillfstest.WriteSkill(t, root, "pdf", "name: pdf\ndescription: Fill PDF forms.", "version one\n")
	dir := filepath.Join(root, "pdf")
	k := stNewKernel(t, kernel.Config{WorkDir: skillfstest.RealTempDir(t), UserSkillRoots: []string{root}})
	ctx := context.Background()

	first, err := k.LoadSkill(ctx, "pdf")
	require.NoError(t, err)
	stRequireLoadText(t, first, dir, "version one\n")
	assert.Contains(t, first, "cd '"+dir+"' ", "load text does not quote the base dir after cd")
	tools, _ := k.Tools(ctx, k.Catalog(ctx), k.CatalogBudget())

	writeFile(t, file, skillMD("name: pdf\ndescription: Fill PDF forms.", "version two\n"))
	second, err := k.LoadSkill(ctx, "pdf")
	require.NoError(t, err)
	assert.NotContains(t, second, "version one", "second load, want the edited body")
	assert.True(t, strings.HasSuffix(second, "version two\n"), "second load, want the edited body")
	res, err := tools[0].Call(ctx, json.RawMessage(stJSONName("pdf")))
	assert.NoError(t, err, "tool load after the edit = %+v; want the edited body", res)
	assert.False(t, res.IsError, "tool load after the edit = %+v; want the edited body", res)
	assert.True(t, strings.HasSuffix(res.Content, "version two\n"), "tool load after the edit = %+v; want the edited body", res)
}

// stToolFixtureT is a root of skills for the tool tests: valid tool names, a
// hidden skill and two names that cannot be tool names.
type stToolFixtureT struct {
	set  skills.Set
	desc map[string]string // name → the description as the author meant it
	body map[string]string // name → body
	file map[string]string // name → SKILL.md
}

// stToolFixture writes the fixture and scans it as the user source.
func stToolFixture(t *testing.T) stToolFixtureT {
	t.Helper()
	root := skillfstest.RealTempDir(t)
	fx := stToolFixtureT{desc: map[string]string{}, body: map[string]string{}, file: map[string]string{}}
	add := func(folder, name, descYAML, desc, extra string) {
		fm := "name: " + name + "\ndescription: " + descYAML + extra
		body := "Body of " + name + ": run scripts/go.sh.\n"
		if name == "hidden-one" {
			body = "hidden body\n"
		}
		fx.file[name] = skillfstest.WriteSkill(t, root, folder, fm, body)
		fx.desc[name], fx.body[name] = desc, body
	}
	add("pdf", "pdf", "|-\n  Fill PDF forms: text fields and checkboxes.\n  Use when a PDF has fields.",
		"Fill PDF forms: text fields and checkboxes.\nUse when a PDF has fields.", "")
	add("release-notes", "release-notes", `"Draft release notes from merged PRs; use before tagging."`,
		"Draft release notes from merged PRs; use before tagging.", "")
	add("MySkill", "MySkill", "Capitals break the spec but make a fine tool name.",
		"Capitals break the spec but make a fine tool name.", "")
	add("My Skill", "My Skill", "A space is not allowed in a tool name.", "A space is not allowed in a tool name.", "")
	add("技能", "技能", "A valid skill name that is not a tool name.", "A valid skill name that is not a tool name.", "")
	add("hidden-one", "hidden-one", "Only for people.", "Only for people.", "\ndisable-model-invocation: true")

	src := &skillfs.DirSource{FS: skillfs.OSFS{}, Source: skills.SourceUser, Roots: []string{root}}
	set, err := src.Skills(context.Background())
	require.NoError(t, err)
	require.Len(t, set.Skills, 6, "fixture loaded %v, want 6 skills; warnings:\n%s", stNames(set.Skills), stWarningsText(set.Warnings))
	fx.set = set
	return fx
}

// stRequireLoadText checks the load result's shape: the first line states the
// absolute base dir, then the resolution rule with its cd, then the body.
func stRequireLoadText(t *testing.T, text, dir, body string) {
	t.Helper()
	require.True(t, filepath.IsAbs(dir), "test bug: %q is not absolute", dir)
	first, rest, _ := strings.Cut(text, "\n")
	assert.Contains(t, strings.ToLower(first), "base directory", "first line = %q, want it to state the base directory %q", first, dir)
	assert.True(t, strings.HasSuffix(first, " "+dir), "first line = %q, want it to state the base directory %q", first, dir)
	for _, phrase := range []string{"resolve against that directory", "not your current working directory", "cd "} {
		assert.Contains(t, rest, phrase, "load text lacks the resolution rule %q:\n%s", phrase, text)
	}
	// POSIX single quotes, as a person would type them.
	quoted := "'" + strings.ReplaceAll(dir, "'", `'\''`) + "'"
	assert.True(t, strings.Contains(rest, "cd "+dir+" ") || strings.Contains(rest, "cd "+quoted+" "), "load text does not say cd %s:\n%s", dir, text)
	i := strings.Index(text, "not your current working directory")
	assert.True(t, strings.HasSuffix(text, body), "load text does not end with the body after the rule:\n%s", text)
	assert.GreaterOrEqual(t, i, 0, "load text does not end with the body after the rule:\n%s", text)
	assert.GreaterOrEqual(t, strings.LastIndex(text, body), i, "load text does not end with the body after the rule:\n%s", text)
}

// stNewKernel builds a kernel and closes it when the test ends.
func stNewKernel(t *testing.T, cfg kernel.Config) *kernel.Kernel {
	t.Helper()
	k, err := kernel.New(cfg)
	require.NoError(t, err, "kernel.New")
	t.Cleanup(func() {
		assert.NoError(t, k.Close(), "close kernel")
	})
	return k
}

func stNames(ss []skills.Skill) []string {
	out := []string{}
	for _, s := range ss {
		out = append(out, s.Name)
	}
	return out
}

func stToolNames(ts []contract.Tool) []string {
	out := []string{}
	for _, tl := range ts {
		out = append(out, tl.Name)
	}
	return out
}

func stMustLookup(t *testing.T, ss []skills.Skill, name string) skills.Skill {
	t.Helper()
	for _, s := range ss {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no skill %q in %v", name, stNames(ss))
	return skills.Skill{}
}

func stJSONName(name string) string {
	b, _ := json.Marshal(map[string]string{"name": name})
	return string(b)
}

func stWarningsText(ws []contract.Warning) string {
	var b strings.Builder
	for _, w := range ws {
		b.WriteString("  " + w.String() + "\n")
	}
	return b.String()
}

// stRequireWarning fails unless some warning is about path and its message
// holds every one of want.
func stRequireWarning(t *testing.T, ws []contract.Warning, path string, want ...string) {
	t.Helper()
	for _, w := range ws {
		if w.Path != path {
			continue
		}
		ok := true
		for _, s := range want {
			ok = ok && strings.Contains(w.Message, s)
		}
		if ok {
			return
		}
	}
	t.Errorf("no warning about %s saying %q; got:\n%s", path, want, stWarningsText(ws))
}

// loadText is the text the skill tool gives the model for a skill with
// that base directory and body (skills.Load of a skill whose file holds it).
func loadText(baseDir, body string) string {
	s := skills.Skill{Name: "any", BaseDir: baseDir, Load: func(context.Context) (skills.Content, error) {
		return skills.Content{Name: "any", Body: body}, nil
	}}
	text, err := skills.Load(context.Background(), s)
	if err != nil {
		panic(err) // the loader above cannot fail
	}
	return text
}
