package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMutate(t *testing.T) {
	const src = "a\nfind me\nb\nfind me\nonce\n"
	for _, tc := range []struct {
		name, src, find, replace string
		want                     string
		wantStale                string
	}{
		{name: "once", src: src, find: "once", replace: "twice", want: "a\nfind me\nb\nfind me\ntwice\n"},
		{name: "absent", src: src, find: "nowhere", replace: "x", wantStale: "find text matches 0 times, want 1"},
		{name: "twice", src: src, find: "find me", replace: "x", wantStale: "find text matches 2 times (lines 2, 4), want 1"},
		{name: "overlapping", src: "x\naaa\n", find: "aa", replace: "b", wantStale: "find text matches 2 times (lines 2, 2), want 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := mutate(tc.src, tc.find, tc.replace)
			if tc.wantStale != "" {
				se, ok := errors.AsType[*staleError](err)
				if !ok || se.reason != tc.wantStale {
					t.Fatalf("mutate error = %v, want stale %q", err, tc.wantStale)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("mutate (-want +got):\n%s", diff)
			}
		})
	}
}

// TestWriteMutantLeavesTreeAlone: the mutant and overlay go to the temp dir;
// the working tree is only read.
func TestWriteMutantLeavesTreeAlone(t *testing.T) {
	root, tmp := t.TempDir(), t.TempDir()
	orig := filepath.Join(root, "pkg", "f.go")
	if err := os.MkdirAll(filepath.Dir(orig), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(orig, []byte("package pkg\n\nconst X = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, root)

	m, err := writeMutant(root, tmp, &entry{ID: "M1", File: "pkg/f.go", Find: "X = 1", Replace: "X = 2"})
	if err != nil {
		t.Fatal(err)
	}

	if diff := cmp.Diff(before, snapshot(t, root)); diff != "" {
		t.Errorf("working tree changed (-before +after):\n%s", diff)
	}
	if got := readFile(t, m.path); got != "package pkg\n\nconst X = 2\n" {
		t.Errorf("mutant = %q", got)
	}
	var overlay struct{ Replace map[string]string }
	if err := json.Unmarshal([]byte(readFile(t, m.overlay)), &overlay); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{orig: filepath.Join(tmp, "f.go")}, overlay.Replace); diff != "" {
		t.Errorf("overlay (-want +got):\n%s", diff)
	}
}

func TestWriteMutantMissingFileIsStale(t *testing.T) {
	_, err := writeMutant(t.TempDir(), t.TempDir(), &entry{ID: "M1", File: "gone.go", Find: "x", Replace: "y"})
	if se, ok := errors.AsType[*staleError](err); !ok || se.reason != "gone.go does not exist" {
		t.Errorf("writeMutant error = %v, want stale: gone.go does not exist", err)
	}
}

func TestPathRewriter(t *testing.T) {
	m := mutant{path: "/tmp/helios-mutate-1/M5/calc.go"}
	rw := m.pathRewriter("/work/main", "calc/calc.go")
	for in, want := range map[string]string{
		"/tmp/helios-mutate-1/M5/calc.go:9:13: undefined: c":      "calc/calc.go:9:13: undefined: c",
		"../../tmp/helios-mutate-1/M5/calc.go:9:13: undefined: c": "calc/calc.go:9:13: undefined: c",
		"other.go:1:1: x": "other.go:1:1: x",
	} {
		if got := rw.Replace(in); got != want {
			t.Errorf("Replace(%q) = %q, want %q", in, got, want)
		}
	}
}

// snapshot maps every file under dir to its contents.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		files[filepath.ToSlash(rel)] = readFile(t, path)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
