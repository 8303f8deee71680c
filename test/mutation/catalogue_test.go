package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const validCanary = `
canary:
  id: CANARY
  breaks: Add subtracts
  file: calc/calc.go
  find: "return a + b"
  replace: "return a - b"
`

func TestParseCatalogueDefaults(t *testing.T) {
	cat, err := parseCatalogue([]byte(validCanary + `
mutations:
  - id: M1
    breaks: tabs survive
    file: calc/calc.go
    find: |-
      if x < 0 {
      		return -x
      	}
    replace: "x"
    expect: [TestAbs]
  - id: M2
    breaks: own packages
    file: calc/calc.go
    find: a
    replace: b
    packages: [./calc]
`))
	require.NoError(t, err)
	want := &catalogue{
		Packages: []string{"./..."},
		Canary: &entry{ID: "CANARY", Breaks: "Add subtracts", File: "calc/calc.go",
			Find: "return a + b", Replace: "return a - b", Packages: []string{"./..."}},
		Mutations: []*entry{
			{ID: "M1", Breaks: "tabs survive", File: "calc/calc.go", Find: "if x < 0 {\n\t\treturn -x\n\t}",
				Replace: "x", Packages: []string{"./..."}, Expect: []string{"TestAbs"}},
			{ID: "M2", Breaks: "own packages", File: "calc/calc.go", Find: "a", Replace: "b",
				Packages: []string{"./calc"}},
		},
	}
	assert.Empty(t, cmp.Diff(want, cat, cmp.AllowUnexported(catalogue{}, entry{})), "parseCatalogue (-want +got)")
}

func TestParseCatalogueErrors(t *testing.T) {
	mutation := func(extra string) string {
		return validCanary + "mutations:\n  - id: M1\n    breaks: b\n    file: f.go\n    find: x\n    replace: y\n" + extra
	}
	for _, tc := range []struct {
		name string
		yaml string
		want []string // substrings of the error
	}{
		{"empty", "", []string{"needs at least a canary"}},
		{"no canary", "mutations: []\n", []string{"no canary"}},
		{"unknown top-level key", validCanary + "mutation: []\n", []string{"top level", `unknown key "mutation"`}},
		{"unknown canary key", validCanary + "  expcet: [T]\n", []string{"canary", `unknown key "expcet"`}},
		{"unknown entry key names entry", mutation("    expct: [TestX]\n"),
			[]string{"line 14", "mutations[0] (M1)", `unknown key "expct"`}},
		{"duplicate id", mutation("  - {id: M1, breaks: b, file: f.go, find: x, replace: z}\n"),
			[]string{"mutations[1] (M1)", `id "M1" already used by mutations[0] (M1)`}},
		{"id reuses canary", mutation("  - {id: CANARY, breaks: b, file: f.go, find: x, replace: z}\n"),
			[]string{"already used by canary"}},
		{"bad id", mutation("  - {id: 'M 2', breaks: b, file: f.go, find: x, replace: z}\n"), []string{`id "M 2"`}},
		{"no breaks", mutation("  - {id: M2, file: f.go, find: x, replace: z}\n"), []string{"mutations[1] (M2): breaks"}},
		{"two-line breaks", mutation("  - {id: M2, breaks: \"a\\nb\", file: f.go, find: x, replace: z}\n"),
			[]string{"one line"}},
		{"file outside module", mutation("  - {id: M2, breaks: b, file: ../f.go, find: x, replace: z}\n"),
			[]string{`file "../f.go"`}},
		{"absolute file", mutation("  - {id: M2, breaks: b, file: /f.go, find: x, replace: z}\n"), []string{`file "/f.go"`}},
		{"empty find", mutation("  - {id: M2, breaks: b, file: f.go, find: '', replace: z}\n"), []string{"find: empty"}},
		{"no-op", mutation("  - {id: M2, breaks: b, file: f.go, find: z, replace: z}\n"), []string{"same as find"}},
		{"flag as package", mutation("  - {id: M2, breaks: b, file: f.go, find: x, replace: z, packages: [-cover]}\n"),
			[]string{`"-cover" is not a package pattern`}},
		{"wrong type", mutation("  - {id: M2, breaks: b, file: f.go, find: x, replace: z, expect: TestX}\n"),
			[]string{"cannot unmarshal"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseCatalogue([]byte(tc.yaml))
			require.Error(t, err, "parseCatalogue succeeded, want error containing %q", tc.want)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w, "error %q does not contain %q", err, w)
			}
		})
	}
}

