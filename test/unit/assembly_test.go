package unit_test

// Black-box contract tests of assembly (DESIGN.md "C10 Assembly and CLI"):
// strict helios.config.json, durations as strings, defaults that need no
// file, each config key, and a failed assembly that leaves nothing open.

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/helios-agents/helios/assembly"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/skills"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Protects: strict decoding (STYLE.md 5). Every malformed config is an error
// that wraps assembly.ErrConfig and names the JSON path (or, for broken JSON,
// the line and column), so a typo is never silently ignored.
func TestAssemblyConfigStrictErrors(t *testing.T) {
	tests := []struct {
		name string
		json string
		want []string // substrings of the error
	}{
		{"unknown top-level key", `{"wrokDir": "."}`, []string{"wrokDir", "unknown key"}},
		{"unknown nested key", `{"skills": {"mdoe": "tools"}}`, []string{"skills.mdoe", "unknown key"}},
		{"unknown key in a list element", `{"extensions": [{"dri": "x"}]}`, []string{"extensions[0].dri", "unknown key"}},
		{"unknown key in a later list element", `{"extensions": [{"dir": "x"}, {"dri": "y"}]}`, []string{"extensions[1].dri", "unknown key"}},
		{"keys are case-sensitive", `{"WorkDir": "."}`, []string{"WorkDir", "unknown key"}},
		{"wrong type nested", `{"skills": {"mode": 3}}`, []string{"skills.mode", "string"}},
		{"wrong type for an object", `{"skills": "catalog"}`, []string{"skills", "object"}},
		{"wrong type in a list", `{"skills": {"userRoots": ["a", 3]}}`, []string{"skills.userRoots[1]"}},
		{"list given as a string", `{"extensions": "ext"}`, []string{"extensions", "list"}},
		{"top level not an object", `["a"]`, []string{"object"}},
		{"invalid JSON", "{\n  \"workDir\": ,\n}\n", []string{"line 2, column 14"}},
		{"invalid JSON on the first line", `{"workDir": "x",}`, []string{"line 1, column 17"}},
		{"truncated JSON", "{\n  \"workDir\": \"x\"\n", []string{"line 3"}},
		{"trailing object", `{} {}`, []string{"after"}},
		{"trailing garbage", "{\"workDir\": \".\"}\nx", []string{"after"}},
		{"unknown skills.mode value", `{"skills": {"mode": "fast"}}`, []string{"skills.mode", "fast"}},
		{"extension without dir", `{"extensions": [{}]}`, []string{"extensions[0].dir"}},
	}
	work := asmTempDir(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := asmWriteConfig(t, asmTempDir(t), tt.json)
			k, err := assembly.Load(context.Background(), path, assembly.Options{WorkDir: work})
			if err == nil {
				k.Close()
			}
			require.Error(t, err, "Load(%s) succeeded; want an error naming %q", tt.json, tt.want)
			assert.ErrorIs(t, err, assembly.ErrConfig, "Load error does not wrap assembly.ErrConfig")
			for _, w := range tt.want {
				assert.Contains(t, err.Error(), w, "Load error = %q; want it to contain %q", err, w)
			}
		})
	}
}

// Protects: a decode error names the config file as well as the path, so a
// person with several configs knows which one to fix.
func TestAssemblyConfigErrorNamesFile(t *testing.T) {
	path := asmWriteConfig(t, asmTempDir(t), `{"skills": {"mdoe": "tools"}}`)
	_, err := assembly.Load(context.Background(), path, assembly.Options{WorkDir: asmTempDir(t)})
	require.ErrorContains(t, err, path, "Load error = %v; want it to name %s", err, path)
}

