//go:build unix

package unit_test

// Black-box contract tests of skills: the format, the scan of a root and the
// merge of the three sources (DESIGN.md "C2 Skills"), and the guarded read of
// project skills (C5).
//
// Loading is lenient and validation strict (C2): the published world bends
// the spec, so a skill is skipped only when it cannot be used, and every skip
// or doubt is a warning naming the file. The tests below check both halves:
// that what is usable loads, and that what is skipped says why while its
// neighbours still load. Unix-only: they need symlinks and FIFOs.

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/helios-agents/helios/kernel/skills/skillfs/skillfstest"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/helios-agents/helios/caps/extdir"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/kernel/skills/skillfs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSkillsValidateName(t *testing.T) {
	tests := []struct {
		name  string
		valid bool
	}{
		{"pdf", true},
		{"pdf-forms", true},
		{"v2-beta", true},
		{"a", true},
		{strings.Repeat("a", 64), true},
		{"技能", true},
		{"мой-навык", true},
		{"", false},
		{"MySkill", false},
		{"Мой-навык", false},
		{"my_skill", false},
		{"my skill", false},
		{"-x", false},
		{"x-", false},
		{"a--b", false},
		{strings.Repeat("a", 65), false},
	}
	for _, tt := range tests {
		err := skillfs.ValidateName(tt.name)
		if tt.valid {
			assert.NoError(t, err, "ValidateName(%q)", tt.name)
		} else {
			assert.ErrorIs(t, err, skillfs.ErrInvalidName, "ValidateName(%q)", tt.name)
		}
	}
}

func TestSkillsValidToolName(t *testing.T) {
	tests := map[string]bool{
		"pdf": true, "My_Skill-2": true, strings.Repeat("a", 64): true,
		"": false, "技能": false, "My Skill": false, "a.b": false, strings.Repeat("a", 65): false,
	}
	for name, want := range tests {
		assert.Equal(t, want, skills.ValidToolName(name), "ValidToolName(%q)", name)
	}
}

