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
		err := skills.ValidateName(tt.name)
		if tt.valid && err != nil {
			t.Errorf("ValidateName(%q) = %v, want valid", tt.name, err)
		}
		if !tt.valid && !errors.Is(err, skills.ErrInvalidName) {
			t.Errorf("ValidateName(%q) = %v, want ErrInvalidName", tt.name, err)
		}
	}
}

func TestSkillsValidToolName(t *testing.T) {
	tests := map[string]bool{
		"pdf": true, "My_Skill-2": true, strings.Repeat("a", 64): true,
		"": false, "技能": false, "My Skill": false, "a.b": false, strings.Repeat("a", 65): false,
	}
	for name, want := range tests {
		if got := skills.ValidToolName(name); got != want {
			t.Errorf("ValidToolName(%q) = %v, want %v", name, got, want)
		}
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
			content:  skillMD("name: pdf\ndescription: Fill PDF forms.\nversion: 2", ""),
			wantName: "pdf", wantDesc: "Fill PDF forms.",
			wantWarn: [][]string{{`unknown frontmatter key "version"`}},
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
			root := skTempDir(t)
			file := filepath.Join(root, tt.path)
			skWriteRaw(t, file, []byte(tt.content))
			for p, c := range tt.extra {
				writeFile(t, filepath.Join(root, p), c)
			}
			set := skScan(t, root)
			if len(set.Skills) != 1 {
				t.Fatalf("loaded %v, want one skill; warnings:\n%s", skNames(set.Skills), skWarningsText(set.Warnings))
			}
			s := set.Skills[0]
			if s.Name != tt.wantName || s.Description != tt.wantDesc || s.File != file || s.BaseDir != filepath.Dir(file) || s.Source != "user" {
				t.Errorf("skill = {Name:%q Description:%q File:%q BaseDir:%q Source:%q}\nwant {Name:%q Description:%q File:%q BaseDir:%q Source:user}",
					s.Name, s.Description, s.File, s.BaseDir, s.Source, tt.wantName, tt.wantDesc, file, filepath.Dir(file))
			}
			c, err := s.Load(context.Background())
			if err != nil {
				t.Fatalf("load: %v", err)
			}
			if tt.wantBody != "" && c.Body != tt.wantBody {
				t.Errorf("body = %q, want %q", c.Body, tt.wantBody)
			}
			for _, w := range set.Warnings {
				if w.Path != file || strings.Contains(w.Message, "skipped") {
					t.Errorf("unexpected warning: %s", w)
				}
			}
			if len(set.Warnings) != len(tt.wantWarn) {
				t.Errorf("got %d warnings, want %d:\n%s", len(set.Warnings), len(tt.wantWarn), skWarningsText(set.Warnings))
			}
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
			skWriteSkill(t, root, g, "name: "+g+"\ndescription: Usable.", "")
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
		if err := os.Symlink("missing-target", filepath.Join(root, "broken-link")); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
			t.Fatalf("mkfifo: %v", err)
		}
	}
	check := func(t *testing.T, root string, set skills.Set) {
		if diff := cmp.Diff([]string{"aaa-good", "mmm-good", "zzz-good"}, skNames(set.Skills)); diff != "" {
			t.Errorf("loaded skills (-want +got):\n%s\nwarnings:\n%s", diff, skWarningsText(set.Warnings))
		}
		for _, s := range set.Skills {
			if s.Description != "Usable." {
				t.Errorf("skill %q has a made-up description %q", s.Name, s.Description)
			}
		}
		for _, b := range bads {
			skRequireWarning(t, set.Warnings, filepath.Join(root, b.path), b.reason, "skipped")
		}
		if set.Incomplete {
			t.Errorf("unusable files made the result incomplete; they are permanent, not transient")
		}
	}

	t.Run("user", func(t *testing.T) {
		root := skTempDir(t)
		fill(t, root)
		check(t, root, skScan(t, root))
	})
	t.Run("project", func(t *testing.T) {
		work := skTempDir(t)
		root := filepath.Join(work, ".helios", "skills")
		fill(t, root)
		p := skProject(t, work)
		t.Cleanup(func() { p.Close() })
		set, err := p.Skills(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		check(t, root, set)
	})
	t.Run("kernel catalog", func(t *testing.T) {
		root := skTempDir(t)
		fill(t, root)
		k := skNewKernel(t, kernel.Config{WorkDir: skTempDir(t), UserSkillRoots: []string{root}})
		cat := k.Catalog(context.Background())
		check(t, root, skills.Set{Skills: cat.Skills, Warnings: cat.Warnings, Incomplete: !cat.Complete})
	})
}