// Protects: durations are strings such as "500ms"; numbers (ambiguous units)
// and negative or malformed strings are refused with a message that says
// what is expected.
func TestAssemblyDurationUnmarshal(t *testing.T) {
	tests := []struct {
		in      string
		want    time.Duration
		wantErr string // substring; "" means success
	}{
		{`"500ms"`, 500 * time.Millisecond, ""},
		{`"1m30s"`, 90 * time.Second, ""},
		{`"0s"`, 0, ""},
		{`500`, 0, `a duration must be a string such as "500ms"`},
		{`1.5`, 0, `a duration must be a string`},
		{`true`, 0, `a duration must be a string`},
		{`"-1s"`, 0, "negative"},
		{`"soon"`, 0, `invalid duration "soon"`},
		{`"500"`, 0, `invalid duration "500"`},
		{`""`, 0, `invalid duration ""`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			check := func(t *testing.T, got time.Duration, err error) {
				t.Helper()
				if tt.wantErr == "" {
					require.NoError(t, err, "unmarshal %s", tt.in)
					require.Equal(t, tt.want, got, "unmarshal %s", tt.in)
					return
				}
				require.ErrorContains(t, err, tt.wantErr, "unmarshal %s: err = %v; want one containing %q", tt.in, err, tt.wantErr)
			}
			t.Run("UnmarshalJSON", func(t *testing.T) {
				var d assembly.Duration
				err := d.UnmarshalJSON([]byte(tt.in))
				check(t, time.Duration(d), err)
			})
			t.Run("json.Unmarshal in a struct", func(t *testing.T) {
				var v struct {
					Timeout assembly.Duration `json:"timeout"`
				}
				err := json.Unmarshal([]byte(`{"timeout": `+tt.in+`}`), &v)
				check(t, time.Duration(v.Timeout), err)
			})
		})
	}
}

// Protects: a Duration round-trips as a string, and JSON null leaves it
// unchanged (encoding/json's convention for Unmarshalers).
func TestAssemblyDurationMarshalAndNull(t *testing.T) {
	b, err := json.Marshal(assembly.Duration(1500 * time.Millisecond))
	require.NoError(t, err)
	require.Equal(t, `"1.5s"`, string(b), "Marshal(1.5s) = %s", b)
	var v struct {
		D assembly.Duration `json:"d"`
	}
	require.NoError(t, json.Unmarshal(b, &v.D), "round trip")
	require.Equal(t, 1500*time.Millisecond, time.Duration(v.D), "round trip")
	require.NoError(t, json.Unmarshal([]byte(`{"d": null}`), &v), "null")
	require.Equal(t, 1500*time.Millisecond, time.Duration(v.D), "null changed the duration to %v", time.Duration(v.D))
}

// Protects: no config at all (and an empty or {} config) is a working kernel:
// user roots from HOME (.helios, .agents, then .claude), project roots
// .helios/skills, .agents/skills, then .claude/skills of the work dir (the
// current directory), catalog mode.
func TestAssemblyDefaultsWithoutConfig(t *testing.T) {
	home := asmTempDir(t)
	t.Setenv("HOME", home)
	work := asmTempDir(t)
	asmSkill(t, filepath.Join(home, ".helios", "skills"), "user-one")
	asmSkill(t, filepath.Join(home, ".agents", "skills"), "user-two")
	asmSkill(t, filepath.Join(work, ".helios", "skills"), "proj-one")
	asmSkill(t, filepath.Join(work, ".agents", "skills"), "proj-two")
	asmSkill(t, filepath.Join(home, ".claude", "skills"), "user-three")
	asmSkill(t, filepath.Join(work, ".claude", "skills"), "proj-three")
	// Decoys at roots that are not the defaults.
	asmSkill(t, filepath.Join(home, "skills"), "decoy-home")
	asmSkill(t, filepath.Join(work, "skills"), "decoy-work")
	asmSkill(t, filepath.Join(work, ".helios", "skills", "proj-one", "nested"), "decoy-nested")

	want := []asmEntry{
		{"user-one", "user", filepath.Join(home, ".helios", "skills", "user-one")},
		{"user-three", "user", filepath.Join(home, ".claude", "skills", "user-three")},
		{"user-two", "user", filepath.Join(home, ".agents", "skills", "user-two")},
		{"proj-one", "project", filepath.Join(work, ".helios", "skills", "proj-one")},
		{"proj-three", "project", filepath.Join(work, ".claude", "skills", "proj-three")},
		{"proj-two", "project", filepath.Join(work, ".agents", "skills", "proj-two")},
	}
	wantUserRoots := []string{filepath.Join(home, ".helios", "skills"), filepath.Join(home, ".agents", "skills"), filepath.Join(home, ".claude", "skills")}

	cfgDir := asmTempDir(t) // a config outside the work dir: workDir defaults to cwd, not here
	tests := []struct {
		name   string
		config *string // nil: no file at all
	}{
		{"no config file", nil},
		{"empty file", asmPtr("")},
		{"whitespace only", asmPtr("\n  \t\n")},
		{"empty object", asmPtr("{}")},
		{"explicit nulls", asmPtr(`{"workDir": null, "skills": {"mode": null, "userRoots": null, "projectRoots": null}, "extensions": null}`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Chdir(work)
			path := ""
			if tt.config != nil {
				path = asmWriteConfig(t, cfgDir, *tt.config)
			}
			k := asmLoad(t, path, assembly.Options{})
			assert.Equal(t, work, k.WorkDir(), "WorkDir() = %q; want the current directory %q", k.WorkDir(), work)
			assert.Empty(t, cmp.Diff(wantUserRoots, k.UserSkillRoots()), "UserSkillRoots (-want +got)")
			assert.Equal(t, skills.ModeCatalog, k.SkillsMode(), "SkillsMode()")
			cat := k.Catalog(context.Background())
			assert.Empty(t, cmp.Diff(want, asmEntries(cat)), "catalog (-want +got)")
			assert.True(t, cat.Complete, "catalog complete=%v warnings=%v; want complete with none", cat.Complete, cat.Warnings)
			assert.Empty(t, cat.Warnings, "catalog complete=%v warnings=%v; want complete with none", cat.Complete, cat.Warnings)
			assert.Empty(t, k.Extensions(), "Extensions(); want empty (the project skills capability is not listed)")
		})
	}
}