// The formats published skills really use load. What bends the spec loads
// with a warning naming the file (and the field); what follows it loads with
// no warning at all.
func TestSkillsPublishedFormatsLoad(t *testing.T) {
	long := strings.Repeat("Fill forms. ", 85) + "Done." // 1,025 characters
	tests := []struct {
		name     string
		path     string            // relative to the root
		content  string            // of path
		extra    map[string]string // more files, relative to the root
		wantName string
		wantDesc string
		wantBody string     // "" means skip the check
		wantWarn [][]string // each: substrings of one warning about path; nil means no warning
	}{
		{
			name:     "double-quoted description",
			path:     "pdf/SKILL.md",
			content:  skillMD(`name: pdf`+"\n"+`description: "Fill PDF forms: \"text\" fields; checkboxes."`, "# PDF\n"),
			wantName: "pdf", wantDesc: `Fill PDF forms: "text" fields; checkboxes.`, wantBody: "# PDF\n",
		},
		{
			name:     "single-quoted description",
			path:     "pdf/SKILL.md",
			content:  skillMD("name: 'pdf'\ndescription: 'It''s for PDF forms: use it.'", ""),
			wantName: "pdf", wantDesc: "It's for PDF forms: use it.",
		},
		{
			name:     "block scalar description",
			path:     "pdf/SKILL.md",
			content:  skillMD("name: pdf\ndescription: |-\n  Fill PDF forms.\n  Use when a PDF has fields.", "body\n"),
			wantName: "pdf", wantDesc: "Fill PDF forms.\nUse when a PDF has fields.", wantBody: "body\n",
		},
		{
			name:     "folded description",
			path:     "pdf/SKILL.md",
			content:  skillMD("name: pdf\ndescription: >\n  Fill PDF\n  forms.", ""),
			wantName: "pdf", wantDesc: "Fill PDF forms.",
		},
		{
			name:     "license and compatibility",
			path:     "pdf/SKILL.md",
			content:  skillMD("name: pdf\ndescription: Fill PDF forms.\nlicense: Proprietary. LICENSE.txt has complete terms\ncompatibility: Requires python3 and pdftk", ""),
			wantName: "pdf", wantDesc: "Fill PDF forms.",
		},
		{
			name:     "allowed-tools as a string and metadata with dates",
			path:     "pdf/SKILL.md",
			content:  skillMD("name: pdf\ndescription: Fill PDF forms.\nallowed-tools: Bash(python3:*) Read\nmetadata:\n  author: ada\n  updated: 2025-01-15\n  version: 1.2", ""),
			wantName: "pdf", wantDesc: "Fill PDF forms.",
		},
		{
			name:     "description over 1,024 characters",
			path:     "pdf/SKILL.md",
			content:  skillMD("name: pdf\ndescription: "+long, ""),
			wantName: "pdf", wantDesc: long,
			wantWarn: [][]string{{"description", "1025 characters"}},
		},
		{
			name:     "name with capitals and a space",
			path:     "pdf-tools/SKILL.md",
			content:  skillMD("name: PDF Tools\ndescription: Fill PDF forms.", ""),
			wantName: "PDF Tools", wantDesc: "Fill PDF forms.",
			wantWarn: [][]string{{`"PDF Tools"`, "uppercase"}, {`"PDF Tools"`, "differs from its folder", `"pdf-tools"`}},
		},
		{
			name:     "name with a space",
			path:     "my skill/SKILL.md",
			content:  skillMD("name: my skill\ndescription: Fill PDF forms.", ""),
			wantName: "my skill", wantDesc: "Fill PDF forms.",
			wantWarn: [][]string{{`"my skill"`, "only lowercase letters, digits and hyphens"}},
		},
		{
			name:     "name differs from its folder",
			path:     "pdf/SKILL.md",
			content:  skillMD("name: pdf-forms\ndescription: Fill PDF forms.", ""),
			wantName: "pdf-forms", wantDesc: "Fill PDF forms.",
			wantWarn: [][]string{{`"pdf-forms"`, "differs from its folder", `"pdf"`}},
		},
		{
			name:     "missing name takes the folder's",
			path:     "pdf/SKILL.md",
			content:  skillMD("description: Fill PDF forms.", ""),
			wantName: "pdf", wantDesc: "Fill PDF forms.",
			wantWarn: [][]string{{"missing name", `"pdf"`}},
		},
		{
			name:     "allowed-tools as a list",
			path:     "pdf/SKILL.md",
			content:  skillMD("name: pdf\ndescription: Fill PDF forms.\nallowed-tools:\n  - Bash\n  - Read", ""),
			wantName: "pdf", wantDesc: "Fill PDF forms.",
			wantWarn: [][]string{{"allowed-tools", "list"}},
		},
		{
			name:     "metadata as a date",
			path:     "pdf/SKILL.md",
			content:  skillMD("name: pdf\ndescription: Fill PDF forms.\nmetadata: 2025-01-15", ""),
			wantName: "pdf", wantDesc: "Fill PDF forms.",
			wantWarn: [][]string{{"metadata", "timestamp"}},
		},
		{
			name:     "unknown key",
			path:     "pdf/SKILL.md",
			content:  skillMD("name: pdf\ndescription: Fill PDF forms.\nx-house-key: 2", ""),
			wantName: "pdf", wantDesc: "Fill PDF forms.",
			wantWarn: [][]string{{`unknown frontmatter key "x-house-key"`}},
		},
		{
			name:     "CRLF and a byte order mark",
			path:     "crlf/SKILL.md",
			content:  "\ufeff---\r\nname: crlf\r\ndescription: Written on Windows.\r\n---\r\n# Title\r\nLine.\r\n",
			wantName: "crlf", wantDesc: "Written on Windows.", wantBody: "# Title\nLine.\n",
		},
		{
			name:     "lowercase skill.md when there is no SKILL.md",
			path:     "lower/skill.md",
			content:  skillMD("name: lower\ndescription: Lowercase file name.", "lower body\n"),
			wantName: "lower", wantDesc: "Lowercase file name.", wantBody: "lower body\n",
		},
		{
			name:     "SKILL.md wins over skill.md",
			path:     "both/SKILL.md",
			content:  skillMD("name: both\ndescription: From SKILL.md.", ""),
			extra:    map[string]string{"both/skill.md": skillMD("name: both\ndescription: From skill.md.", "")},
			wantName: "both", wantDesc: "From SKILL.md.",
		},
		{
			name:     "flat file",
			path:     "flat.md",
			content:  skillMD("name: flat\ndescription: A single-file skill.", "flat body\n"),
			wantName: "flat", wantDesc: "A single-file skill.", wantBody: "flat body\n",
		},
		{
			name:     "Chinese name",
			path:     "技能/SKILL.md",
			content:  skillMD("name: 技能\ndescription: 一个技能。", ""),
			wantName: "技能", wantDesc: "一个技能。",
		},
		{
			name:     "Cyrillic name",
			path:     "мой-навык/SKILL.md",
			content:  skillMD("name: мой-навык\ndescription: Мой навык.", ""),
			wantName: "мой-навык", wantDesc: "Мой навык.",
		},
		{
			name:     "NFKC-normalized name",
			path:     "pdf/SKILL.md",
			content:  skillMD("name: ｐｄｆ\ndescription: Fullwidth letters.", ""),
			wantName: "pdf", wantDesc: "Fullwidth letters.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := skillfstest.RealTempDir(t)
			file := filepath.Join(root, tt.path)
			skWriteRaw(t, file, []byte(tt.content))
			for p, c := range tt.extra {
				writeFile(t, filepath.Join(root, p), c)
			}
			set := skScan(t, root)
			require.Len(t, set.Skills, 1, "loaded %v, want one skill; warnings:\n%s", skNames(set.Skills), skWarningsText(set.Warnings))
			s := set.Skills[0]
			assert.Equal(t, tt.wantName, s.Name, "skill = {Name:%q Description:%q File:%q BaseDir:%q Source:%q}\nwant {Name:%q Description:%q File:%q BaseDir:%q Source:user}", s.Name, s.Description, s.File, s.BaseDir, s.Source, tt.wantName, tt.wantDesc, file, filepath.Dir(file))
			assert.Equal(t, tt.wantDesc, s.Description, "skill = {Name:%q Description:%q File:%q BaseDir:%q Source:%q}\nwant {Name:%q Description:%q File:%q BaseDir:%q Source:user}", s.Name, s.Description, s.File, s.BaseDir, s.Source, tt.wantName, tt.wantDesc, file, filepath.Dir(file))
			assert.Equal(t, file, s.File, "skill = {Name:%q Description:%q File:%q BaseDir:%q Source:%q}\nwant {Name:%q Description:%q File:%q BaseDir:%q Source:user}", s.Name, s.Description, s.File, s.BaseDir, s.Source, tt.wantName, tt.wantDesc, file, filepath.Dir(file))
			assert.Equal(t, filepath.Dir(file), s.BaseDir, "skill = {Name:%q Description:%q File:%q BaseDir:%q Source:%q}\nwant {Name:%q Description:%q File:%q BaseDir:%q Source:user}", s.Name, s.Description, s.File, s.BaseDir, s.Source, tt.wantName, tt.wantDesc, file, filepath.Dir(file))
			assert.Equal(t, "user", s.Source, "skill = {Name:%q Description:%q File:%q BaseDir:%q Source:%q}\nwant {Name:%q Description:%q File:%q BaseDir:%q Source:user}", s.Name, s.Description, s.File, s.BaseDir, s.Source, tt.wantName, tt.wantDesc, file, filepath.Dir(file))
			c, err := s.Load(context.Background())
			require.NoError(t, err, "load")
			if tt.wantBody != "" {
				assert.Equal(t, tt.wantBody, c.Body, "body")
			}
			for _, w := range set.Warnings {
				assert.Equal(t, file, w.Path, "unexpected warning: %s", w)
				assert.NotContains(t, w.Message, "skipped", "unexpected warning: %s", w)
			}
			assert.Len(t, set.Warnings, len(tt.wantWarn), "got %d warnings, want %d:\n%s", len(set.Warnings), len(tt.wantWarn), skWarningsText(set.Warnings))
			for _, want := range tt.wantWarn {
				skRequireWarning(t, set.Warnings, file, want...)
			}
		})
	}
}

