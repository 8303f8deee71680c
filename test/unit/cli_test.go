package unit_test

// Black-box tests of the helios CLI through the built binary: exactly the
// contract of issue 2 that scripts depend on (skills list/load/validate,
// hooks describe, global flags, exit codes) and the demo workspace.

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/helios-agents/helios/frontmatter"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// cliList mirrors the `skills list --json` contract.
type cliList struct {
	Complete bool         `json:"complete"`
	Skills   []cliSkill   `json:"skills"`
	Warnings []cliWarning `json:"warnings"`
}

type cliSkill struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Source      string `json:"source"`
	BaseDir     string `json:"baseDir"`
}

type cliWarning struct {
	Source  string `json:"source"`
	Path    string `json:"path"`
	Message string `json:"message"`
}

// cliHooks mirrors the `hooks describe --json` contract.
type cliHooks struct {
	Points []struct {
		Name     string `json:"name"`
		Kind     string `json:"kind"`
		Handlers []struct {
			Name   string `json:"name"`
			Origin string `json:"origin"`
		} `json:"handlers"`
	} `json:"points"`
}

// cliWorld is a HOME, a work dir and an extension, with skills from all
// three sources, a name conflict across sources and an unusable skill:
//
//	home/.helios/skills/zeta            user (sorts last, still first: source order wins)
//	home/.agents/skills/alpha-user      user
//	work/.helios/skills/beta            project, with scripts/
//	work/.helios/skills/zeta            project, conflicts with the user zeta
//	work/.helios/skills/no-desc         project, no description: skipped
//	work/.helios/skills/hidden          project, disable-model-invocation
//	work/.agents/skills/alpha-proj      project
//	ext/skills/aaa                      capability:ext-one (sorts first, still last)
//
// The config (outside the work dir) installs the extension; the work dir's
// path has a space so the load text must quote it.
type cliWorld struct {
	home, work, config, ext string
}

func newCLIWorld(t *testing.T) cliWorld {
	t.Helper()
	base := asmTempDir(t)
	w := cliWorld{
		home:   filepath.Join(base, "home"),
		work:   filepath.Join(base, "my project"),
		config: filepath.Join(base, "conf", "helios.config.json"),
		ext:    filepath.Join(base, "conf", "ext"),
	}
	cliSkillAt(t, filepath.Join(w.home, ".helios", "skills"), "zeta", "User zeta.", "")
	cliSkillAt(t, filepath.Join(w.home, ".agents", "skills"), "alpha-user", "User alpha.", "")
	cliSkillAt(t, filepath.Join(w.work, ".helios", "skills"), "beta", "Project beta.", "")
	writeFile(t, filepath.Join(w.work, ".helios", "skills", "beta", "scripts", "run.sh"), "#!/bin/sh\necho beta\n")
	cliSkillAt(t, filepath.Join(w.work, ".helios", "skills"), "zeta", "Project zeta.", "")
	writeFile(t, filepath.Join(w.work, ".helios", "skills", "no-desc", "SKILL.md"), skillMD("name: no-desc", "No description.\n"))
	cliSkillAt(t, filepath.Join(w.work, ".helios", "skills"), "hidden", "Only a person starts this.", "disable-model-invocation: true\n")
	cliSkillAt(t, filepath.Join(w.work, ".agents", "skills"), "alpha-proj", "Project alpha.", "")
	writeFile(t, filepath.Join(w.ext, "EXTENSION.md"), skillMD("name: ext-one\ndescription: A test extension.", ""))
	cliSkillAt(t, filepath.Join(w.ext, "skills"), "aaa", "Capability aaa.", "")
	writeFile(t, w.config, `{"extensions": [{"dir": "ext"}]}`)
	return w
}

func (w cliWorld) run(t *testing.T, args ...string) cliResult {
	t.Helper()
	return helios(t, w.home, w.work, append([]string{"--config", w.config}, args...)...)
}