// Protects: workDir resolves against the config file's folder (not the
// process's cwd), and opts.WorkDir (the CLI's --work-dir) overrides it.
func TestAssemblyWorkDir(t *testing.T) {
	t.Setenv("HOME", asmTempDir(t))
	base := asmTempDir(t)
	cfgDir := filepath.Join(base, "conf")
	proj := filepath.Join(base, "proj")
	other := filepath.Join(base, "other")
	asmSkill(t, filepath.Join(proj, ".helios", "skills"), "in-proj")
	asmSkill(t, filepath.Join(other, ".helios", "skills"), "in-other")
	asmSkill(t, filepath.Join(cfgDir, ".helios", "skills"), "in-conf")
	path := asmWriteConfig(t, cfgDir, `{"workDir": "../proj"}`)
	t.Chdir(other) // a relative workDir must not resolve against this

	t.Run("relative to the config folder", func(t *testing.T) {
		k := asmLoad(t, path, assembly.Options{})
		assert.Equal(t, proj, k.WorkDir(), "WorkDir()")
		want := []asmEntry{{"in-proj", "project", filepath.Join(proj, ".helios", "skills", "in-proj")}}
		assert.Empty(t, cmp.Diff(want, asmEntries(k.Catalog(context.Background()))), "catalog (-want +got)")
	})
	t.Run("dot is the config folder", func(t *testing.T) {
		k := asmLoad(t, asmWriteConfig(t, cfgDir, `{"workDir": "."}`), assembly.Options{})
		assert.Equal(t, cfgDir, k.WorkDir(), "WorkDir()")
	})
	t.Run("opts.WorkDir overrides", func(t *testing.T) {
		k := asmLoad(t, path, assembly.Options{WorkDir: other})
		assert.Equal(t, other, k.WorkDir(), "WorkDir()")
		want := []asmEntry{{"in-other", "project", filepath.Join(other, ".helios", "skills", "in-other")}}
		assert.Empty(t, cmp.Diff(want, asmEntries(k.Catalog(context.Background()))), "catalog (-want +got)")
	})
	t.Run("missing work dir is an error naming it", func(t *testing.T) {
		missing := filepath.Join(base, "no-such-dir")
		p := asmWriteConfig(t, cfgDir, `{"workDir": "../no-such-dir"}`)
		_, err := assembly.Load(context.Background(), p, assembly.Options{})
		require.ErrorContains(t, err, missing, "Load = %v; want an error naming %s", err, missing)
	})
}

