package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFocusPackages(t *testing.T) {
	const mod = "example.com/m"
	idx := testIndex{
		"TestUnit":   {mod + "/test/unit"},
		"TestWire":   {mod + "/plugins/internal/wire"},
		"TestShared": {mod + "/kernel/hooks", mod + "/test/unit", mod + "/other"},
		"TestRoot":   {mod},
	}
	for _, tc := range []struct {
		name     string
		patterns []string
		expect   []string
		module   string
		want     []string
	}{
		{"one of two patterns", []string{"./plugins/internal/wire", "./test/unit/..."}, []string{"TestWire"}, mod,
			[]string{mod + "/plugins/internal/wire"}},
		{"both patterns", []string{"./plugins/internal/wire", "./test/unit/..."}, []string{"TestUnit", "TestWire"}, mod,
			[]string{mod + "/plugins/internal/wire", mod + "/test/unit"}},
		{"a subtest names its top-level test", []string{"./test/unit/...", "./kernel/..."}, []string{"TestUnit/case_1"}, mod,
			[]string{mod + "/test/unit"}},
		// TestShared is also in ./other, which the entry does not name:
		// a test there must not decide the verdict.
		{"a same-named test outside the patterns", []string{"./test/unit/...", "./kernel/..."}, []string{"TestShared"}, mod,
			[]string{mod + "/kernel/hooks", mod + "/test/unit"}},
		{"./... and the module's own package", []string{"./..."}, []string{"TestRoot", "TestWire"}, mod,
			[]string{mod, mod + "/plugins/internal/wire"}},
		{"dot", []string{".", "./test/unit"}, []string{"TestRoot"}, mod, []string{mod}},
		// ./plugins/... must not match ./pluginsx: the prefix is a path.
		{"a test the baseline never ran", []string{"./test/unit/...", "./kernel/..."}, []string{"TestUnit", "TestGone"}, mod,
			[]string{"./test/unit/...", "./kernel/..."}},
		{"an expected test only outside the patterns", []string{"./kernel/..."}, []string{"TestWire"}, mod,
			[]string{"./kernel/..."}},
		{"a pattern go matches differently", []string{"./plugins...", "./test/unit/..."}, []string{"TestUnit"}, mod,
			[]string{"./plugins...", "./test/unit/..."}},
		{"a middle wildcard", []string{"./test/.../unit"}, []string{"TestUnit"}, mod,
			[]string{"./test/.../unit"}},
		{"an import path pattern", []string{"example.com/m/test/unit"}, []string{"TestUnit"}, mod,
			[]string{"example.com/m/test/unit"}},
		{"no module path", []string{"./test/unit/...", "./kernel/..."}, []string{"TestUnit"}, "",
			[]string{"./test/unit/...", "./kernel/..."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := &entry{ID: "M1", Packages: tc.patterns, Expect: tc.expect}
			assert.Empty(t, cmp.Diff(tc.want, focusPackages(e, idx, tc.module)), "focusPackages (-want +got)")
		})
	}
	t.Run("a path prefix is not a parent", func(t *testing.T) {
		e := &entry{ID: "M1", Packages: []string{"./plugins/...", "./kernel/..."}, Expect: []string{"TestX"}}
		got := focusPackages(e, testIndex{"TestX": {mod + "/pluginsx", mod + "/kernel/a"}}, mod)
		assert.Equal(t, []string{mod + "/kernel/a"}, got)
	})
}

func TestIndexTests(t *testing.T) {
	stream := []byte(`{"Action":"start","Package":"m/a"}
{"Action":"run","Package":"m/a","Test":"TestOne"}
{"Action":"run","Package":"m/a","Test":"TestOne/sub"}
{"Action":"pass","Package":"m/a","Test":"TestOne"}
{"Action":"run","Package":"m/b","Test":"TestOne"}
{"Action":"run","Package":"m/b","Test":"FuzzTwo"}
{"Action":"skip","Package":"m/b","Test":"FuzzTwo"}
not json
{"Action":"output","Package":"m/c","Test":"TestThree","Output":"x"}
`)
	want := testIndex{"TestOne": {"m/a", "m/b"}, "FuzzTwo": {"m/b"}}
	assert.Empty(t, cmp.Diff(want, indexTests(stream)), "indexTests (-want +got)")
}

func TestModulePath(t *testing.T) {
	for _, tc := range []struct{ gomod, want string }{
		{"module example.com/m\n\ngo 1.26\n", "example.com/m"},
		{"// a comment\nmodule \"example.com/quoted\" // why\n", "example.com/quoted"},
		{"modulex example.com/no\n", ""},
		{"go 1.26\n", ""},
	} {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte(tc.gomod), 0o644))
		assert.Equal(t, tc.want, modulePath(dir), "go.mod %q", tc.gomod)
	}
	assert.Empty(t, modulePath(t.TempDir()), "no go.mod")
}

// Every run gets GOFLAGS: what go env reported (a go env -w setting is
// otherwise lost once the overlay is added through the environment) and
// -ldflags=-w, unless the user set -ldflags.
func TestChildEnvGoFlags(t *testing.T) {
	for _, tc := range []struct{ goflags, want string }{
		{"", "-ldflags=-w"},
		{"-tags=x -mod=mod", "-tags=x -mod=mod -ldflags=-w"},
		{"-ldflags=-s", "-ldflags=-s"},
	} {
		s := &suite{root: "/m", tmp: "/tmp/x", env: []string{"GOFLAGS=-stale", "HOME=/h"}, goflags: tc.goflags}
		env := s.childEnv("M1")
		assert.Equal(t, tc.want, lookupEnv(env, "GOFLAGS"), "GOFLAGS for go env %q", tc.goflags)
		assert.Equal(t, "M1", lookupEnv(env, runEnv))
		assert.Equal(t, tc.want+" -overlay=/o.json", lookupEnv(withGoFlag(env, "-overlay=/o.json"), "GOFLAGS"), "with the overlay")
	}
}

// goFlags reads GOFLAGS as the go command sees it, go env -w included.
func TestGoFlagsReadsGoEnvFile(t *testing.T) {
	goenv := filepath.Join(t.TempDir(), "go.env")
	require.NoError(t, os.WriteFile(goenv, []byte("GOFLAGS=-tags=fromfile\n"), 0o644))
	env := append(os.Environ(), "GOENV="+goenv, "GOFLAGS=")
	got, err := goFlags(t.Context(), ".", env)
	require.NoError(t, err)
	assert.Equal(t, "-tags=fromfile", got)
}