// Protects: M4 (description falls back to the folder name). Each kind of
// unusable skill is skipped with a warning naming the file and the reason,
// while every other skill of the same root still loads; nothing is made up
// from a folder name. Checked for the user source (OS) and the project source
// (guarded port), which read through different file systems.
func TestSkillsUnusableSkipped(t *testing.T) {
	type bad struct {
		path   string // relative to the root: what the warning is about
		reason string
	}
	bads := []bad{
		{"no-frontmatter/SKILL.md", "no frontmatter"},
		{"unclosed/SKILL.md", "not closed"},
		{"bad-yaml/SKILL.md", "not valid YAML"},
		{"not-mapping/SKILL.md", "not a mapping"},
		{"no-desc/SKILL.md", "missing description"},
		{"empty-desc/SKILL.md", "empty description"},
		{"list-desc/SKILL.md", "description is not a string"},
		{"binary/SKILL.md", "binary"},
		{"flat-no-desc.md", "missing description"},
		{"broken-link", "broken symlink"},
		{"fifo", "not a regular file or directory"},
		{"no-skill-md", "no SKILL.md"},
	}
	fill := func(t *testing.T, root string) {
		for _, g := range []string{"aaa-good", "mmm-good", "zzz-good"} {
			skillfstest.WriteSkill(t, root, g, "name: "+g+"\ndescription: Usable.", "")
		}
		files := map[string]string{
			"no-frontmatter/SKILL.md": "# No frontmatter\n\nname: no-frontmatter\ndescription: Not metadata.\n",
			"unclosed/SKILL.md":       "---\nname: unclosed\ndescription: Never closed.\n\nbody\n",
			"bad-yaml/SKILL.md":       skillMD("name: bad-yaml\ndescription: [oops", ""),
			"not-mapping/SKILL.md":    skillMD("- name\n- description", ""),
			"no-desc/SKILL.md":        skillMD("name: no-desc", "A body is not a description.\n"),
			"empty-desc/SKILL.md":     skillMD("name: empty-desc\ndescription: \"   \"", ""),
			"list-desc/SKILL.md":      skillMD("name: list-desc\ndescription: [a, b]", ""),
			"flat-no-desc.md":         skillMD("name: flat-no-desc", ""),
			"no-skill-md/README.md":   "# Not a skill\n",
		}
		for p, c := range files {
			writeFile(t, filepath.Join(root, p), c)
		}
		skWriteRaw(t, filepath.Join(root, "binary", "SKILL.md"), []byte("---\nname: binary\ndescription: x\n---\n\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"))
		require.NoError(t, os.Symlink("missing-target", filepath.Join(root, "broken-link")))
		require.NoError(t, syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644), "mkfifo")
	}
	check := func(t *testing.T, root string, set skills.Set) {
		assert.Empty(t, cmp.Diff([]string{"aaa-good", "mmm-good", "zzz-good"}, skNames(set.Skills)), "loaded skills (-want +got)\nwarnings:\n%s", skWarningsText(set.Warnings))
		for _, s := range set.Skills {
			assert.Equal(t, "Usable.", s.Description, "skill %q has a made-up description %q", s.Name, s.Description)
		}
		for _, b := range bads {
			skRequireWarning(t, set.Warnings, filepath.Join(root, b.path), b.reason, "skipped")
		}
		assert.False(t, set.Incomplete, "unusable files made the result incomplete; they are permanent, not transient")
	}

	t.Run("user", func(t *testing.T) {
		root := skillfstest.RealTempDir(t)
		fill(t, root)
		check(t, root, skScan(t, root))
	})
	t.Run("project", func(t *testing.T) {
		work := skillfstest.RealTempDir(t)
		root := filepath.Join(work, ".helios", "skills")
		fill(t, root)
		p := skProject(t, work)
		t.Cleanup(func() { p.Close() })
		set, err := p.Skills(context.Background())
		require.NoError(t, err)
		check(t, root, set)
	})
	t.Run("kernel catalog", func(t *testing.T) {
		root := skillfstest.RealTempDir(t)
		fill(t, root)
		k := skNewKernel(t, kernel.Config{WorkDir: skillfstest.RealTempDir(t), UserSkillRoots: []string{root}})
		cat := k.Catalog(context.Background())
		check(t, root, skills.Set{Skills: cat.Skills, Warnings: cat.Warnings, Incomplete: !cat.Complete})
	})
}