// Protects: skills.userRoots replaces the defaults, in order; "~/" is HOME
// and relative paths resolve against the config folder; [] reads none.
func TestAssemblyUserRoots(t *testing.T) {
	home := asmTempDir(t)
	t.Setenv("HOME", home)
	base := asmTempDir(t)
	cfgDir := filepath.Join(base, "conf")
	abs := filepath.Join(base, "abs-root")
	work := asmTempDir(t)
	asmSkill(t, filepath.Join(home, ".helios", "skills"), "default-user") // must not be read
	asmSkill(t, filepath.Join(home, "mine"), "from-tilde")
	asmSkill(t, filepath.Join(cfgDir, "rel"), "from-relative")
	asmSkill(t, abs, "from-absolute")
	t.Chdir(work) // relative roots must not resolve against the cwd
	asmSkill(t, filepath.Join(work, "rel"), "decoy-cwd")

	t.Run("replaced", func(t *testing.T) {
		cfg := `{"skills": {"userRoots": ["~/mine", "rel", ` + asmQuote(abs) + `]}}`
		k := asmLoad(t, asmWriteConfig(t, cfgDir, cfg), assembly.Options{WorkDir: work})
		wantRoots := []string{filepath.Join(home, "mine"), filepath.Join(cfgDir, "rel"), abs}
		assert.Empty(t, cmp.Diff(wantRoots, k.UserSkillRoots()), "UserSkillRoots (-want +got)")
		want := []asmEntry{
			{"from-absolute", "user", filepath.Join(abs, "from-absolute")},
			{"from-relative", "user", filepath.Join(cfgDir, "rel", "from-relative")},
			{"from-tilde", "user", filepath.Join(home, "mine", "from-tilde")},
		}
		assert.Empty(t, cmp.Diff(want, asmEntries(k.Catalog(context.Background()))), "catalog (-want +got)")
	})
	t.Run("empty list reads none", func(t *testing.T) {
		k := asmLoad(t, asmWriteConfig(t, cfgDir, `{"skills": {"userRoots": []}}`), assembly.Options{WorkDir: work})
		assert.Empty(t, k.UserSkillRoots(), "UserSkillRoots()")
		assert.Empty(t, asmEntries(k.Catalog(context.Background())), "catalog; want no skills")
	})
}

// Protects: skills.projectRoots replaces .helios/skills and .agents/skills
// (relative to the work dir); [] reads no project skills.
func TestAssemblyProjectRoots(t *testing.T) {
	t.Setenv("HOME", asmTempDir(t))
	work := asmTempDir(t)
	cfgDir := asmTempDir(t)
	asmSkill(t, filepath.Join(work, ".helios", "skills"), "default-proj")
	asmSkill(t, filepath.Join(work, "custom", "skills"), "custom-proj")
	asmSkill(t, filepath.Join(cfgDir, "custom", "skills"), "decoy-conf")

	t.Run("replaced", func(t *testing.T) {
		k := asmLoad(t, asmWriteConfig(t, cfgDir, `{"skills": {"projectRoots": ["custom/skills"]}}`), assembly.Options{WorkDir: work})
		want := []asmEntry{{"custom-proj", "project", filepath.Join(work, "custom", "skills", "custom-proj")}}
		assert.Empty(t, cmp.Diff(want, asmEntries(k.Catalog(context.Background()))), "catalog (-want +got)")
	})
	t.Run("empty list reads none", func(t *testing.T) {
		k := asmLoad(t, asmWriteConfig(t, cfgDir, `{"skills": {"projectRoots": []}}`), assembly.Options{WorkDir: work})
		assert.Empty(t, asmEntries(k.Catalog(context.Background())), "catalog; want no skills")
	})
	t.Run("mode tools", func(t *testing.T) {
		k := asmLoad(t, asmWriteConfig(t, cfgDir, `{"skills": {"mode": "tools"}}`), assembly.Options{WorkDir: work})
		assert.Equal(t, skills.ModeTools, k.SkillsMode(), "SkillsMode()")
	})
}