// Protects: the `skills list --json` contract: one JSON object with the
// required keys and types; sources user/project/capability:<name> in merge
// order, by name within a source; absolute baseDir; warnings naming the
// file and both origins of a conflict; exit 0 despite warnings.
func TestCLISkillsListJSON(t *testing.T) {
	w := newCLIWorld(t)
	r := w.run(t, "skills", "list", "--json")
	cliExpect(t, r, 0)
	assert.Empty(t, r.stderr, "stderr; want nothing (warnings belong in the JSON)")
	got := cliDecodeList(t, r.stdout)

	hs := filepath.Join(w.home, ".helios", "skills")
	ps := filepath.Join(w.work, ".helios", "skills")
	want := []cliSkill{
		{"alpha-user", "User alpha.", "user", filepath.Join(w.home, ".agents", "skills", "alpha-user")},
		{"zeta", "User zeta.", "user", filepath.Join(hs, "zeta")},
		{"alpha-proj", "Project alpha.", "project", filepath.Join(w.work, ".agents", "skills", "alpha-proj")},
		{"beta", "Project beta.", "project", filepath.Join(ps, "beta")},
		{"hidden", "Only a person starts this.", "project", filepath.Join(ps, "hidden")},
		{"aaa", "Capability aaa.", "capability:ext-one", filepath.Join(w.ext, "skills", "aaa")},
	}
	assert.Empty(t, cmp.Diff(want, got.Skills), "skills (-want +got)")
	for _, s := range got.Skills {
		assert.True(t, filepath.IsAbs(s.BaseDir), "skill %s: baseDir %q is not absolute", s.Name, s.BaseDir)
	}
	assert.True(t, got.Complete, "complete = false; want true (every source was read)")
	require.Len(t, got.Warnings, 2, "warnings; want 2 (no-desc skipped, zeta conflict)")
	noDesc := cliFindWarning(t, got.Warnings, filepath.Join(ps, "no-desc", "SKILL.md"))
	assert.Equal(t, "project", noDesc.Source, "no-desc warning = %+v; want source project and a message about the description", noDesc)
	assert.Contains(t, noDesc.Message, "description", "no-desc warning = %+v; want source project and a message about the description", noDesc)
	conflict := cliFindWarning(t, got.Warnings, filepath.Join(ps, "zeta", "SKILL.md"))
	for _, origin := range []string{filepath.Join(hs, "zeta", "SKILL.md"), filepath.Join(ps, "zeta", "SKILL.md")} {
		assert.Contains(t, conflict.Message, origin, "conflict warning %q does not name %s", conflict.Message, origin)
	}
}

// Protects: skills and warnings are [] (never null) when empty, and the
// object is complete: scripts can iterate without a null check.
func TestCLISkillsListJSONEmpty(t *testing.T) {
	home, work := asmTempDir(t), asmTempDir(t)
	r := helios(t, home, work, "skills", "list", "--json")
	cliExpect(t, r, 0)
	got := cliDecodeList(t, r.stdout)
	assert.True(t, got.Complete, "list = %+v; want complete, no skills, no warnings", got)
	assert.Empty(t, got.Skills, "list = %+v; want complete, no skills, no warnings", got)
	assert.Empty(t, got.Warnings, "list = %+v; want complete, no skills, no warnings", got)
}

// Protects: without --json, a readable table (every skill with its source)
// and then the warnings; never JSON.
func TestCLISkillsListTable(t *testing.T) {
	w := newCLIWorld(t)
	r := w.run(t, "skills", "list")
	cliExpect(t, r, 0)
	require.False(t, strings.HasPrefix(strings.TrimSpace(r.stdout), "{"), "plain output is JSON:\n%s", r.stdout)
	lastSkill := 0
	for _, s := range [][2]string{{"alpha-user", "user"}, {"zeta", "user"}, {"alpha-proj", "project"}, {"beta", "project"}, {"hidden", "project"}, {"aaa", "capability:ext-one"}} {
		i := cliLineIndex(r.stdout, s[0], s[1])
		assert.GreaterOrEqual(t, i, 0, "no table line shows %s with source %s:\n%s", s[0], s[1], r.stdout)
		lastSkill = max(lastSkill, i)
	}
	warn := cliLineIndex(r.stdout, filepath.Join(w.work, ".helios", "skills", "no-desc", "SKILL.md"), "description")
	require.GreaterOrEqual(t, warn, 0, "no warning line names no-desc and its reason:\n%s", r.stdout)
	assert.GreaterOrEqual(t, warn, lastSkill, "the warnings come before the table:\n%s", r.stdout)
	assert.GreaterOrEqual(t, cliLineIndex(r.stdout, filepath.Join(w.work, ".helios", "skills", "zeta", "SKILL.md"), "zeta"), 0, "no warning line names the zeta conflict:\n%s", r.stdout)
}

// Protects: `skills load NAME` prints exactly the load text the model gets
// (what skills.Load gives for the absolute base dir and the body), from every
// source, including a skill hidden from the model.
func TestCLISkillsLoad(t *testing.T) {
	w := newCLIWorld(t)
	ps := filepath.Join(w.work, ".helios", "skills")
	tests := []struct {
		name, baseDir, body string
	}{
		{"beta", filepath.Join(ps, "beta"), "The beta skill.\n"},
		{"hidden", filepath.Join(ps, "hidden"), "The hidden skill.\n"},
		{"zeta", filepath.Join(w.home, ".helios", "skills", "zeta"), "The zeta skill.\n"},
		{"aaa", filepath.Join(w.ext, "skills", "aaa"), "The aaa skill.\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := w.run(t, "skills", "load", tt.name)
			cliExpect(t, r, 0)
			cliCompareLoad(t, r.stdout, loadText(tt.baseDir, tt.body))
		})
	}
}

