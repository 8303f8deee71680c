package unit_test

// Black-box contract tests of the one exit from skills to the model
// (DESIGN.md "C3 One exit to the model: ToSkillTools and the load result").
//
// What the model sees is text, so these tests pin text: the exact tool names
// and descriptions, the load result's base directory and resolution rule, the
// <extensions> manifest. Seed 003 is why the load result is checked for the
// rule and the cd sentence and not only for the path: a path alone passed
// every test while models ran scripts from the wrong directory.
//
// The helpers of the skills tests (prefix sk) live here, in a file without a
// build constraint; skills_test.go needs symlinks and FIFOs and is unix-only.

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/helios-agents/helios/caps/extdir"
	capskills "github.com/helios-agents/helios/caps/skills"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/frontmatter"
	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/kernel/workfs"
)

// Protects: M8 (tool name prefixed), M2 (templated description). In tools
// mode each visible skill is one tool named exactly by its frontmatter name
// and described exactly by its frontmatter description; a name that cannot
// be a tool name is left out with a warning naming the file; calling a tool
// returns the load text.
func TestSkillToolsToolsMode(t *testing.T) {
	fx := skToolFixture(t)
	tools, warns := skills.ToSkillTools(fx.set.Skills, skills.ModeTools)

	got := map[string]string{}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
		got[tl.Name] = tl.Description
	}
	// Order follows the input (the catalog's order); hidden and invalid
	// tool names are absent.
	if diff := cmp.Diff([]string{"MySkill", "pdf", "release-notes"}, names); diff != "" {
		t.Fatalf("tool names (-want +got):\n%s", diff)
	}
	want := map[string]string{
		"MySkill":       fx.desc["MySkill"],
		"pdf":           fx.desc["pdf"],
		"release-notes": fx.desc["release-notes"],
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tool descriptions are not the frontmatter descriptions (-want +got):\n%s", diff)
	}

	// Exactly the two names that are not tool names, each named with its file.
	if len(warns) != 2 {
		t.Errorf("got %d warnings, want 2 (My Skill, 技能):\n%s", len(warns), skWarningsText(warns))
	}
	skRequireWarning(t, warns, fx.file["My Skill"], `"My Skill"`, "not a valid tool name")
	skRequireWarning(t, warns, fx.file["技能"], `"技能"`, "not a valid tool name")

	for _, tl := range tools {
		if !json.Valid(tl.Schema) {
			t.Errorf("tool %q: schema is not JSON: %s", tl.Name, tl.Schema)
		}
		res, err := tl.Call(context.Background(), json.RawMessage(`{}`))
		if err != nil || res.IsError {
			t.Fatalf("call %q: %v %+v", tl.Name, err, res)
		}
		s := skMustLookup(t, fx.set.Skills, tl.Name)
		if want := skills.LoadText(s.BaseDir, fx.body[tl.Name]); res.Content != want {
			t.Errorf("call %q returned\n%s\nwant the load text\n%s", tl.Name, res.Content, want)
		}
	}
}