// Protects: extensions[].dir (relative to the config folder) installs the
// EXTENSION.md capability: its skills merge after project skills as
// capability:<name>, and its description is its <extensions> line.
func TestAssemblyExtensions(t *testing.T) {
	t.Setenv("HOME", asmTempDir(t))
	work := asmTempDir(t)
	cfgDir := asmTempDir(t)
	asmSkill(t, filepath.Join(work, ".helios", "skills"), "zz-project")
	asmExtension(t, filepath.Join(cfgDir, "ext", "style"), "docs-style", "House style for user-facing documentation.")
	asmSkill(t, filepath.Join(cfgDir, "ext", "style", "skills"), "aa-style")
	asmExtension(t, filepath.Join(cfgDir, "ext", "bare"), "bare-ext", "An extension without skills.")

	path := asmWriteConfig(t, cfgDir, `{"extensions": [{"dir": "ext/style"}, {"dir": "ext/bare"}]}`)
	k := asmLoad(t, path, assembly.Options{WorkDir: work})
	want := []asmEntry{
		{"zz-project", "project", filepath.Join(work, ".helios", "skills", "zz-project")},
		{"aa-style", "capability:docs-style", filepath.Join(cfgDir, "ext", "style", "skills", "aa-style")},
	}
	cat := k.Catalog(context.Background())
	assert.Empty(t, cmp.Diff(want, asmEntries(cat)), "catalog (-want +got)")
	assert.Empty(t, cat.Warnings, "warnings")
	ext := k.Extensions()
	for _, line := range []string{"docs-style: House style for user-facing documentation.", "bare-ext: An extension without skills."} {
		assert.Contains(t, ext, line, "Extensions() = %q; want a line %q", ext, line)
	}
	assert.LessOrEqual(t, strings.Index(ext, "docs-style"), strings.Index(ext, "bare-ext"), "Extensions() = %q; want config order", ext)
	assert.NotContains(t, ext, "skills:", "Extensions(); the project skills capability must not be listed")
}