// Protects: the load text is printed byte for byte whatever the body's
// ending: a body without a final newline gets exactly one, a body with one
// gets no second.
func TestCLISkillsLoadBodyEndings(t *testing.T) {
	for _, body := range []string{"Run `scripts/run.sh`.", "Run `scripts/run.sh`.\n", "# Title\r\n\r\nCRLF body.\r\n", "Two blank lines.\n\n"} {
		t.Run(strings.ReplaceAll(body, "\n", `\n`), func(t *testing.T) {
			home, work := asmTempDir(t), filepath.Join(asmTempDir(t), "w d")
			file := filepath.Join(work, ".helios", "skills", "ender", "SKILL.md")
			content := skillMD("name: ender\ndescription: Ends.", body)
			writeFile(t, file, content)
			doc, err := frontmatter.Parse(file, []byte(content))
			require.NoError(t, err)
			r := helios(t, home, work, "skills", "load", "ender")
			cliExpect(t, r, 0)
			cliCompareLoad(t, r.stdout, loadText(filepath.Dir(file), doc.Body))
		})
	}
}

// Protects: an unknown name exits 1 with stderr naming it and suggesting
// close matches; nothing goes to stdout.
func TestCLISkillsLoadUnknown(t *testing.T) {
	w := newCLIWorld(t)
	cliSkillAt(t, filepath.Join(w.work, ".helios", "skills"), "changelog", "Draft a changelog.", "")
	tests := []struct {
		ask     string
		suggest []string
	}{
		{"chanelog", []string{"changelog"}},
		{"bet", []string{"beta"}},
		{"nothing-like-it-at-all", nil},
	}
	for _, tt := range tests {
		t.Run(tt.ask, func(t *testing.T) {
			r := w.run(t, "skills", "load", tt.ask)
			cliExpect(t, r, 1)
			assert.Empty(t, r.stdout, "stdout")
			assert.Contains(t, r.stderr, `"`+tt.ask+`"`, "stderr; want it to name %q", tt.ask)
			for _, s := range tt.suggest {
				assert.Contains(t, r.stderr, s, "stderr = %q; want it to suggest %q", r.stderr, s)
			}
		})
	}
}