// Protects: M5 (scan recurses). Only direct children of a root are skills:
// a SKILL.md two levels down is a bundle's resource, not a skill, and hidden
// entries are not read at all.
func TestSkillsScanDirectChildrenOnly(t *testing.T) {
	root := skillfstest.RealTempDir(t)
	skillfstest.WriteSkill(t, root, "bundle", "name: bundle\ndescription: The only skill.", "")
	skillfstest.WriteSkill(t, root, "bundle/nested", "name: nested\ndescription: A resource of bundle.", "")
	skillfstest.WriteSkill(t, root, "bundle/references", "name: references\ndescription: Also a resource.", "")
	skillfstest.WriteSkill(t, root, "group/inner", "name: inner\ndescription: Two levels down.", "")
	skillfstest.WriteSkill(t, root, ".hidden", "name: hidden\ndescription: Hidden folder.", "")
	writeFile(t, filepath.Join(root, ".flat-hidden.md"), skillMD("name: flat-hidden\ndescription: Hidden file.", ""))
	writeFile(t, filepath.Join(root, "bundle", "scripts", "run.sh"), "#!/bin/sh\n")

	set := skScan(t, root)
	assert.Empty(t, cmp.Diff([]string{"bundle"}, skNames(set.Skills)), "skills (-want +got)\nwarnings:\n%s", skWarningsText(set.Warnings))
	skRequireWarning(t, set.Warnings, filepath.Join(root, "group"), "no SKILL.md", "skipped")
	for _, w := range set.Warnings {
		assert.NotContains(t, w.Path, "hidden", "a hidden or nested entry was read: %s", w)
		assert.NotContains(t, w.Path, "nested", "a hidden or nested entry was read: %s", w)
	}
}

// Order inside a root is by code point, never locale, and so is the kernel's
// catalog within a source.
func TestSkillsCodePointOrder(t *testing.T) {
	root := skillfstest.RealTempDir(t)
	for _, n := range []string{"é", "a", "Z", "B"} {
		skillfstest.WriteSkill(t, root, n, "name: "+n+"\ndescription: Letter "+n+".", "")
	}
	want := []string{"B", "Z", "a", "é"} // bytes 0x42 0x5A 0x61 0xC3; a locale says a B é Z
	assert.Empty(t, cmp.Diff(want, skNames(skScan(t, root).Skills)), "DirSource order (-want +got)")
	k := skNewKernel(t, kernel.Config{WorkDir: skillfstest.RealTempDir(t), UserSkillRoots: []string{root}})
	assert.Empty(t, cmp.Diff(want, skNames(k.Catalog(context.Background()).Skills)), "catalog order (-want +got)")
}

// A later folder of the same root (by code point) that reuses a name is not
// added, and the warning names both files.
func TestSkillsSameRootLaterFolderLoses(t *testing.T) {
	root := skillfstest.RealTempDir(t)
	first := skillfstest.WriteSkill(t, root, "Zeta", "name: same\ndescription: From Zeta.", "")   // 'Z' 0x5A
	later := skillfstest.WriteSkill(t, root, "alpha", "name: same\ndescription: From alpha.", "") // 'a' 0x61
	set := skScan(t, root)
	require.Len(t, set.Skills, 1, "skills, want only Zeta's")
	require.Equal(t, "From Zeta.", set.Skills[0].Description, "skills, want only Zeta's")
	skRequireWarning(t, set.Warnings, later, `"same"`, first, later)
}

// Protects: M3 (later source overrides). The merge keeps the first skill
// of each name in source order; a later one is not added and the warning
// names both origins. Skills keep merge order: sources in order, by name
// within a source.
func TestSkillsMergeFirstWins(t *testing.T) {
	base := skillfstest.RealTempDir(t)
	src := func(label string, names ...string) (skEntry, map[string]string) {
		root := filepath.Join(base, label)
		files := map[string]string{}
		for _, n := range names {
			files[n] = skillfstest.WriteSkill(t, root, n, "name: "+n+"\ndescription: "+n+" from "+label+".", "")
		}
		return skEntry{Source: label, Provider: &skillfs.DirSource{FS: skillfs.OSFS{}, Source: label, Roots: []string{root}}}, files
	}
	user, uf := src("user", "shared", "zz-user")
	project, pf := src("project", "shared", "mid", "beta")
	capab, cf := src("capability:ext", "shared", "beta", "aaa-cap")

	cat := skMerge(context.Background(), []skEntry{user, project, capab})
	type row struct{ Name, Source, Description string }
	var got []row
	for _, s := range cat.Skills {
		got = append(got, row{s.Name, s.Source, s.Description})
	}
	want := []row{
		{"shared", "user", "shared from user."},
		{"zz-user", "user", "zz-user from user."},
		{"beta", "project", "beta from project."},
		{"mid", "project", "mid from project."},
		{"aaa-cap", "capability:ext", "aaa-cap from capability:ext."},
	}
	assert.Empty(t, cmp.Diff(want, got), "merged skills (-want +got)")
	assert.True(t, cat.Complete, "catalog incomplete")
	assert.Len(t, cat.Warnings, 3, "got %d warnings, want 3 conflicts:\n%s", len(cat.Warnings), skWarningsText(cat.Warnings))
	skRequireWarning(t, cat.Warnings, pf["shared"], `"shared"`, "user ("+uf["shared"]+")", "project ("+pf["shared"]+")")
	skRequireWarning(t, cat.Warnings, cf["shared"], `"shared"`, "user ("+uf["shared"]+")", "capability:ext ("+cf["shared"]+")")
	skRequireWarning(t, cat.Warnings, cf["beta"], `"beta"`, "project ("+pf["beta"]+")", "capability:ext ("+cf["beta"]+")")
}