// Protects: a missing extension dir is an error naming extensions[i] and the
// folder; and a failed assembly closes what it opened (the project
// capability's work-dir handle): the error carries nothing but the cause, no
// file descriptor is leaked, and the next Load in the same dir works.
func TestAssemblyFailedLoadLeavesNothingOpen(t *testing.T) {
	t.Setenv("HOME", asmTempDir(t))
	cfgDir := asmTempDir(t)
	asmExtension(t, filepath.Join(cfgDir, "ext", "one"), "dup", "First.")
	asmExtension(t, filepath.Join(cfgDir, "ext", "two"), "dup", "Second, same name.")
	asmExtension(t, filepath.Join(cfgDir, "ext", "skills-clash"), "skills", "Clashes with the project skills capability.")

	tests := []struct {
		name string
		cfg  string
		want []string
	}{
		{"missing extension dir", `{"extensions": [{"dir": "ext/one"}, {"dir": "ext/nope"}]}`,
			[]string{"extensions[1]", filepath.Join(cfgDir, "ext", "nope")}},
		{"extension names clash", `{"extensions": [{"dir": "ext/one"}, {"dir": "ext/two"}]}`,
			[]string{`"dup"`}},
		{"extension named like the project capability", `{"extensions": [{"dir": "ext/skills-clash"}]}`,
			[]string{`"skills"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			work := asmTempDir(t) // its own, so leaks of one case do not fail another
			asmSkill(t, filepath.Join(work, ".helios", "skills"), "proj")
			path := asmWriteConfig(t, cfgDir, tt.cfg)
			load := func() error {
				k, err := assembly.Load(context.Background(), path, assembly.Options{WorkDir: work})
				if err == nil {
					k.Close()
				}
				require.Error(t, err, "Load succeeded; want an error containing %q", tt.want)
				assert.Nil(t, k, "Load returned a kernel with its error")
				return err
			}
			err := load()
			for _, w := range tt.want {
				assert.Contains(t, err.Error(), w, "Load error = %q; want it to contain %q", err, w)
			}
			// errors.Join puts each closing failure on its own line.
			assert.NotContains(t, err.Error(), "\n", "Load error = %q; want only the cause, no closing errors", err)
			// The project capability holds the work dir open; after a failed
			// Load nothing may. No GC meanwhile: a cleanup must not hide a leak.
			defer debug.SetGCPercent(debug.SetGCPercent(-1))
			for range 3 {
				load()
			}
			if n, ok := asmFDsOn(work); !ok {
				t.Log("no /proc/self/fd on this system; leak check skipped")
			} else {
				assert.Zero(t, n, "file descriptors still referring to the work dir after failed loads: the failed assembly leaks")
			}
			k := asmLoad(t, "", assembly.Options{WorkDir: work})
			got := asmEntries(k.Catalog(context.Background()))
			if assert.Len(t, got, 1, "catalog after the failed loads") {
				assert.Equal(t, "proj", got[0].Name, "catalog after the failed loads")
			}
			assert.NoError(t, k.Close(), "Close after the failed loads")
		})
	}
}

// Protects: an assembled kernel holds the work dir open and Close releases
// it (the counterpart of the failure test above, and proof that its leak
// detector sees the handle at all).
func TestAssemblyCloseReleases(t *testing.T) {
	t.Setenv("HOME", asmTempDir(t))
	work := asmTempDir(t)
	if _, ok := asmFDsOn(work); !ok {
		t.Skip("no /proc/self/fd on this system")
	}
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	k, err := assembly.Load(context.Background(), "", assembly.Options{WorkDir: work})
	require.NoError(t, err)
	n, _ := asmFDsOn(work)
	assert.NotZero(t, n, "no file descriptor refers to the open kernel's work dir; the leak checks would prove nothing")
	require.NoError(t, k.Close(), "Close")
	n, _ = asmFDsOn(work)
	assert.Zero(t, n, "%d file descriptors still refer to the work dir after Close", n)
}

// asmEntry is what a catalog test compares: name, source, base dir.
type asmEntry struct {
	Name, Source, BaseDir string
}

func asmEntries(cat skills.Catalog) []asmEntry {
	out := []asmEntry{}
	for _, s := range cat.Skills {
		out = append(out, asmEntry{s.Name, s.Source, s.BaseDir})
	}
	return out
}

// asmTempDir is a symlink-resolved temp dir, so paths compare equal to the
// kernel's (the work dir is resolved once, by the guarded FS).
func asmTempDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	return d
}

// asmWriteConfig writes dir/helios.config.json and returns its path.
func asmWriteConfig(t *testing.T, dir, content string) string {
	t.Helper()
	p := filepath.Join(dir, assembly.ConfigFileName)
	writeFile(t, p, content)
	return p
}

// asmSkill writes a valid skill root/name/SKILL.md.
func asmSkill(t *testing.T, root, name string) {
	t.Helper()
	writeFile(t, filepath.Join(root, name, "SKILL.md"),
		skillMD("name: "+name+"\ndescription: The "+name+" skill, for tests.", "Do the "+name+" thing.\n"))
}

// asmExtension writes dir/EXTENSION.md.
func asmExtension(t *testing.T, dir, name, desc string) {
	t.Helper()
	writeFile(t, filepath.Join(dir, "EXTENSION.md"), skillMD("name: "+name+"\ndescription: "+desc, "About "+name+".\n"))
}

// asmLoad assembles a kernel that is closed when the test ends.
func asmLoad(t *testing.T, path string, opts assembly.Options) *kernel.Kernel {
	t.Helper()
	k, err := assembly.Load(context.Background(), path, opts)
	require.NoError(t, err, "Load(%q)", path)
	t.Cleanup(func() {
		assert.NoError(t, k.Close(), "Close")
	})
	return k
}

// asmFDsOn counts this process's open file descriptors that refer to path,
// where the system shows them (/proc/self/fd).
func asmFDsOn(path string) (int, bool) {
	es, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return 0, false
	}
	n := 0
	for _, e := range es {
		if target, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); err == nil && target == path {
			n++
		}
	}
	return n, true
}

func asmQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func asmPtr(s string) *string { return &s }