// Protects: M5 (scan recurses). Only direct children of a root are skills:
// a SKILL.md two levels down is a bundle's resource, not a skill, and hidden
// entries are not read at all.
func TestSkillsScanDirectChildrenOnly(t *testing.T) {
	root := skTempDir(t)
	skWriteSkill(t, root, "bundle", "name: bundle\ndescription: The only skill.", "")
	skWriteSkill(t, root, "bundle/nested", "name: nested\ndescription: A resource of bundle.", "")
	skWriteSkill(t, root, "bundle/references", "name: references\ndescription: Also a resource.", "")
	skWriteSkill(t, root, "group/inner", "name: inner\ndescription: Two levels down.", "")
	skWriteSkill(t, root, ".hidden", "name: hidden\ndescription: Hidden folder.", "")
	writeFile(t, filepath.Join(root, ".flat-hidden.md"), skillMD("name: flat-hidden\ndescription: Hidden file.", ""))
	writeFile(t, filepath.Join(root, "bundle", "scripts", "run.sh"), "#!/bin/sh\n")

	set := skScan(t, root)
	if diff := cmp.Diff([]string{"bundle"}, skNames(set.Skills)); diff != "" {
		t.Errorf("skills (-want +got):\n%s\nwarnings:\n%s", diff, skWarningsText(set.Warnings))
	}
	skRequireWarning(t, set.Warnings, filepath.Join(root, "group"), "no SKILL.md", "skipped")
	for _, w := range set.Warnings {
		if strings.Contains(w.Path, "hidden") || strings.Contains(w.Path, "nested") {
			t.Errorf("a hidden or nested entry was read: %s", w)
		}
	}
}

// Order inside a root is by code point, never locale, and so is the kernel's
// catalog within a source.
func TestSkillsCodePointOrder(t *testing.T) {
	root := skTempDir(t)
	for _, n := range []string{"é", "a", "Z", "B"} {
		skWriteSkill(t, root, n, "name: "+n+"\ndescription: Letter "+n+".", "")
	}
	want := []string{"B", "Z", "a", "é"} // bytes 0x42 0x5A 0x61 0xC3; a locale says a B é Z
	if diff := cmp.Diff(want, skNames(skScan(t, root).Skills)); diff != "" {
		t.Errorf("DirSource order (-want +got):\n%s", diff)
	}
	k := skNewKernel(t, kernel.Config{WorkDir: skTempDir(t), UserSkillRoots: []string{root}})
	if diff := cmp.Diff(want, skNames(k.Catalog(context.Background()).Skills)); diff != "" {
		t.Errorf("catalog order (-want +got):\n%s", diff)
	}
}

// A later folder of the same root (by code point) that reuses a name is not
// added, and the warning names both files.
func TestSkillsSameRootLaterFolderLoses(t *testing.T) {
	root := skTempDir(t)
	first := skWriteSkill(t, root, "Zeta", "name: same\ndescription: From Zeta.", "")   // 'Z' 0x5A
	later := skWriteSkill(t, root, "alpha", "name: same\ndescription: From alpha.", "") // 'a' 0x61
	set := skScan(t, root)
	if len(set.Skills) != 1 || set.Skills[0].Description != "From Zeta." {
		t.Fatalf("skills = %+v, want only Zeta's", set.Skills)
	}
	skRequireWarning(t, set.Warnings, later, `"same"`, first, later)
}