// The kernel merges user, project and capability skills (builtins, then
// plugins) in that order, first wins, by name within a source; conflicts
// warn with both origins. Capability skills are "capability:<name>".
func TestSkillsKernelSourceOrder(t *testing.T) {
	base := skillfstest.RealTempDir(t)
	userRoot := filepath.Join(base, "home", ".helios", "skills")
	work := filepath.Join(base, "work")
	projRoot := filepath.Join(work, ".helios", "skills")
	ext := filepath.Join(base, "ext")

	uf := skillfstest.WriteSkill(t, userRoot, "shared", "name: shared\ndescription: User's.", "")
	skillfstest.WriteSkill(t, userRoot, "zz-user", "name: zz-user\ndescription: User only.", "")
	pf := skillfstest.WriteSkill(t, projRoot, "shared", "name: shared\ndescription: Project's.", "")
	skillfstest.WriteSkill(t, projRoot, "proj-b", "name: proj-b\ndescription: Project B.", "")
	skillfstest.WriteSkill(t, projRoot, "proj-a", "name: proj-a\ndescription: Project A.", "")
	writeFile(t, filepath.Join(ext, "EXTENSION.md"), skillMD("name: ext\ndescription: An extension.", ""))
	ef := skillfstest.WriteSkill(t, filepath.Join(ext, "skills"), "proj-a", "name: proj-a\ndescription: Extension's.", "")
	skillfstest.WriteSkill(t, filepath.Join(ext, "skills"), "ext-only", "name: ext-only\ndescription: Extension only.", "")
	extCap, err := extdir.Open(ext)
	require.NoError(t, err)
	plug := &skCap{name: "plug", skills: skStatic("aaa-plugin", "shared")}

	k := skNewKernel(t, kernel.Config{
		WorkDir:        work,
		UserSkillRoots: []string{userRoot},
		Project:        skProject(t, work),
		Capabilities:   []kernel.Capability{extCap},
		Plugins:        []kernel.Capability{plug},
	})
	cat := k.Catalog(context.Background())
	type row struct{ Name, Source, Description string }
	var got []row
	for _, s := range cat.Skills {
		got = append(got, row{s.Name, s.Source, s.Description})
	}
	want := []row{
		{"shared", "user", "User's."},
		{"zz-user", "user", "User only."},
		{"proj-a", "project", "Project A."},
		{"proj-b", "project", "Project B."},
		{"ext-only", "capability:ext", "Extension only."},
		{"aaa-plugin", "capability:plug", "aaa-plugin, statically."},
	}
	assert.Empty(t, cmp.Diff(want, got), "catalog (-want +got)\nwarnings:\n%s", skWarningsText(cat.Warnings))
	assert.True(t, cat.Complete, "catalog incomplete:\n%s", skWarningsText(cat.Warnings))
	skRequireWarning(t, cat.Warnings, pf, `"shared"`, uf, pf)
	skRequireWarning(t, cat.Warnings, ef, `"proj-a"`, filepath.Join(projRoot, "proj-a", "SKILL.md"), ef)
	var plugWarned bool
	for _, w := range cat.Warnings {
		plugWarned = plugWarned || (w.Source == "capability:plug" && strings.Contains(w.Message, `"shared"`) && strings.Contains(w.Message, uf))
	}
	assert.True(t, plugWarned, "no warning names both origins of the plugin's shared:\n%s", skWarningsText(cat.Warnings))
}

// Protects: M11 (project root scanned at the wrong path). The project roots
// are exactly <workDir>/.helios/skills, <workDir>/.agents/skills, then
// <workDir>/.claude/skills (C23), and the earlier root wins a conflict.
func TestSkillsProjectRoots(t *testing.T) {
	work := skillfstest.RealTempDir(t)
	hf := skillfstest.WriteSkill(t, filepath.Join(work, ".helios", "skills"), "both", "name: both\ndescription: From .helios.", "")
	skillfstest.WriteSkill(t, filepath.Join(work, ".helios", "skills"), "helios-only", "name: helios-only\ndescription: Only in .helios.", "")
	af := skillfstest.WriteSkill(t, filepath.Join(work, ".agents", "skills"), "both", "name: both\ndescription: From .agents.", "")
	skillfstest.WriteSkill(t, filepath.Join(work, ".agents", "skills"), "agents-only", "name: agents-only\ndescription: Only in .agents.", "")
	skillfstest.WriteSkill(t, filepath.Join(work, ".claude", "skills"), "both", "name: both\ndescription: From .claude.", "")
	skillfstest.WriteSkill(t, filepath.Join(work, ".claude", "skills"), "claude-only", "name: claude-only\ndescription: Only in .claude.", "")
	skillfstest.WriteSkill(t, filepath.Join(work, ".helios", "policies"), "policy", "name: policy\ndescription: Not a skills root.", "")
	skillfstest.WriteSkill(t, filepath.Join(work, "skills"), "loose", "name: loose\ndescription: Not a skills root.", "")

	p := skProject(t, work)
	wantRoots := []string{filepath.Join(work, ".helios", "skills"), filepath.Join(work, ".agents", "skills"), filepath.Join(work, ".claude", "skills")}
	assert.Empty(t, cmp.Diff(wantRoots, p.Roots()), "project roots (-want +got)")
	k := skNewKernel(t, kernel.Config{WorkDir: work, UserSkillRoots: []string{}, Project: p})
	cat := k.Catalog(context.Background())
	got := map[string]string{}
	for _, s := range cat.Skills {
		got[s.Name] = s.Source + ": " + s.Description
	}
	want := map[string]string{
		"both":        "project: From .helios.",
		"helios-only": "project: Only in .helios.",
		"agents-only": "project: Only in .agents.",
		"claude-only": "project: Only in .claude.",
	}
	assert.Empty(t, cmp.Diff(want, got), "project skills (-want +got)")
	skRequireWarning(t, cat.Warnings, af, `"both"`, hf, af)
}