// Catalog mode offers exactly one tool, "skill", that takes {"name"}. Model
// mistakes are tool results with IsError (never Go errors), and an unknown
// name gets close matches. Names that cannot be tool names load here.
func TestSkillToolsCatalogMode(t *testing.T) {
	fx := skToolFixture(t)
	tools, warns := skills.ToSkillTools(fx.set.Skills, skills.ModeCatalog)
	if len(tools) != 1 || tools[0].Name != "skill" {
		t.Fatalf("catalog mode tools = %v, want exactly one tool named %q", skToolNames(tools), "skill")
	}
	if len(warns) != 0 {
		t.Errorf("catalog mode warnings:\n%s", skWarningsText(warns))
	}
	tool := tools[0]

	var schema struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if err := json.Unmarshal(tool.Schema, &schema); err != nil {
		t.Fatalf("schema: %v", err)
	}
	if _, ok := schema.Properties["name"]; schema.Type != "object" || !ok || !cmp.Equal(schema.Required, []string{"name"}) {
		t.Errorf("schema = %s, want an object with a required name", tool.Schema)
	}

	call := func(args string) contract.ToolResult {
		t.Helper()
		res, err := tool.Call(context.Background(), json.RawMessage(args))
		if err != nil {
			t.Fatalf("call %s: a Go error, want a tool result: %v", args, err)
		}
		return res
	}
	for _, name := range []string{"pdf", "技能", "My Skill"} {
		res := call(skJSONName(name))
		s := skMustLookup(t, fx.set.Skills, name)
		if res.IsError || res.Content != skills.LoadText(s.BaseDir, fx.body[name]) {
			t.Errorf("load %q = %+v, want the load text", name, res)
		}
	}

	errorCases := []struct {
		name, args string
		want       []string
	}{
		{"unknown name with a close match", skJSONName("pfd"), []string{`"pfd"`, "pdf"}},
		{"unknown name with nothing close", skJSONName("kubernetes-deploy"), []string{`"kubernetes-deploy"`}},
		{"hidden from the model", skJSONName("hidden-one"), []string{`"hidden-one"`}},
		{"no name", `{}`, []string{"name"}},
		{"not JSON", `{"name":`, []string{"name"}},
	}
	for _, tc := range errorCases {
		t.Run(tc.name, func(t *testing.T) {
			res := call(tc.args)
			if !res.IsError {
				t.Fatalf("result = %+v, want IsError", res)
			}
			for _, w := range tc.want {
				if !strings.Contains(res.Content, w) {
					t.Errorf("result %q does not mention %s", res.Content, w)
				}
			}
			if strings.Contains(res.Content, "Base directory") || strings.Contains(res.Content, "hidden body") {
				t.Errorf("an error result leaks a load: %q", res.Content)
			}
		})
	}
}

// disable-model-invocation hides a skill from the model in both modes (no
// tool, and the catalog tool does not find it), but a person loads it by name
// through the kernel.
func TestSkillToolsHiddenSkill(t *testing.T) {
	for _, mode := range []skills.Mode{skills.ModeCatalog, skills.ModeTools} {
		t.Run(mode.String(), func(t *testing.T) {
			root := skTempDir(t)
			skWriteSkill(t, root, "hidden-one", "name: hidden-one\ndescription: Only for people.\ndisable-model-invocation: true", "hidden body\n")
			skWriteSkill(t, root, "shown", "name: shown\ndescription: For the model.", "shown body\n")
			k := skNewKernel(t, kernel.Config{WorkDir: skTempDir(t), UserSkillRoots: []string{root}, SkillsMode: mode})
			ctx := context.Background()

			cat := k.Catalog(ctx)
			s, ok := cat.Lookup("hidden-one")
			if !ok || !s.DisableModelInvocation {
				t.Fatalf("catalog lookup hidden-one = %+v, %v; want it, marked hidden", s, ok)
			}
			if got := skNames(cat.Visible()); !cmp.Equal(got, []string{"shown"}) {
				t.Errorf("visible = %v, want [shown]", got)
			}

			tools, _ := k.SkillTools(cat)
			for _, tl := range tools {
				if tl.Name == "hidden-one" || strings.Contains(tl.Description, "Only for people") {
					t.Errorf("tool %q exposes the hidden skill", tl.Name)
				}
				res, err := tl.Call(ctx, json.RawMessage(skJSONName("hidden-one")))
				if err != nil {
					t.Fatal(err)
				}
				if strings.Contains(res.Content, "hidden body") {
					t.Errorf("tool %q loads the hidden skill: %q", tl.Name, res.Content)
				}
			}
			if mode == skills.ModeTools && !cmp.Equal(skToolNames(tools), []string{"shown"}) {
				t.Errorf("tools = %v, want [shown]", skToolNames(tools))
			}

			text, err := k.LoadSkill(ctx, "hidden-one")
			if err != nil {
				t.Fatalf("a person cannot load the hidden skill: %v", err)
			}
			if !strings.HasSuffix(text, "hidden body\n") {
				t.Errorf("LoadSkill(hidden-one) = %q, want its body", text)
			}
			if _, err := k.LoadSkill(ctx, "hiden-one"); !errors.Is(err, kernel.ErrUnknownSkill) || !strings.Contains(err.Error(), "hidden-one") {
				t.Errorf("LoadSkill(hiden-one) = %v, want ErrUnknownSkill suggesting hidden-one", err)
			}
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
			text := skills.LoadText(tt.dir, body)
			skRequireLoadText(t, text, tt.dir, body)
			if !strings.Contains(text, tt.cd+" ") {
				t.Errorf("load text lacks %q:\n%s", tt.cd, text)
			}
		})
	}
}