// Protects: M3 (later source overrides). The merge keeps the first skill
// of each name in source order; a later one is not added and the warning
// names both origins. Skills keep merge order: sources in order, by name
// within a source.
func TestSkillsMergeFirstWins(t *testing.T) {
	base := skTempDir(t)
	src := func(label string, names ...string) (skEntry, map[string]string) {
		root := filepath.Join(base, label)
		files := map[string]string{}
		for _, n := range names {
			files[n] = skWriteSkill(t, root, n, "name: "+n+"\ndescription: "+n+" from "+label+".", "")
		}
		return skEntry{Source: label, Provider: &skills.DirSource{FS: skills.OSFS{}, Source: label, Roots: []string{root}}}, files
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
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("merged skills (-want +got):\n%s", diff)
	}
	if !cat.Complete {
		t.Errorf("catalog incomplete")
	}
	if len(cat.Warnings) != 3 {
		t.Errorf("got %d warnings, want 3 conflicts:\n%s", len(cat.Warnings), skWarningsText(cat.Warnings))
	}
	skRequireWarning(t, cat.Warnings, pf["shared"], `"shared"`, "user ("+uf["shared"]+")", "project ("+pf["shared"]+")")
	skRequireWarning(t, cat.Warnings, cf["shared"], `"shared"`, "user ("+uf["shared"]+")", "capability:ext ("+cf["shared"]+")")
	skRequireWarning(t, cat.Warnings, cf["beta"], `"beta"`, "project ("+pf["beta"]+")", "capability:ext ("+cf["beta"]+")")
}

// The kernel merges user, project and capability skills (builtins, then
// plugins) in that order, first wins, by name within a source; conflicts
// warn with both origins. Capability skills are "capability:<name>".
func TestSkillsKernelSourceOrder(t *testing.T) {
	base := skTempDir(t)
	userRoot := filepath.Join(base, "home", ".helios", "skills")
	work := filepath.Join(base, "work")
	projRoot := filepath.Join(work, ".helios", "skills")
	ext := filepath.Join(base, "ext")

	uf := skWriteSkill(t, userRoot, "shared", "name: shared\ndescription: User's.", "")
	skWriteSkill(t, userRoot, "zz-user", "name: zz-user\ndescription: User only.", "")
	pf := skWriteSkill(t, projRoot, "shared", "name: shared\ndescription: Project's.", "")
	skWriteSkill(t, projRoot, "proj-b", "name: proj-b\ndescription: Project B.", "")
	skWriteSkill(t, projRoot, "proj-a", "name: proj-a\ndescription: Project A.", "")
	writeFile(t, filepath.Join(ext, "EXTENSION.md"), skillMD("name: ext\ndescription: An extension.", ""))
	ef := skWriteSkill(t, filepath.Join(ext, "skills"), "proj-a", "name: proj-a\ndescription: Extension's.", "")
	skWriteSkill(t, filepath.Join(ext, "skills"), "ext-only", "name: ext-only\ndescription: Extension only.", "")
	extCap, err := extdir.Open(ext)
	if err != nil {
		t.Fatal(err)
	}
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
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("catalog (-want +got):\n%s\nwarnings:\n%s", diff, skWarningsText(cat.Warnings))
	}
	if !cat.Complete {
		t.Errorf("catalog incomplete:\n%s", skWarningsText(cat.Warnings))
	}
	skRequireWarning(t, cat.Warnings, pf, `"shared"`, uf, pf)
	skRequireWarning(t, cat.Warnings, ef, `"proj-a"`, filepath.Join(projRoot, "proj-a", "SKILL.md"), ef)
	var plugWarned bool
	for _, w := range cat.Warnings {
		plugWarned = plugWarned || (w.Source == "capability:plug" && strings.Contains(w.Message, `"shared"`) && strings.Contains(w.Message, uf))
	}
	if !plugWarned {
		t.Errorf("no warning names both origins of the plugin's shared:\n%s", skWarningsText(cat.Warnings))
	}
}

// Protects: M11 (project root scanned at the wrong path). The project roots
// are exactly <workDir>/.helios/skills then <workDir>/.agents/skills, and
// .helios wins a conflict.
func TestSkillsProjectRoots(t *testing.T) {
	work := skTempDir(t)
	hf := skWriteSkill(t, filepath.Join(work, ".helios", "skills"), "both", "name: both\ndescription: From .helios.", "")
	skWriteSkill(t, filepath.Join(work, ".helios", "skills"), "helios-only", "name: helios-only\ndescription: Only in .helios.", "")
	af := skWriteSkill(t, filepath.Join(work, ".agents", "skills"), "both", "name: both\ndescription: From .agents.", "")
	skWriteSkill(t, filepath.Join(work, ".agents", "skills"), "agents-only", "name: agents-only\ndescription: Only in .agents.", "")
	skWriteSkill(t, filepath.Join(work, ".helios", "policies"), "policy", "name: policy\ndescription: Not a skills root.", "")
	skWriteSkill(t, filepath.Join(work, "skills"), "loose", "name: loose\ndescription: Not a skills root.", "")

	p := skProject(t, work)
	wantRoots := []string{filepath.Join(work, ".helios", "skills"), filepath.Join(work, ".agents", "skills")}
	if diff := cmp.Diff(wantRoots, p.Roots()); diff != "" {
		t.Errorf("project roots (-want +got):\n%s", diff)
	}
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
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("project skills (-want +got):\n%s", diff)
	}
	skRequireWarning(t, cat.Warnings, af, `"both"`, hf, af)
}