// Protects: `skills validate PATH...` is strict: every spec violation is an
// error (exit 1) printed with its file and reason; unknown keys are warnings
// (exit 0); folders, flat .md files and roots are accepted; a missing path
// exits 1.
func TestCLISkillsValidate(t *testing.T) {
	long := func(n int) string { return strings.Repeat("x", n) }
	type file struct{ rel, content string }
	good := func(name string) file {
		return file{name + "/SKILL.md", skillMD("name: "+name+"\ndescription: A good skill.", "Body.\n")}
	}
	tests := []struct {
		name     string
		files    []file
		args     []string // relative to the temp dir
		code     int
		wantLine [][]string // each: substrings one output line must hold ({file} = first file's abs path)
		noErrors bool
	}{
		{"good folder", []file{good("good")}, []string{"good"}, 0, nil, true},
		{"good SKILL.md file", []file{good("good")}, []string{"good/SKILL.md"}, 0, nil, true},
		{"good flat md", []file{{"flat.md", skillMD("name: flat\ndescription: A flat skill.", "Body.\n")}}, []string{"flat.md"}, 0, nil, true},
		{"good root", []file{good("one"), good("two"), {"three.md", skillMD("name: three\ndescription: Flat.", "")}}, []string{"."}, 0, nil, true},
		{"several good paths", []file{good("one"), good("two")}, []string{"one", "two"}, 0, nil, true},
		{"name with capitals", []file{{"MySkill/SKILL.md", skillMD("name: MySkill\ndescription: d", "")}}, []string{"MySkill"}, 1,
			[][]string{{"{file}", "error", "uppercase"}}, false},
		{"name with a space", []file{{"my skill/SKILL.md", skillMD("name: my skill\ndescription: d", "")}}, []string{"my skill"}, 1,
			[][]string{{"{file}", "error", `"my skill"`}}, false},
		{"name differs from folder", []file{{"alpha/SKILL.md", skillMD("name: beta\ndescription: d", "")}}, []string{"alpha"}, 1,
			[][]string{{"{file}", "error", "folder"}}, false},
		{"missing description", []file{{"nodesc/SKILL.md", skillMD("name: nodesc", "")}}, []string{"nodesc"}, 1,
			[][]string{{"{file}", "error", "description"}}, false},
		{"description over 1024", []file{{"longd/SKILL.md", skillMD("name: longd\ndescription: "+long(1025), "")}}, []string{"longd"}, 1,
			[][]string{{"{file}", "error", "1024"}}, false},
		{"description of exactly 1024", []file{{"okd/SKILL.md", skillMD("name: okd\ndescription: "+long(1024), "")}}, []string{"okd"}, 0, nil, true},
		{"compatibility over 500", []file{{"compat/SKILL.md", skillMD("name: compat\ndescription: d\ncompatibility: "+long(501), "")}}, []string{"compat"}, 1,
			[][]string{{"{file}", "error", "compatibility", "500"}}, false},
		{"compatibility of exactly 500", []file{{"okc/SKILL.md", skillMD("name: okc\ndescription: d\ncompatibility: "+long(500), "")}}, []string{"okc"}, 0, nil, true},
		{"unclosed frontmatter", []file{{"open/SKILL.md", "---\nname: open\ndescription: d\n"}}, []string{"open"}, 1,
			[][]string{{"{file}", "error", "---"}}, false},
		{"no frontmatter", []file{{"plain/SKILL.md", "# Just a heading\n"}}, []string{"plain"}, 1,
			[][]string{{"{file}", "error", "line 1"}}, false},
		{"YAML that does not parse", []file{{"yaml/SKILL.md", "---\nname: yaml\ndescription: [x\n---\n"}}, []string{"yaml"}, 1,
			[][]string{{"{file}", "error", "line 3"}}, false},
		{"frontmatter not a mapping", []file{{"seq/SKILL.md", "---\n- a\n- b\n---\n"}}, []string{"seq"}, 1,
			[][]string{{"{file}", "error", "line 2"}}, false},
		{"unknown keys only", []file{{"unk/SKILL.md", skillMD("name: unk\ndescription: d\nfoo: 1", "")}}, []string{"unk"}, 0,
			[][]string{{"{file}", "warning", `"foo"`}}, true},
		{"one bad in a root", []file{{"Bad/SKILL.md", skillMD("name: Bad\ndescription: d", "")}, good("fine")}, []string{"."}, 1,
			[][]string{{"{file}", "error", "uppercase"}}, false},
		{"a good and a bad path", []file{{"alpha/SKILL.md", skillMD("name: beta\ndescription: d", "")}, good("fine")}, []string{"fine", "alpha"}, 1,
			[][]string{{"{file}", "error", "folder"}}, false},
		{"path does not exist", nil, []string{"no-such-skill"}, 1, [][]string{{"no-such-skill"}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home, dir := asmTempDir(t), asmTempDir(t)
			for _, f := range tt.files {
				writeFile(t, filepath.Join(dir, f.rel), f.content)
			}
			r := helios(t, home, dir, append([]string{"skills", "validate"}, tt.args...)...)
			cliExpect(t, r, tt.code)
			out := r.stdout + r.stderr
			for _, parts := range tt.wantLine {
				parts = append([]string(nil), parts...)
				for i, p := range parts {
					if p == "{file}" {
						parts[i] = filepath.Join(dir, tt.files[0].rel)
					}
				}
				assert.GreaterOrEqual(t, cliLineIndex(out, parts...), 0, "no output line holds %q:\n%s", parts, out)
			}
			if tt.noErrors {
				assert.Negative(t, cliLineIndex(out, ": error"), "an error was reported:\n%s", out)
			}
		})
	}
}