func TestSelectIDs(t *testing.T) {
	cat, err := parseCatalogue([]byte(validCanary + `
mutations:
  - {id: M1, breaks: b, file: f.go, find: x, replace: y}
  - {id: M2, breaks: b, file: f.go, find: x, replace: y}
  - {id: M3, breaks: b, file: f.go, find: x, replace: y}
`))
	require.NoError(t, err)
	ids := func(es []*entry) []string {
		var out []string
		for _, e := range es {
			out = append(out, e.ID)
		}
		return out
	}
	for _, tc := range []struct {
		name    string
		only    []string
		want    []string
		wantErr string
	}{
		{"all", nil, []string{"M1", "M2", "M3"}, ""},
		{"catalogue order", []string{"M3", "M1", "M3"}, []string{"M1", "M3"}, ""},
		{"unknown", []string{"M1", "M9"}, nil, "unknown id M9; known: M1, M2, M3"},
		{"canary", []string{"CANARY"}, nil, "CANARY is the canary"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := cat.selectIDs(tc.only)
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr, "selectIDs(%q) error", tc.only)
				return
			}
			require.NoError(t, err)
			assert.Empty(t, cmp.Diff(tc.want, ids(got)), "selectIDs(%q) (-want +got)", tc.only)
		})
	}
}

func TestPackagesUnion(t *testing.T) {
	got := packages([]*entry{
		{Packages: []string{"./a", "./b"}},
		{Packages: []string{"./b", "./c"}},
	})
	assert.Empty(t, cmp.Diff([]string{"./a", "./b", "./c"}, got), "packages (-want +got)")
}

// TestCatalogueIsFresh keeps the real catalogue loadable and every entry
// applicable, so that a change that makes an entry STALE fails here, in the
// unit suite, before anyone runs the mutation suite.
func TestCatalogueIsFresh(t *testing.T) {
	root, err := moduleRoot("")
	require.NoError(t, err)
	cat, err := loadCatalogue(filepath.Join(root, defaultCatalogue))
	require.NoError(t, err)
	for _, e := range cat.entries() {
		src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(e.File)))
		if !assert.NoError(t, err, "%s", e.ID) {
			continue
		}
		_, err = mutate(string(src), e.Find, e.Replace)
		assert.NoError(t, err, "%s: %s", e.ID, e.File)
	}
}

// TestCatalogueFragments: entries in catalogue.d/*.yaml follow the main
// file's, by file name, take the fragment's packages, and share its id space.
func TestCatalogueFragments(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		path := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	}
	entry := func(id string) string {
		return "  - id: " + id + "\n    breaks: x\n    file: calc/calc.go\n    find: a\n    replace: b\n"
	}
	write("catalogue.yaml", "packages: [./calc]\n"+validCanary+"mutations:\n"+entry("M1"))
	write("catalogue.d/b.yaml", "mutations:\n"+entry("M3"))
	write("catalogue.d/a.yaml", "packages: [./other]\nmutations:\n"+entry("M2"))
	cat, err := loadCatalogue(filepath.Join(dir, "catalogue.yaml"))
	require.NoError(t, err)
	var got []string
	for _, e := range cat.Mutations {
		got = append(got, e.ID+"="+strings.Join(e.Packages, ","))
	}
	assert.Equal(t, []string{"M1=./calc", "M2=./other", "M3=./calc"}, got)

	write("catalogue.d/c.yaml", "mutations:\n"+entry("M1"))
	_, err = loadCatalogue(filepath.Join(dir, "catalogue.yaml"))
	assert.ErrorContains(t, err, `id "M1" already used`, "duplicate id across files")
	write("catalogue.d/c.yaml", validCanary)
	_, err = loadCatalogue(filepath.Join(dir, "catalogue.yaml"))
	assert.ErrorContains(t, err, "cannot hold the canary")
}