// Protects: M6 (user-level not scanned). With UserSkillRoots nil the kernel
// reads ~/.helios/skills, ~/.agents/skills, then ~/.claude/skills (C23),
// home from os.UserHomeDir.
func TestSkillsUserRootsFromHome(t *testing.T) {
	home := skillfstest.RealTempDir(t)
	t.Setenv("HOME", home)
	hf := skillfstest.WriteSkill(t, filepath.Join(home, ".helios", "skills"), "both", "name: both\ndescription: From ~/.helios.", "")
	skillfstest.WriteSkill(t, filepath.Join(home, ".helios", "skills"), "helios-user", "name: helios-user\ndescription: Only in ~/.helios.", "")
	af := skillfstest.WriteSkill(t, filepath.Join(home, ".agents", "skills"), "both", "name: both\ndescription: From ~/.agents.", "")
	skillfstest.WriteSkill(t, filepath.Join(home, ".agents", "skills"), "agents-user", "name: agents-user\ndescription: Only in ~/.agents.", "")
	skillfstest.WriteSkill(t, filepath.Join(home, ".claude", "skills"), "helios-user", "name: helios-user\ndescription: From ~/.claude.", "")
	skillfstest.WriteSkill(t, filepath.Join(home, ".claude", "skills"), "claude-user", "name: claude-user\ndescription: Only in ~/.claude.", "")

	roots, err := kernel.DefaultUserSkillRoots()
	wantRoots := []string{filepath.Join(home, ".helios", "skills"), filepath.Join(home, ".agents", "skills"), filepath.Join(home, ".claude", "skills")}
	assert.NoError(t, err, "DefaultUserSkillRoots")
	assert.Equal(t, wantRoots, roots, "DefaultUserSkillRoots")

	k, err := kernel.New(kernel.Config{WorkDir: skillfstest.RealTempDir(t)})
	require.NoError(t, err)
	t.Cleanup(func() { k.Close() })
	assert.Equal(t, wantRoots, k.UserSkillRoots(), "UserSkillRoots")
	cat := k.Catalog(context.Background())
	got := map[string]string{}
	for _, s := range cat.Skills {
		got[s.Name] = s.Source + ": " + s.Description
	}
	want := map[string]string{
		"agents-user": "user: Only in ~/.agents.",
		"claude-user": "user: Only in ~/.claude.",
		"both":        "user: From ~/.helios.",
		"helios-user": "user: Only in ~/.helios.",
	}
	assert.Empty(t, cmp.Diff(want, got), "user skills (-want +got)")
	skRequireWarning(t, cat.Warnings, af, `"both"`, hf, af)
}

// Protects: M7 (one provider error aborts the merge). A provider whose Skills
// fails or panics costs only its own skills: a warning naming it, and the
// catalog is incomplete; every other source still loads.
func TestSkillsProviderFailureIsolated(t *testing.T) {
	broken := &skCap{name: "broken", skills: func(context.Context) (skills.Set, error) {
		return skills.Set{}, errors.New("index unreachable")
	}}
	panicky := &skCap{name: "panicky", skills: func(context.Context) (skills.Set, error) {
		panic("nil map in provider")
	}}
	good := &skCap{name: "good", skills: skStatic("good-cap")}
	plugin := &skCap{name: "plug", skills: skStatic("plug-skill")}

	base := skillfstest.RealTempDir(t)
	userRoot := filepath.Join(base, "user")
	skillfstest.WriteSkill(t, userRoot, "user-skill", "name: user-skill\ndescription: User.", "")
	work := filepath.Join(base, "work")
	skillfstest.WriteSkill(t, filepath.Join(work, ".helios", "skills"), "proj-skill", "name: proj-skill\ndescription: Project.", "")

	check := func(t *testing.T, cat skills.Catalog) {
		t.Helper()
		assert.Empty(t, cmp.Diff([]string{"user-skill", "proj-skill", "good-cap", "plug-skill"}, skNames(cat.Skills)), "skills (-want +got)\nwarnings:\n%s", skWarningsText(cat.Warnings))
		assert.False(t, cat.Complete, "catalog complete despite failing providers")
		for src, want := range map[string]string{"capability:broken": "index unreachable", "capability:panicky": "nil map in provider"} {
			found := false
			for _, w := range cat.Warnings {
				found = found || (w.Source == src && strings.Contains(w.Message, want))
			}
			assert.True(t, found, "no warning from %s mentioning %q:\n%s", src, want, skWarningsText(cat.Warnings))
		}
	}

	t.Run("kernel", func(t *testing.T) {
		k := skNewKernel(t, kernel.Config{
			WorkDir:        work,
			UserSkillRoots: []string{userRoot},
			Project:        skProject(t, work),
			Capabilities:   []kernel.Capability{broken, panicky, good},
			Plugins:        []kernel.Capability{plugin},
		})
		check(t, k.Catalog(context.Background()))
	})
	t.Run("Merge", func(t *testing.T) {
		user := &skillfs.DirSource{FS: skillfs.OSFS{}, Source: "user", Roots: []string{userRoot}}
		proj := &skillfs.DirSource{FS: skillfs.OSFS{}, Source: "project", Roots: []string{filepath.Join(work, ".helios", "skills")}}
		cat := skMerge(context.Background(), []skEntry{
			{Source: "user", Provider: user},
			{Source: "capability:broken", Provider: broken},
			{Source: "project", Provider: proj},
			{Source: "capability:panicky", Provider: panicky},
			{Source: "capability:good", Provider: good},
			{Source: "capability:plug", Provider: plugin},
		})
		check(t, cat)
	})
}