// Protects: M12 (base dir relative). A source built on a RELATIVE root still
// gives an absolute base directory, in the Skill and in the load text.
func TestSkillLoadBaseDirAbsolute(t *testing.T) {
	base := skTempDir(t)
	t.Chdir(base)
	skWriteSkill(t, filepath.Join(base, "rel", "skills"), "pdf", "name: pdf\ndescription: Fill PDF forms.", "Run scripts/fill.py.\n")
	wantDir := filepath.Join(base, "rel", "skills", "pdf")

	src := &skills.DirSource{FS: skills.OSFS{}, Source: skills.SourceUser, Roots: []string{filepath.Join("rel", "skills")}}
	set, err := src.Skills(context.Background())
	if err != nil || len(set.Skills) != 1 {
		t.Fatalf("Skills = %+v, %v; want one skill", set, err)
	}
	s := set.Skills[0]
	if !filepath.IsAbs(s.BaseDir) || s.BaseDir != wantDir {
		t.Errorf("BaseDir = %q, want the absolute %q", s.BaseDir, wantDir)
	}
	text, err := skills.Load(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	skRequireLoadText(t, text, wantDir, "Run scripts/fill.py.\n")

	// The kernel's user roots may be relative too.
	k := skNewKernel(t, kernel.Config{WorkDir: base, UserSkillRoots: []string{filepath.Join("rel", "skills")}})
	text, err = k.LoadSkill(context.Background(), "pdf")
	if err != nil {
		t.Fatal(err)
	}
	skRequireLoadText(t, text, wantDir, "Run scripts/fill.py.\n")
}

// Bodies are never cached: each load reads the file again, through the
// kernel and through a tool made before the edit. A base dir with a space is
// quoted after cd.
func TestSkillLoadRereadsAndQuotes(t *testing.T) {
	root := filepath.Join(skTempDir(t), "my skills")
	file := skWriteSkill(t, root, "pdf", "name: pdf\ndescription: Fill PDF forms.", "version one\n")
	dir := filepath.Join(root, "pdf")
	k := skNewKernel(t, kernel.Config{WorkDir: skTempDir(t), UserSkillRoots: []string{root}})
	ctx := context.Background()

	first, err := k.LoadSkill(ctx, "pdf")
	if err != nil {
		t.Fatal(err)
	}
	skRequireLoadText(t, first, dir, "version one\n")
	if !strings.Contains(first, "cd '"+dir+"' ") {
		t.Errorf("load text does not quote the base dir after cd:\n%s", first)
	}
	tools, _ := k.SkillTools(k.Catalog(ctx))

	writeFile(t, file, skillMD("name: pdf\ndescription: Fill PDF forms.", "version two\n"))
	second, err := k.LoadSkill(ctx, "pdf")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(second, "version one") || !strings.HasSuffix(second, "version two\n") {
		t.Errorf("second load = %q, want the edited body", second)
	}
	res, err := tools[0].Call(ctx, json.RawMessage(skJSONName("pdf")))
	if err != nil || res.IsError || !strings.HasSuffix(res.Content, "version two\n") {
		t.Errorf("tool load after the edit = %+v, %v; want the edited body", res, err)
	}
}

// Protects: M9 (skills capability in <extensions>), M13 (extension doc
// ignores frontmatter). The manifest has one line per capability with a
// description, from the EXTENSION.md frontmatter (not its body), in
// capability order; the project skills capability, whose description is
// empty, is not listed; with nothing to list the manifest is empty.
// Capability skills carry the source "capability:<name>".
func TestSkillsExtensionsManifest(t *testing.T) {
	base := skTempDir(t)
	release := filepath.Join(base, "release-ext")
	writeFile(t, filepath.Join(release, "EXTENSION.md"), skillMD(
		"name: release\ndescription: Drafts release notes from merged pull requests.",
		"# Release helper\n\nThis first body line is not the description.\n"))
	skWriteSkill(t, filepath.Join(release, "skills"), "notes", "name: notes\ndescription: Write the notes.", "notes body\n")
	lint := filepath.Join(base, "lint-ext")
	writeFile(t, filepath.Join(lint, "EXTENSION.md"), skillMD(
		"name: lint\ndescription: >\n  Checks style\n  and naming.",
		"Lint body first line.\n"))

	doc, err := frontmatter.ParseExtensionDoc("EXTENSION.md", []byte(skillMD("name: x\ndescription: From the frontmatter.", "From the body.\n")))
	if err != nil || doc.Name != "x" || doc.Description != "From the frontmatter." || doc.Body != "From the body.\n" {
		t.Errorf("ParseExtensionDoc = %+v, %v", doc, err)
	}

	relCap, err := extdir.Open(release)
	if err != nil {
		t.Fatal(err)
	}
	lintCap, err := extdir.Open(lint)
	if err != nil {
		t.Fatal(err)
	}
	work := skTempDir(t)
	k := skNewKernel(t, kernel.Config{
		WorkDir:        work,
		UserSkillRoots: []string{},
		Project:        skProject(t, work),
		Capabilities:   []kernel.Capability{relCap},
		Plugins:        []kernel.Capability{lintCap},
	})
	want := "<extensions>\n" +
		"- release: Drafts release notes from merged pull requests.\n" +
		"- lint: Checks style and naming.\n" +
		"</extensions>"
	if diff := cmp.Diff(want, k.Extensions()); diff != "" {
		t.Errorf("manifest (-want +got):\n%s", diff)
	}

	cat := k.Catalog(context.Background())
	s, ok := cat.Lookup("notes")
	if !ok || s.Source != "capability:release" {
		t.Errorf("notes = %+v, %v; want source capability:release", s, ok)
	}

	t.Run("only the project capability", func(t *testing.T) {
		work := skTempDir(t)
		k := skNewKernel(t, kernel.Config{WorkDir: work, UserSkillRoots: []string{}, Project: skProject(t, work)})
		if got := k.Extensions(); got != "" {
			t.Errorf("manifest = %q, want empty: the skills capability is not listed", got)
		}
	})
	t.Run("no capabilities", func(t *testing.T) {
		k := skNewKernel(t, kernel.Config{WorkDir: skTempDir(t), UserSkillRoots: []string{}})
		if got := k.Extensions(); got != "" {
			t.Errorf("manifest = %q, want empty", got)
		}
	})
}

// Protects: M10 (prompt relies on a tool-name pattern). Skill tools carry
// their authors' names, so the base prompt and the skill tool describe skills
// by their role and never by a name pattern.
func TestSkillsPromptDescribesByRole(t *testing.T) {
	for _, mode := range []skills.Mode{skills.ModeCatalog, skills.ModeTools} {
		t.Run(mode.String(), func(t *testing.T) {
			k := skNewKernel(t, kernel.Config{WorkDir: skTempDir(t), UserSkillRoots: []string{}, SkillsMode: mode})
			texts := map[string]string{"SkillsPrompt": k.SkillsPrompt()}
			tools, _ := skills.ToSkillTools(nil, mode)
			for _, tl := range tools {
				texts["tool "+tl.Name] = tl.Description
			}
			for what, text := range texts {
				if !strings.Contains(text, "description") {
					t.Errorf("%s does not point the model at the descriptions: %q", what, text)
				}
				for _, bad := range []string{"*", "skill_", "skills_", "caps__"} {
					if strings.Contains(text, bad) {
						t.Errorf("%s relies on a tool-name pattern (%q): %q", what, bad, text)
					}
				}
			}
		})
	}
}

// skToolFixtureT is a root of skills for the tool tests: valid tool names, a
// hidden skill and two names that cannot be tool names.
type skToolFixtureT struct {
	set  skills.Set
	desc map[string]string // name → the description as the author meant it
	body map[string]string // name → body
	file map[string]string // name → SKILL.md
}

// skToolFixture writes the fixture and scans it as the user source.
func skToolFixture(t *testing.T) skToolFixtureT {
	t.Helper()
	root := skTempDir(t)
	fx := skToolFixtureT{desc: map[string]string{}, body: map[string]string{}, file: map[string]string{}}
	add := func(folder, name, descYAML, desc, extra string) {
		fm := "name: " + name + "\ndescription: " + descYAML + extra
		body := "Body of " + name + ": run scripts/go.sh.\n"
		if name == "hidden-one" {
			body = "hidden body\n"
		}
		fx.file[name] = skWriteSkill(t, root, folder, fm, body)
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

	src := &skills.DirSource{FS: skills.OSFS{}, Source: skills.SourceUser, Roots: []string{root}}
	set, err := src.Skills(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Skills) != 6 {
		t.Fatalf("fixture loaded %v, want 6 skills; warnings:\n%s", skNames(set.Skills), skWarningsText(set.Warnings))
	}
	fx.set = set
	return fx
}

// skRequireLoadText checks the load result's shape: the first line states the
// absolute base dir, then the resolution rule with its cd, then the body.
func skRequireLoadText(t *testing.T, text, dir, body string) {
	t.Helper()
	if !filepath.IsAbs(dir) {
		t.Fatalf("test bug: %q is not absolute", dir)
	}
	first, rest, _ := strings.Cut(text, "\n")
	if !strings.Contains(strings.ToLower(first), "base directory") || !strings.HasSuffix(first, " "+dir) {
		t.Errorf("first line = %q, want it to state the base directory %q", first, dir)
	}
	for _, phrase := range []string{"resolve against that directory", "not your current working directory", "cd "} {
		if !strings.Contains(rest, phrase) {
			t.Errorf("load text lacks the resolution rule %q:\n%s", phrase, text)
		}
	}
	// POSIX single quotes, as a person would type them.
	quoted := "'" + strings.ReplaceAll(dir, "'", `'\''`) + "'"
	if !strings.Contains(rest, "cd "+dir+" ") && !strings.Contains(rest, "cd "+quoted+" ") {
		t.Errorf("load text does not say cd %s:\n%s", dir, text)
	}
	i := strings.Index(text, "not your current working directory")
	if !strings.HasSuffix(text, body) || i < 0 || strings.LastIndex(text, body) < i {
		t.Errorf("load text does not end with the body after the rule:\n%s", text)
	}
}

// skNewKernel builds a kernel and closes it when the test ends.
func skNewKernel(t *testing.T, cfg kernel.Config) *kernel.Kernel {
	t.Helper()
	k, err := kernel.New(cfg)
	if err != nil {
		t.Fatalf("kernel.New: %v", err)
	}
	t.Cleanup(func() {
		if err := k.Close(); err != nil {
			t.Errorf("close kernel: %v", err)
		}
	})
	return k
}

// skProject is the project skills capability on workDir; the kernel closes it.
func skProject(t *testing.T, workDir string) *capskills.Capability {
	t.Helper()
	port, err := workfs.New(workDir)
	if err != nil {
		t.Fatal(err)
	}
	return capskills.New(port, nil)
}

// skTempDir is a symlink-resolved temp dir, so paths compare equal to what the
// guarded port reports.
func skTempDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// skWriteSkill writes root/folder/SKILL.md and returns its path.
func skWriteSkill(t *testing.T, root, folder, fm, body string) string {
	t.Helper()
	p := filepath.Join(root, folder, "SKILL.md")
	writeFile(t, p, skillMD(fm, body))
	return p
}

func skNames(ss []skills.Skill) []string {
	out := []string{}
	for _, s := range ss {
		out = append(out, s.Name)
	}
	return out
}

func skToolNames(ts []contract.Tool) []string {
	out := []string{}
	for _, tl := range ts {
		out = append(out, tl.Name)
	}
	return out
}

func skMustLookup(t *testing.T, ss []skills.Skill, name string) skills.Skill {
	t.Helper()
	for _, s := range ss {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no skill %q in %v", name, skNames(ss))
	return skills.Skill{}
}

func skJSONName(name string) string {
	b, _ := json.Marshal(map[string]string{"name": name})
	return string(b)
}

func skWarningsText(ws []contract.Warning) string {
	var b strings.Builder
	for _, w := range ws {
		b.WriteString("  " + w.String() + "\n")
	}
	return b.String()
}

// skRequireWarning fails unless some warning is about path and its message
// holds every one of want.
func skRequireWarning(t *testing.T, ws []contract.Warning, path string, want ...string) {
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
	t.Errorf("no warning about %s saying %q; got:\n%s", path, want, skWarningsText(ws))
}

// skWriteRaw is os.WriteFile for raw bytes (binary files, CRLF).
func skWriteRaw(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