// Protects: without PATH, validate checks every configured root (user roots
// from HOME, project roots of --work-dir); --json reports the error and
// warning counts.
func TestCLISkillsValidateConfiguredRoots(t *testing.T) {
	home, work, cwd := asmTempDir(t), asmTempDir(t), asmTempDir(t)
	userBad := filepath.Join(home, ".agents", "skills", "UserBad", "SKILL.md")
	projBad := filepath.Join(work, ".helios", "skills", "proj", "SKILL.md")
	projWarn := filepath.Join(work, ".agents", "skills", "warned", "SKILL.md")
	writeFile(t, userBad, skillMD("name: UserBad\ndescription: d", ""))
	writeFile(t, projBad, skillMD("name: other\ndescription: d", ""))
	writeFile(t, projWarn, skillMD("name: warned\ndescription: d\nx-extra: 1", ""))
	cliSkillAt(t, filepath.Join(home, ".helios", "skills"), "user-good", "Good.", "")
	cliSkillAt(t, filepath.Join(cwd, ".helios", "skills"), "CwdBad", "Not configured: cwd is not the work dir.", "")

	r := helios(t, home, cwd, "--work-dir", work, "skills", "validate")
	cliExpect(t, r, 1)
	for _, line := range [][]string{{userBad, "error", "uppercase"}, {projBad, "error", "folder"}, {projWarn, "warning", "x-extra"}} {
		assert.GreaterOrEqual(t, cliLineIndex(r.stdout, line...), 0, "no output line holds %q:\n%s", line, r.stdout)
	}
	assert.NotContains(t, r.stdout, "CwdBad", "validate read the cwd, not --work-dir")

	r = helios(t, home, cwd, "--work-dir", work, "skills", "validate", "--json")
	cliExpect(t, r, 1)
	var m map[string]any
	cliDecodeOne(t, r.stdout, &m)
	assert.Equal(t, float64(2), m["errors"], "validate --json: errors=%v warnings=%v; want 2 and 1:\n%s", m["errors"], m["warnings"], r.stdout)
	assert.Equal(t, float64(1), m["warnings"], "validate --json: errors=%v warnings=%v; want 2 and 1:\n%s", m["errors"], m["warnings"], r.stdout)

	// Only warnings: exit 0.
	require.NoError(t, os.RemoveAll(filepath.Dir(userBad)))
	require.NoError(t, os.RemoveAll(filepath.Dir(projBad)))
	r = helios(t, home, cwd, "--work-dir", work, "skills", "validate", "--json")
	cliExpect(t, r, 0)
	m = nil
	cliDecodeOne(t, r.stdout, &m)
	assert.Equal(t, float64(0), m["errors"], "validate --json: errors=%v warnings=%v; want 0 and 1:\n%s", m["errors"], m["warnings"], r.stdout)
	assert.Equal(t, float64(1), m["warnings"], "validate --json: errors=%v warnings=%v; want 0 and 1:\n%s", m["errors"], m["warnings"], r.stdout)

	// No configured root exists: nothing to check, and nothing wrong.
	r = helios(t, asmTempDir(t), asmTempDir(t), "skills", "validate")
	cliExpect(t, r, 0)
}

// Protects: `hooks describe --json` lists the nine standard points, always,
// in lifecycle order with their kinds, and handlers as [] (never null).
func TestCLIHooksDescribe(t *testing.T) {
	wantPoints := [][2]string{
		{"session:start", "concat"}, {"prompt:submit", "concat"}, {"context:prepare", "concat"},
		{"compact:before", "concat"}, {"context:compact", "firstWin"}, {"tool:before", "firstWin"},
		{"tool:after", "concat"}, {"turn:end", "firstWin"}, {"session:end", "concat"},
	}
	w := newCLIWorld(t)
	runs := map[string]cliResult{
		"no config":   helios(t, asmTempDir(t), asmTempDir(t), "hooks", "describe", "--json"),
		"with config": w.run(t, "hooks", "describe", "--json"),
	}
	for name, r := range runs {
		t.Run(name, func(t *testing.T) {
			cliExpect(t, r, 0)
			var got cliHooks
			cliDecodeOne(t, r.stdout, &got)
			var gotPoints [][2]string
			for _, p := range got.Points {
				gotPoints = append(gotPoints, [2]string{p.Name, p.Kind})
				for _, h := range p.Handlers {
					assert.Contains(t, []string{"builtin", "command", "plugin"}, h.Origin, "point %s: handler %s origin", p.Name, h.Name)
				}
			}
			require.GreaterOrEqual(t, len(gotPoints), len(wantPoints), "points = %v; want at least the nine standard points", gotPoints)
			assert.Empty(t, cmp.Diff(wantPoints, gotPoints[:len(wantPoints)]), "standard points (-want +got)")

			var m map[string]any
			cliDecodeOne(t, r.stdout, &m)
			points, ok := m["points"].([]any)
			require.True(t, ok, "points is %T; want a list", m["points"])
			for _, p := range points {
				pm := cliObject(t, "point", p, "name", "kind")
				hs, ok := pm["handlers"].([]any)
				assert.True(t, ok, "point %v: handlers is %v (%T); want a list, [] when empty", pm["name"], pm["handlers"], pm["handlers"])
				for _, h := range hs {
					cliObject(t, "handler", h, "name", "origin")
				}
			}
		})
	}
}

// Protects: without --json, hooks describe is readable text listing every
// standard point in order, not JSON.
func TestCLIHooksDescribeText(t *testing.T) {
	r := helios(t, asmTempDir(t), asmTempDir(t), "hooks", "describe")
	cliExpect(t, r, 0)
	require.False(t, strings.HasPrefix(strings.TrimSpace(r.stdout), "{"), "plain output is JSON:\n%s", r.stdout)
	last := -1
	for _, p := range [][2]string{{"session:start", "concat"}, {"context:prepare", "concat"}, {"context:compact", "firstWin"}, {"tool:before", "firstWin"}, {"turn:end", "firstWin"}} {
		i := cliLineIndex(r.stdout, p[0], p[1])
		assert.Greater(t, i, last, "point %s (%s) missing or out of order:\n%s", p[0], p[1], r.stdout)
		last = i
	}
}