// A missing root is a real, complete absence: no skills, no warnings.
func TestSkillsMissingRoot(t *testing.T) {
	missing := filepath.Join(skillfstest.RealTempDir(t), "nope", "skills")
	set := skScan(t, missing)
	assert.Empty(t, set.Skills, "missing root = %+v, want empty and complete", set)
	assert.Empty(t, set.Warnings, "missing root = %+v, want empty and complete", set)
	assert.False(t, set.Incomplete, "missing root = %+v, want empty and complete", set)
	work := skillfstest.RealTempDir(t)
	k := skNewKernel(t, kernel.Config{WorkDir: work, UserSkillRoots: []string{missing}, Project: skProject(t, work)})
	cat := k.Catalog(context.Background())
	assert.Empty(t, cat.Skills, "catalog = %+v, want empty and complete", cat)
	assert.Empty(t, cat.Warnings, "catalog = %+v, want empty and complete", cat)
	assert.True(t, cat.Complete, "catalog = %+v, want empty and complete", cat)
}

// C5: project skills are read through the guarded port. A bundle that is a
// symlink to a folder outside the work dir, or whose SKILL.md is a link to a
// file outside, is refused with a warning (its skill absent, the catalog
// still complete: a rescan will not change it); a link that stays inside is
// followed. The same outside bundle linked from a
// user root is read: user-level skills use the OS deliberately.
func TestSkillsProjectSymlinkGuard(t *testing.T) {
	base := skillfstest.RealTempDir(t)
	outside := filepath.Join(base, "outside")
	skillfstest.WriteSkill(t, outside, "evil", "name: evil\ndescription: Outside the work dir.", "secret\n")
	work := filepath.Join(base, "work")
	root := filepath.Join(work, ".helios", "skills")
	skillfstest.WriteSkill(t, root, "plain", "name: plain\ndescription: A plain bundle.", "")
	skillfstest.WriteSkill(t, filepath.Join(work, "shared"), "inner", "name: inner\ndescription: Linked from inside.", "inner body\n")
	require.NoError(t, os.Symlink(filepath.Join(outside, "evil"), filepath.Join(root, "evil")))
	require.NoError(t, os.Symlink(filepath.Join("..", "..", "shared", "inner"), filepath.Join(root, "inner")))
	// A bundle inside whose SKILL.md is a link to a file outside.
	writeFile(t, filepath.Join(work, ".helios", "skills", "linked-file", "scripts", "run.sh"), "#!/bin/sh\n")
	require.NoError(t, os.Symlink(filepath.Join(outside, "evil", "SKILL.md"), filepath.Join(root, "linked-file", "SKILL.md")))
	userRoot := filepath.Join(base, "user")
	require.NoError(t, os.MkdirAll(userRoot, 0o755))
	require.NoError(t, os.Symlink(filepath.Join(outside, "evil"), filepath.Join(userRoot, "evil")))

	t.Run("project", func(t *testing.T) {
		k := skNewKernel(t, kernel.Config{WorkDir: work, UserSkillRoots: []string{}, Project: skProject(t, work)})
		ctx := context.Background()
		cat := k.Catalog(ctx)
		assert.Empty(t, cmp.Diff([]string{"inner", "plain"}, skNames(cat.Skills)), "project skills (-want +got)\nwarnings:\n%s", skWarningsText(cat.Warnings))
		skRequireWarning(t, cat.Warnings, filepath.Join(root, "evil"), "skipped")
		skRequireWarning(t, cat.Warnings, filepath.Join(root, "linked-file"), "skipped")
		for _, s := range cat.Skills {
			assert.NotEqual(t, "Outside the work dir.", s.Description, "skill %q was read from outside the work dir", s.Name)
		}
		assert.True(t, cat.Complete, "a refused link made the catalog incomplete")
		_, err := k.LoadSkill(ctx, "evil")
		assert.ErrorIs(t, err, kernel.ErrUnknownSkill, "LoadSkill(evil)")
		text, err := k.LoadSkill(ctx, "inner")
		assert.NoError(t, err, "LoadSkill(inner) = %q", text)
		assert.True(t, strings.HasSuffix(text, "inner body\n"), "LoadSkill(inner) = %q", text)
	})
	t.Run("user", func(t *testing.T) {
		k := skNewKernel(t, kernel.Config{WorkDir: work, UserSkillRoots: []string{userRoot}})
		assert.Equal(t, []string{"evil"}, skNames(k.Catalog(context.Background()).Skills), "user skills")
	})
}

