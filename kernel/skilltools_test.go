package kernel_test

// Contract tests of what the kernel adds to the one exit from skills to the
// model (DESIGN.md "C3"): a hidden skill stays hidden in both modes, the
// <extensions> manifest, and prompts that describe skills by their role.

import (
	"context"
	"encoding/json"
	"github.com/helios-agents/helios/kernel/skills/skillfs/skillfstest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/helios-agents/helios/caps/extdir"
	capskills "github.com/helios-agents/helios/caps/skills"
	"github.com/helios-agents/helios/frontmatter"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/workfs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// disable-model-invocation hides a skill from the model in both modes (no
// tool, and the catalog tool does not find it), but a person loads it by name
// through the kernel.
func TestSkillToolsHiddenSkill(t *testing.T) {
	for _, mode := range []skills.Mode{skills.ModeCatalog, skills.ModeTools} {
		t.Run(mode.String(), func(t *testing.T) {
			root := skillfstest.RealTempDir(t)
			skillfstest.WriteSkill(t, root, "hidden-one", "name: hidden-one\ndescription: Only for people.\ndisable-model-invocation: true", "hidden body\n")
			skillfstest.WriteSkill(t, root, "shown", "name: shown\ndescription: For the model.", "shown body\n")
			k := ksNewKernel(t, kernel.Config{WorkDir: skillfstest.RealTempDir(t), UserSkillRoots: []string{root}, SkillsMode: mode})
			ctx := context.Background()

			cat := k.Catalog(ctx)
			s, ok := cat.Lookup("hidden-one")
			require.True(t, ok, "catalog lookup hidden-one = %+v; want it, marked hidden", s)
			require.True(t, s.DisableModelInvocation, "catalog lookup hidden-one = %+v; want it, marked hidden", s)
			assert.Equal(t, []string{"shown"}, ksNames(cat.Visible()), "visible")

			tools, _ := k.Tools(ctx, cat, k.CatalogBudget())
			for _, tl := range tools {
				assert.NotEqual(t, "hidden-one", tl.Name, "tool %q exposes the hidden skill", tl.Name)
				assert.NotContains(t, tl.Description, "Only for people", "tool %q exposes the hidden skill", tl.Name)
				res, err := tl.Call(ctx, json.RawMessage(ksJSONName("hidden-one")))
				require.NoError(t, err)
				assert.NotContains(t, res.Content, "hidden body", "tool %q loads the hidden skill", tl.Name)
			}
			if mode == skills.ModeTools {
				assert.Equal(t, []string{"shown"}, ksToolNames(tools), "tools")
			}

			text, err := k.LoadSkill(ctx, "hidden-one")
			require.NoError(t, err, "a person cannot load the hidden skill")
			assert.True(t, strings.HasSuffix(text, "hidden body\n"), "LoadSkill(hidden-one) = %q, want its body", text)
			_, err = k.LoadSkill(ctx, "hiden-one")
			assert.ErrorIs(t, err, kernel.ErrUnknownSkill, "LoadSkill(hiden-one)")
			assert.ErrorContains(t, err, "hidden-one", "LoadSkill(hiden-one): want a suggestion")
		})
	}
}

// Protects: M9 (skills capability in <extensions>), M13 (extension doc
// ignores frontmatter). The manifest has one line per capability with a
// description, from the EXTENSION.md frontmatter (not its body), in
// capability order; the project skills capability, whose description is
// empty, is not listed; with nothing to list the manifest is empty.
// Capability skills carry the source "capability:<name>".
func TestSkillsExtensionsManifest(t *testing.T) {
	base := skillfstest.RealTempDir(t)
	release := filepath.Join(base, "release-ext")
	ksWriteFile(t, filepath.Join(release, "EXTENSION.md"), ksSkillMD(
		"name: release\ndescription: Drafts release notes from merged pull requests.",
		"# Release helper\n\nThis first body line is not the description.\n"))
	skillfstest.WriteSkill(t, filepath.Join(release, "skills"), "notes", "name: notes\ndescription: Write the notes.", "notes body\n")
	lint := filepath.Join(base, "lint-ext")
	ksWriteFile(t, filepath.Join(lint, "EXTENSION.md"), ksSkillMD(
		"name: lint\ndescription: >\n  Checks style\n  and naming.",
		"Lint body first line.\n"))

	doc, err := frontmatter.ParseExtensionDoc("EXTENSION.md", []byte(ksSkillMD("name: x\ndescription: From the frontmatter.", "From the body.\n")))
	assert.NoError(t, err, "ParseExtensionDoc = %+v", doc)
	assert.Equal(t, "x", doc.Name, "ParseExtensionDoc = %+v", doc)
	assert.Equal(t, "From the frontmatter.", doc.Description, "ParseExtensionDoc = %+v", doc)
	assert.Equal(t, "From the body.\n", doc.Body, "ParseExtensionDoc = %+v", doc)

	relCap, err := extdir.Open(release)
	require.NoError(t, err)
	lintCap, err := extdir.Open(lint)
	require.NoError(t, err)
	work := skillfstest.RealTempDir(t)
	k := ksNewKernel(t, kernel.Config{
		WorkDir:        work,
		UserSkillRoots: []string{},
		Project:        ksProject(t, work),
		Capabilities:   []kernel.Capability{relCap},
		Plugins:        []kernel.Capability{lintCap},
	})
	want := "<extensions>\n" +
		"- release: Drafts release notes from merged pull requests.\n" +
		"- lint: Checks style and naming.\n" +
		"</extensions>"
	assert.Empty(t, cmp.Diff(want, k.Extensions()), "manifest (-want +got)")

	cat := k.Catalog(context.Background())
	s, ok := cat.Lookup("notes")
	assert.True(t, ok, "notes = %+v; want source capability:release", s)
	assert.Equal(t, "capability:release", s.Source, "notes = %+v; want source capability:release", s)

	t.Run("only the project capability", func(t *testing.T) {
		work := skillfstest.RealTempDir(t)
		k := ksNewKernel(t, kernel.Config{WorkDir: work, UserSkillRoots: []string{}, Project: ksProject(t, work)})
		assert.Empty(t, k.Extensions(), "manifest, want empty: the skills capability is not listed")
	})
	t.Run("no capabilities", func(t *testing.T) {
		k := ksNewKernel(t, kernel.Config{WorkDir: skillfstest.RealTempDir(t), UserSkillRoots: []string{}})
		assert.Empty(t, k.Extensions(), "manifest")
	})
}

// Protects: M10 (prompt relies on a tool-name pattern). Skill tools carry
// their authors' names, so the base prompt and the skill tool describe skills
// by their role and never by a name pattern.
func TestSkillsPromptDescribesByRole(t *testing.T) {
	for _, mode := range []skills.Mode{skills.ModeCatalog, skills.ModeTools} {
		t.Run(mode.String(), func(t *testing.T) {
			k := ksNewKernel(t, kernel.Config{WorkDir: skillfstest.RealTempDir(t), UserSkillRoots: []string{}, SkillsMode: mode})
			texts := map[string]string{"SkillsPrompt": k.SkillsPrompt()}
			tools, _ := skills.ToSkillTools(skills.Catalog{}, mode, skills.Budget{})
			for _, tl := range tools {
				texts["tool "+tl.Name] = tl.Description
			}
			for what, text := range texts {
				assert.Contains(t, text, "description", "%s does not point the model at the descriptions", what)
				for _, bad := range []string{"*", "skill_", "skills_", "caps__"} {
					assert.NotContains(t, text, bad, "%s relies on a tool-name pattern", what)
				}
			}
		})
	}
}

// ksNewKernel builds a kernel and closes it when the test ends.
func ksNewKernel(t *testing.T, cfg kernel.Config) *kernel.Kernel {
	t.Helper()
	k, err := kernel.New(cfg)
	require.NoError(t, err, "kernel.New")
	t.Cleanup(func() {
		assert.NoError(t, k.Close(), "close kernel")
	})
	return k
}

// ksProject is the project skills capability on workDir; the kernel closes it.
func ksProject(t *testing.T, workDir string) *capskills.Capability {
	t.Helper()
	port, err := workfs.New(workDir)
	require.NoError(t, err)
	return capskills.New(port, nil)
}

func ksNames(ss []skills.Skill) []string {
	out := []string{}
	for _, s := range ss {
		out = append(out, s.Name)
	}
	return out
}

func ksToolNames(ts []contract.Tool) []string {
	out := []string{}
	for _, tl := range ts {
		out = append(out, tl.Name)
	}
	return out
}

func ksJSONName(name string) string {
	b, _ := json.Marshal(map[string]string{"name": name})
	return string(b)
}

// ksWriteFile creates path (and its parents) with content.
func ksWriteFile(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}

// ksSkillMD renders a SKILL.md with the given frontmatter lines and body.
func ksSkillMD(frontmatter, body string) string {
	return "---\n" + frontmatter + "\n---\n" + body
}