// Protects: --work-dir defaults to the cwd; a relative --work-dir resolves
// against the cwd; --json works before or after the command.
func TestCLIWorkDirFlag(t *testing.T) {
	home, base := asmTempDir(t), asmTempDir(t)
	a, b := filepath.Join(base, "a"), filepath.Join(base, "b")
	cliSkillAt(t, filepath.Join(a, ".helios", "skills"), "in-a", "A.", "")
	cliSkillAt(t, filepath.Join(b, ".agents", "skills"), "in-b", "B.", "")
	tests := []struct {
		name string
		dir  string
		args []string
		want string
	}{
		{"default is cwd", a, []string{"skills", "list", "--json"}, "in-a"},
		{"flag wins over cwd", a, []string{"--work-dir", b, "skills", "list", "--json"}, "in-b"},
		{"relative flag", base, []string{"--work-dir", "b", "skills", "list", "--json"}, "in-b"},
		{"flag after the command", a, []string{"skills", "list", "--work-dir", b, "--json"}, "in-b"},
		{"--json first", b, []string{"--json", "skills", "list"}, "in-b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := helios(t, home, tt.dir, tt.args...)
			cliExpect(t, r, 0)
			got := cliDecodeList(t, r.stdout)
			if assert.Len(t, got.Skills, 1, "skills = %+v; want only %s from project", got.Skills, tt.want) {
				assert.Equal(t, tt.want, got.Skills[0].Name, "skills = %+v; want only %s from project", got.Skills, tt.want)
				assert.Equal(t, "project", got.Skills[0].Source, "skills = %+v; want only %s from project", got.Skills, tt.want)
			}
		})
	}
}

// Protects: --config defaults to <work-dir>/helios.config.json when it
// exists and the user trusted it (found through --work-dir, not only the
// cwd); untrusted, it is ignored with a hint; --config wins over it.
func TestCLIConfigFlag(t *testing.T) {
	home, work, cwd := asmTempDir(t), asmTempDir(t), asmTempDir(t)
	cliSkillAt(t, filepath.Join(home, ".helios", "skills"), "from-home", "Home.", "")
	cliSkillAt(t, filepath.Join(work, "team-skills"), "from-config", "Configured.", "")
	writeFile(t, filepath.Join(work, "helios.config.json"), `{"skills": {"userRoots": ["team-skills"]}}`)
	other := filepath.Join(asmTempDir(t), "other.json")
	writeFile(t, other, `{"skills": {"userRoots": []}}`)

	userSkills := func(r cliResult) []string {
		t.Helper()
		cliExpect(t, r, 0)
		var names []string
		for _, s := range cliDecodeList(t, r.stdout).Skills {
			if s.Source == "user" {
				names = append(names, s.Name)
			}
		}
		return names
	}
	r := helios(t, home, work, "skills", "list", "--json")
	assert.Equal(t, []string{"from-home"}, userSkills(r), "an untrusted config was applied")
	assert.Contains(t, r.stderr, "ignoring "+filepath.Join(work, "helios.config.json"))
	cliExpect(t, helios(t, home, cwd, "trust", work), 0)

	tests := []struct {
		name string
		dir  string
		args []string
		want []string // user skill names
	}{
		{"found in the cwd", work, nil, []string{"from-config"}},
		{"found in --work-dir", cwd, []string{"--work-dir", work}, []string{"from-config"}},
		{"not in the cwd", cwd, nil, []string{"from-home"}},
		{"--config wins", work, []string{"--config", other}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := helios(t, home, tt.dir, append(tt.args, "skills", "list", "--json")...)
			assert.Empty(t, cmp.Diff(tt.want, userSkills(r)), "user skills (-want +got)")
			assert.Empty(t, r.stderr)
		})
	}
}