// Validate is strict: every spec violation is an error, unknown keys are
// warnings, a missing path is an error. The same files load leniently.
func TestSkillsValidateStrict(t *testing.T) {
	root := skillfstest.RealTempDir(t)
	long := strings.Repeat("x", 1025)
	cases := []struct {
		folder, fm string
		errs       []string // substrings, one per expected error
		warns      []string
	}{
		{"good", "name: good\ndescription: Fine.\nlicense: MIT\nallowed-tools: Read\nmetadata:\n  updated: 2025-01-15", nil, nil},
		{"Upper", "name: Upper\ndescription: Capitals.", []string{"uppercase"}, nil},
		{"differs", "name: other\ndescription: Elsewhere.", []string{"differs from its folder"}, nil},
		{"long", "name: long\ndescription: " + long, []string{"1025 characters"}, nil},
		{"long-compat", "name: long-compat\ndescription: Fine.\ncompatibility: " + strings.Repeat("y", 501), []string{"compatibility is 501 characters"}, nil},
		{"tools-list", "name: tools-list\ndescription: Fine.\nallowed-tools: [Read, Bash]", []string{"allowed-tools"}, nil},
		{"no-name", "description: Nameless.", []string{"missing name"}, nil},
		{"no-desc", "name: no-desc", []string{"missing description"}, nil},
		{"unknown-key", "name: unknown-key\ndescription: Fine.\nx-house-key: 2", nil, []string{`unknown frontmatter key "x-house-key"`}},
	}
	for _, c := range cases {
		skillfstest.WriteSkill(t, root, c.folder, c.fm, "")
	}
	reports, err := skillfs.Validate(skillfs.OSFS{}, root)
	require.NoError(t, err)
	byPath := map[string]skillfs.Report{}
	for _, r := range reports {
		byPath[r.Path] = r
	}
	assert.Len(t, reports, len(cases), "got %d reports, want %d: %+v", len(reports), len(cases), reports)
	for _, c := range cases {
		file := filepath.Join(root, c.folder, "SKILL.md")
		r, ok := byPath[file]
		if !assert.True(t, ok, "no report for %s", file) {
			continue
		}
		skRequireAll(t, file+" errors", r.Errors, c.errs)
		skRequireAll(t, file+" warnings", r.Warnings, c.warns)
		assert.Equal(t, len(c.errs) == 0, r.OK(), "%s: OK() = %v with errors %q", file, r.OK(), r.Errors)
	}

	// The same files load leniently: only the one without a description is
	// skipped.
	set := skScan(t, root)
	wantLoaded := []string{"Upper", "good", "long", "long-compat", "no-name", "other", "tools-list", "unknown-key"}
	got := skNames(set.Skills)
	slices.Sort(got)
	assert.Empty(t, cmp.Diff(wantLoaded, got), "lenient load (-want +got)")

	t.Run("folder without SKILL.md", func(t *testing.T) {
		root := skillfstest.RealTempDir(t)
		writeFile(t, filepath.Join(root, "empty", "README.md"), "# Not a skill\n")
		rs, err := skillfs.Validate(skillfs.OSFS{}, root)
		require.NoError(t, err, "Validate; want one report: folder has no SKILL.md")
		require.Len(t, rs, 1, "Validate; want one report: folder has no SKILL.md")
		require.False(t, rs[0].OK(), "Validate; want one report: folder has no SKILL.md")
		require.Contains(t, strings.Join(rs[0].Errors, "; "), "no SKILL.md", "Validate; want one report: folder has no SKILL.md")
		// `skills validate --json` prints reports: lists are lists, never null.
		b, err := json.Marshal(rs[0])
		assert.NoError(t, err, "report JSON = %s", b)
		assert.Contains(t, string(b), `"warnings":[]`, "report JSON = %s", b)
	})
	t.Run("folder and file", func(t *testing.T) {
		for _, p := range []string{filepath.Join(root, "Upper"), filepath.Join(root, "Upper", "SKILL.md")} {
			rs, err := skillfs.Validate(skillfs.OSFS{}, p)
			assert.NoError(t, err, "Validate(%s); want one failing report", p)
			if assert.Len(t, rs, 1, "Validate(%s); want one failing report", p) {
				assert.False(t, rs[0].OK(), "Validate(%s); want one failing report", p)
				assert.Equal(t, filepath.Join(root, "Upper", "SKILL.md"), rs[0].Path, "Validate(%s); want one failing report", p)
			}
		}
		rs, err := skillfs.Validate(skillfs.OSFS{}, filepath.Join(root, "good"))
		assert.NoError(t, err, "Validate(good); want one clean report")
		if assert.Len(t, rs, 1, "Validate(good); want one clean report") {
			assert.True(t, rs[0].OK(), "Validate(good); want one clean report")
			assert.Empty(t, rs[0].Warnings, "Validate(good); want one clean report")
			assert.Equal(t, "good", rs[0].Name, "Validate(good); want one clean report")
		}
	})
	t.Run("missing path", func(t *testing.T) {
		_, err := skillfs.Validate(skillfs.OSFS{}, filepath.Join(root, "nope"))
		assert.ErrorIs(t, err, fs.ErrNotExist, "Validate(missing), want a not-exist error naming the path")
		assert.Contains(t, err.Error(), "nope", "Validate(missing), want a not-exist error naming the path")
	})
}

// skCap is a capability providing skills from a function.
type skCap struct {
	name   string
	skills func(context.Context) (skills.Set, error)
}

var (
	_ kernel.Capability = (*skCap)(nil)
	_ skills.Provider   = (*skCap)(nil)
)

func (c *skCap) Name() string { return c.name }

func (c *skCap) Skills(ctx context.Context) (skills.Set, error) { return c.skills(ctx) }

// skStatic provides in-memory skills with no source label (the merge labels
// them) and a loader that needs no file.
func skStatic(names ...string) func(context.Context) (skills.Set, error) {
	return func(context.Context) (skills.Set, error) {
		var set skills.Set
		for _, n := range names {
			set.Skills = append(set.Skills, skills.Skill{
				Name:        n,
				Description: n + ", statically.",
				BaseDir:     "/opt/static/" + n,
				Load: func(context.Context) (skills.Content, error) {
					return skills.Content{Name: n, Body: "static " + n + "\n"}, nil
				},
			})
		}
		return set, nil
	}
}

// skScan reads one root as the user source.
func skScan(t *testing.T, root string) skills.Set {
	t.Helper()
	src := &skillfs.DirSource{FS: skillfs.OSFS{}, Source: skills.SourceUser, Roots: []string{root}}
	set, err := src.Skills(context.Background())
	require.NoError(t, err)
	return set
}

// skRequireAll checks that got has exactly len(want) entries and each want
// is a substring of one of them.
func skRequireAll(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !assert.Len(t, got, len(want), "%s = %q, want %d matching %q", what, got, len(want), want) {
		return
	}
	for _, w := range want {
		assert.True(t, slices.ContainsFunc(got, func(g string) bool { return strings.Contains(g, w) }), "%s = %q, none mentions %q", what, got, w)
	}
}