// Protects: M6 (user-level not scanned). With UserSkillRoots nil the kernel
// reads ~/.helios/skills then ~/.agents/skills, home from os.UserHomeDir.
func TestSkillsUserRootsFromHome(t *testing.T) {
	home := skTempDir(t)
	t.Setenv("HOME", home)
	hf := skWriteSkill(t, filepath.Join(home, ".helios", "skills"), "both", "name: both\ndescription: From ~/.helios.", "")
	skWriteSkill(t, filepath.Join(home, ".helios", "skills"), "helios-user", "name: helios-user\ndescription: Only in ~/.helios.", "")
	af := skWriteSkill(t, filepath.Join(home, ".agents", "skills"), "both", "name: both\ndescription: From ~/.agents.", "")
	skWriteSkill(t, filepath.Join(home, ".agents", "skills"), "agents-user", "name: agents-user\ndescription: Only in ~/.agents.", "")

	roots, err := kernel.DefaultUserSkillRoots()
	wantRoots := []string{filepath.Join(home, ".helios", "skills"), filepath.Join(home, ".agents", "skills")}
	if err != nil || !cmp.Equal(roots, wantRoots) {
		t.Errorf("DefaultUserSkillRoots = %v, %v; want %v", roots, err, wantRoots)
	}

	k, err := kernel.New(kernel.Config{WorkDir: skTempDir(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { k.Close() })
	if !cmp.Equal(k.UserSkillRoots(), wantRoots) {
		t.Errorf("UserSkillRoots = %v, want %v", k.UserSkillRoots(), wantRoots)
	}
	cat := k.Catalog(context.Background())
	got := map[string]string{}
	for _, s := range cat.Skills {
		got[s.Name] = s.Source + ": " + s.Description
	}
	want := map[string]string{
		"agents-user": "user: Only in ~/.agents.",
		"both":        "user: From ~/.helios.",
		"helios-user": "user: Only in ~/.helios.",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("user skills (-want +got):\n%s", diff)
	}
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

	base := skTempDir(t)
	userRoot := filepath.Join(base, "user")
	skWriteSkill(t, userRoot, "user-skill", "name: user-skill\ndescription: User.", "")
	work := filepath.Join(base, "work")
	skWriteSkill(t, filepath.Join(work, ".helios", "skills"), "proj-skill", "name: proj-skill\ndescription: Project.", "")

	check := func(t *testing.T, cat skills.Catalog) {
		t.Helper()
		if diff := cmp.Diff([]string{"user-skill", "proj-skill", "good-cap", "plug-skill"}, skNames(cat.Skills)); diff != "" {
			t.Errorf("skills (-want +got):\n%s\nwarnings:\n%s", diff, skWarningsText(cat.Warnings))
		}
		if cat.Complete {
			t.Errorf("catalog complete despite failing providers")
		}
		for src, want := range map[string]string{"capability:broken": "index unreachable", "capability:panicky": "nil map in provider"} {
			found := false
			for _, w := range cat.Warnings {
				found = found || (w.Source == src && strings.Contains(w.Message, want))
			}
			if !found {
				t.Errorf("no warning from %s mentioning %q:\n%s", src, want, skWarningsText(cat.Warnings))
			}
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
		user := &skills.DirSource{FS: skills.OSFS{}, Source: "user", Roots: []string{userRoot}}
		proj := &skills.DirSource{FS: skills.OSFS{}, Source: "project", Roots: []string{filepath.Join(work, ".helios", "skills")}}
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
	missing := filepath.Join(skTempDir(t), "nope", "skills")
	set := skScan(t, missing)
	if len(set.Skills) != 0 || len(set.Warnings) != 0 || set.Incomplete {
		t.Errorf("missing root = %+v, want empty and complete", set)
	}
	work := skTempDir(t)
	k := skNewKernel(t, kernel.Config{WorkDir: work, UserSkillRoots: []string{missing}, Project: skProject(t, work)})
	cat := k.Catalog(context.Background())
	if len(cat.Skills) != 0 || len(cat.Warnings) != 0 || !cat.Complete {
		t.Errorf("catalog = %+v, want empty and complete", cat)
	}
}

// C5: project skills are read through the guarded port. A bundle that is a
// symlink to a folder outside the work dir, or whose SKILL.md is a link to a
// file outside, is refused with a warning (its skill absent, the catalog
// still complete: a rescan will not change it); a link that stays inside is
// followed. The same outside bundle linked from a
// user root is read: user-level skills use the OS deliberately.
func TestSkillsProjectSymlinkGuard(t *testing.T) {
	base := skTempDir(t)
	outside := filepath.Join(base, "outside")
	skWriteSkill(t, outside, "evil", "name: evil\ndescription: Outside the work dir.", "secret\n")
	work := filepath.Join(base, "work")
	root := filepath.Join(work, ".helios", "skills")
	skWriteSkill(t, root, "plain", "name: plain\ndescription: A plain bundle.", "")
	skWriteSkill(t, filepath.Join(work, "shared"), "inner", "name: inner\ndescription: Linked from inside.", "inner body\n")
	if err := os.Symlink(filepath.Join(outside, "evil"), filepath.Join(root, "evil")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("..", "..", "shared", "inner"), filepath.Join(root, "inner")); err != nil {
		t.Fatal(err)
	}
	// A bundle inside whose SKILL.md is a link to a file outside.
	writeFile(t, filepath.Join(work, ".helios", "skills", "linked-file", "scripts", "run.sh"), "#!/bin/sh\n")
	if err := os.Symlink(filepath.Join(outside, "evil", "SKILL.md"), filepath.Join(root, "linked-file", "SKILL.md")); err != nil {
		t.Fatal(err)
	}
	userRoot := filepath.Join(base, "user")
	if err := os.MkdirAll(userRoot, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "evil"), filepath.Join(userRoot, "evil")); err != nil {
		t.Fatal(err)
	}

	t.Run("project", func(t *testing.T) {
		k := skNewKernel(t, kernel.Config{WorkDir: work, UserSkillRoots: []string{}, Project: skProject(t, work)})
		ctx := context.Background()
		cat := k.Catalog(ctx)
		if diff := cmp.Diff([]string{"inner", "plain"}, skNames(cat.Skills)); diff != "" {
			t.Errorf("project skills (-want +got):\n%s\nwarnings:\n%s", diff, skWarningsText(cat.Warnings))
		}
		skRequireWarning(t, cat.Warnings, filepath.Join(root, "evil"), "skipped")
		skRequireWarning(t, cat.Warnings, filepath.Join(root, "linked-file"), "skipped")
		for _, s := range cat.Skills {
			if s.Description == "Outside the work dir." {
				t.Errorf("skill %q was read from outside the work dir", s.Name)
			}
		}
		if !cat.Complete {
			t.Errorf("a refused link made the catalog incomplete")
		}
		if _, err := k.LoadSkill(ctx, "evil"); !errors.Is(err, kernel.ErrUnknownSkill) {
			t.Errorf("LoadSkill(evil) = %v, want ErrUnknownSkill", err)
		}
		text, err := k.LoadSkill(ctx, "inner")
		if err != nil || !strings.HasSuffix(text, "inner body\n") {
			t.Errorf("LoadSkill(inner) = %q, %v", text, err)
		}
	})
	t.Run("user", func(t *testing.T) {
		k := skNewKernel(t, kernel.Config{WorkDir: work, UserSkillRoots: []string{userRoot}})
		if got := skNames(k.Catalog(context.Background()).Skills); !cmp.Equal(got, []string{"evil"}) {
			t.Errorf("user skills = %v, want [evil]", got)
		}
	})
}

// Validate is strict: every spec violation is an error, unknown keys are
// warnings, a missing path is an error. The same files load leniently.
func TestSkillsValidateStrict(t *testing.T) {
	root := skTempDir(t)
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
		{"unknown-key", "name: unknown-key\ndescription: Fine.\nversion: 2", nil, []string{`unknown frontmatter key "version"`}},
	}
	for _, c := range cases {
		skWriteSkill(t, root, c.folder, c.fm, "")
	}
	reports, err := skills.Validate(skills.OSFS{}, root)
	if err != nil {
		t.Fatal(err)
	}
	byPath := map[string]skills.Report{}
	for _, r := range reports {
		byPath[r.Path] = r
	}
	if len(reports) != len(cases) {
		t.Errorf("got %d reports, want %d: %+v", len(reports), len(cases), reports)
	}
	for _, c := range cases {
		file := filepath.Join(root, c.folder, "SKILL.md")
		r, ok := byPath[file]
		if !ok {
			t.Errorf("no report for %s", file)
			continue
		}
		skRequireAll(t, file+" errors", r.Errors, c.errs)
		skRequireAll(t, file+" warnings", r.Warnings, c.warns)
		if r.OK() != (len(c.errs) == 0) {
			t.Errorf("%s: OK() = %v with errors %q", file, r.OK(), r.Errors)
		}
	}

	// The same files load leniently: only the one without a description is
	// skipped.
	set := skScan(t, root)
	wantLoaded := []string{"Upper", "good", "long", "long-compat", "no-name", "other", "tools-list", "unknown-key"}
	got := skNames(set.Skills)
	slices.Sort(got)
	if diff := cmp.Diff(wantLoaded, got); diff != "" {
		t.Errorf("lenient load (-want +got):\n%s", diff)
	}

	t.Run("folder without SKILL.md", func(t *testing.T) {
		root := skTempDir(t)
		writeFile(t, filepath.Join(root, "empty", "README.md"), "# Not a skill\n")
		rs, err := skills.Validate(skills.OSFS{}, root)
		if err != nil || len(rs) != 1 || rs[0].OK() || !strings.Contains(strings.Join(rs[0].Errors, "; "), "no SKILL.md") {
			t.Fatalf("Validate = %+v, %v; want one report: folder has no SKILL.md", rs, err)
		}
		// `skills validate --json` prints reports: lists are lists, never null.
		b, err := json.Marshal(rs[0])
		if err != nil || !strings.Contains(string(b), `"warnings":[]`) {
			t.Errorf("report JSON = %s, %v; want \"warnings\":[]", b, err)
		}
	})
	t.Run("folder and file", func(t *testing.T) {
		for _, p := range []string{filepath.Join(root, "Upper"), filepath.Join(root, "Upper", "SKILL.md")} {
			rs, err := skills.Validate(skills.OSFS{}, p)
			if err != nil || len(rs) != 1 || rs[0].OK() || rs[0].Path != filepath.Join(root, "Upper", "SKILL.md") {
				t.Errorf("Validate(%s) = %+v, %v; want one failing report", p, rs, err)
			}
		}
		rs, err := skills.Validate(skills.OSFS{}, filepath.Join(root, "good"))
		if err != nil || len(rs) != 1 || !rs[0].OK() || len(rs[0].Warnings) != 0 || rs[0].Name != "good" {
			t.Errorf("Validate(good) = %+v, %v; want one clean report", rs, err)
		}
	})
	t.Run("missing path", func(t *testing.T) {
		_, err := skills.Validate(skills.OSFS{}, filepath.Join(root, "nope"))
		if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "nope") {
			t.Errorf("Validate(missing) = %v, want a not-exist error naming the path", err)
		}
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
	src := &skills.DirSource{FS: skills.OSFS{}, Source: skills.SourceUser, Roots: []string{root}}
	set, err := src.Skills(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// skRequireAll checks that got has exactly len(want) entries and each want
// is a substring of one of them.
func skRequireAll(t *testing.T, what string, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s = %q, want %d matching %q", what, got, len(want), want)
		return
	}
	for _, w := range want {
		if !slices.ContainsFunc(got, func(g string) bool { return strings.Contains(g, w) }) {
			t.Errorf("%s = %q, none mentions %q", what, got, w)
		}
	}
}