// Protects: exit codes: a malformed config (given, or one `helios trust`
// is asked to trust) or a missing --work-dir is 1 with stderr naming the
// culprit; a wrong command line is 2 with a usage hint.
func TestCLIErrors(t *testing.T) {
	home, work := asmTempDir(t), asmTempDir(t)
	badWork := asmTempDir(t)
	writeFile(t, filepath.Join(badWork, "helios.config.json"), `{"skills": {"mdoe": "tools"}}`)
	badList := filepath.Join(asmTempDir(t), "bad.json")
	writeFile(t, badList, `{"extensions": [{"dri": "x"}]}`)
	badJSON := filepath.Join(asmTempDir(t), "broken.json")
	writeFile(t, badJSON, "{\n  \"skills\": {,\n}")
	missing := filepath.Join(work, "no-such-dir")
	aFile := filepath.Join(work, "file.txt")
	writeFile(t, aFile, "x")

	tests := []struct {
		name   string
		dir    string
		args   []string
		code   int
		stderr []string
	}{
		{"trusting a malformed default config", badWork, []string{"trust"}, 1, []string{"skills.mdoe"}},
		{"trusting a malformed config via --work-dir", work, []string{"--work-dir", badWork, "trust"}, 1, []string{"skills.mdoe"}},
		{"malformed --config", work, []string{"--config", badList, "skills", "list", "--json"}, 1, []string{"extensions[0].dri"}},
		{"invalid JSON config", work, []string{"--config", badJSON, "skills", "list"}, 1, []string{badJSON, "line 2, column 14"}},
		{"missing --config", work, []string{"--config", filepath.Join(work, "nope.json"), "skills", "list"}, 1, []string{"nope.json"}},
		{"missing --work-dir", work, []string{"--work-dir", missing, "skills", "list"}, 1, []string{missing}},
		{"--work-dir is a file", work, []string{"--work-dir", aFile, "skills", "list"}, 1, []string{aFile}},
		{"unknown command", work, []string{"bogus"}, 2, []string{"bogus", "--help"}},
		{"unknown subcommand", work, []string{"skills", "bogus"}, 2, []string{"bogus", "--help"}},
		{"unknown hooks subcommand", work, []string{"hooks", "bogus"}, 2, []string{"bogus", "--help"}},
		{"unknown flag", work, []string{"skills", "list", "--bogus"}, 2, []string{"--bogus", "--help"}},
		{"unknown global flag", work, []string{"--bogus", "skills", "list"}, 2, []string{"--help"}},
		{"load without a name", work, []string{"skills", "load"}, 2, []string{"--help"}},
		{"extra argument", work, []string{"skills", "list", "extra"}, 2, []string{"extra", "--help"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := helios(t, home, tt.dir, tt.args...)
			cliExpect(t, r, tt.code)
			for _, s := range tt.stderr {
				assert.Contains(t, r.stderr, s, "stderr = %q; want it to contain %q", r.stderr, s)
			}
			if tt.code == 1 {
				assert.Empty(t, r.stdout, "stdout: want nothing on failure")
			}
		})
	}
}

// Protects: the demo the README runs: complete, skills from all three
// sources, the hidden deploy skill still listed (people can load it), and
// exactly the two documented warnings.
func TestCLIDemo(t *testing.T) {
	demo, err := filepath.Abs(filepath.Join("..", "..", "examples", "demo"))
	require.NoError(t, err)
	demo, err = filepath.EvalSymlinks(demo)
	require.NoError(t, err)
	home := asmTempDir(t)
	cliSkillAt(t, filepath.Join(home, ".helios", "skills"), "home-decoy", "The demo's userRoots replace HOME's.", "")
	const config = "../../examples/demo/helios.config.json"
	plDemoPlugin(t) // the demo starts the release-notes plugin from bin/plugins

	r := helios(t, home, ".", "--config", config, "skills", "list", "--json")
	cliExpect(t, r, 0)
	got := cliDecodeList(t, r.stdout)
	assert.True(t, got.Complete, "complete = false")
	type entry struct{ Name, Source, BaseDir string }
	var gotEntries []entry
	for _, s := range got.Skills {
		gotEntries = append(gotEntries, entry{s.Name, s.Source, s.BaseDir})
	}
	want := []entry{
		{"commit-message", "user", filepath.Join(demo, "user-skills", "commit-message")},
		{"changelog", "project", filepath.Join(demo, ".helios", "skills", "changelog")},
		{"code-review", "project", filepath.Join(demo, ".agents", "skills", "code-review")},
		{"deploy", "project", filepath.Join(demo, ".helios", "skills", "deploy")},
		{"docs-style", "capability:docs-style", filepath.Join(demo, "extensions", "docs-style", "skills", "docs-style")},
		{"release-notes", "capability:release-notes", filepath.Join(demo, "..", "..", "bin", "plugins", "release-notes", "skills", "release-notes")},
	}
	assert.Empty(t, cmp.Diff(want, gotEntries), "demo skills (-want +got)")
	require.Len(t, got.Warnings, 2, "warnings; want exactly 2")
	broken := cliFindWarning(t, got.Warnings, filepath.Join(demo, ".helios", "skills", "Broken_Skill", "SKILL.md"))
	assert.Contains(t, broken.Message, "description", "Broken_Skill warning %q does not say the description is missing", broken.Message)
	conflict := cliFindWarning(t, got.Warnings, filepath.Join(demo, ".agents", "skills", "changelog", "SKILL.md"))
	for _, f := range []string{filepath.Join(demo, ".helios", "skills", "changelog", "SKILL.md"), filepath.Join(demo, ".agents", "skills", "changelog", "SKILL.md")} {
		assert.Contains(t, conflict.Message, f, "changelog conflict warning %q does not name %s", conflict.Message, f)
	}

	// The README's next step: what loading changelog returns.
	file := filepath.Join(demo, ".helios", "skills", "changelog", "SKILL.md")
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	doc, err := frontmatter.Parse(file, data)
	require.NoError(t, err)
	r = helios(t, home, ".", "--config", config, "skills", "load", "changelog")
	cliExpect(t, r, 0)
	cliCompareLoad(t, r.stdout, loadText(filepath.Dir(file), doc.Body))
}

// cliSkillAt writes root/name/SKILL.md with a description and extra
// frontmatter lines; its body is "The <name> skill.\n".
func cliSkillAt(t *testing.T, root, name, desc, extra string) {
	t.Helper()
	writeFile(t, filepath.Join(root, name, "SKILL.md"),
		skillMD(strings.TrimSuffix("name: "+name+"\ndescription: "+desc+"\n"+extra, "\n"), "The "+name+" skill.\n"))
}

// cliExpect checks the exit code, showing both streams when it is wrong.
func cliExpect(t *testing.T, r cliResult, code int) {
	t.Helper()
	require.Equal(t, code, r.code, "exit code\nstdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
}

// cliDecodeList decodes `skills list --json` twice: into the contract's
// struct, and into maps to check that every required key is present with
// the right JSON type (a struct cannot tell a missing key from a zero value).
// More keys may follow; they are allowed.
func cliDecodeList(t *testing.T, out string) cliList {
	t.Helper()
	var l cliList
	cliDecodeOne(t, out, &l)
	var m map[string]any
	cliDecodeOne(t, out, &m)
	assert.IsType(t, true, m["complete"], "complete: want a boolean")
	for key, fields := range map[string][]string{"skills": {"name", "description", "source", "baseDir"}, "warnings": {"source", "path", "message"}} {
		list, ok := m[key].([]any)
		if !assert.True(t, ok, "%s is %v (%T); want a list, [] when empty", key, m[key], m[key]) {
			continue
		}
		for _, el := range list {
			cliObject(t, key, el, fields...)
		}
	}
	return l
}

// cliObject checks that v is an object with each key present as a string.
func cliObject(t *testing.T, what string, v any, keys ...string) map[string]any {
	t.Helper()
	obj, ok := v.(map[string]any)
	if !assert.True(t, ok, "%s element is %T; want an object", what, v) {
		return nil
	}
	for _, k := range keys {
		_, ok := obj[k].(string)
		assert.True(t, ok, "%s element %v: %q is %v (%T); want a string", what, obj, k, obj[k], obj[k])
	}
	return obj
}

// cliDecodeOne decodes out as exactly one JSON value.
func cliDecodeOne(t *testing.T, out string, v any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(out))
	require.NoError(t, dec.Decode(v), "decode %T\n%s", v, out)
	_, err := dec.Token()
	require.Same(t, io.EOF, err, "more than one JSON value in the output:\n%s", out)
}

// cliCompareLoad compares `skills load` output with the load text: byte for
// byte, except that a text not ending in a newline gets exactly one.
func cliCompareLoad(t *testing.T, got, want string) {
	t.Helper()
	if !strings.HasSuffix(want, "\n") && got == want+"\n" {
		return
	}
	assert.Empty(t, cmp.Diff(want, got), "load output differs from the skill tool's load text (-want +got)")
}

// cliFindWarning returns the only warning about path.
func cliFindWarning(t *testing.T, ws []cliWarning, path string) cliWarning {
	t.Helper()
	var found []cliWarning
	for _, w := range ws {
		if w.Path == path {
			found = append(found, w)
		}
	}
	require.Len(t, found, 1, "warnings about %s; want exactly one among %+v", path, ws)
	return found[0]
}

// cliLineIndex returns the byte offset of the first line of out containing
// every part, or -1.
func cliLineIndex(out string, parts ...string) int {
	off := 0
	for line := range strings.Lines(out) {
		all := true
		for _, p := range parts {
			if !strings.Contains(line, p) {
				all = false
				break
			}
		}
		if all {
			return off
		}
		off += len(line)
	}
	return -1
}
