package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// testIndex is where the baseline found each test: top-level test name →
// import paths of the packages that have it.
type testIndex map[string][]string

// indexTests reads a go test -json stream and records the package of every
// top-level test that started in it.
func indexTests(stream []byte) testIndex {
	idx := testIndex{}
	sc := bufio.NewScanner(bytes.NewReader(stream))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var ev event
		if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.Action != "run" || ev.Test == "" || strings.Contains(ev.Test, "/") {
			continue
		}
		if !slices.Contains(idx[ev.Test], ev.Package) {
			idx[ev.Test] = append(idx[ev.Test], ev.Package)
		}
	}
	return idx
}

// focusPackages narrows e's packages, for a -focus run, to those that hold
// at least one of its expected tests: go test builds and links the test
// binary of every package it is given, even when -run selects nothing in
// it, and for an entry that names ./test/unit/... beside a small package
// that link is most of the mutant's time. The result is import paths. It is
// e.Packages unchanged when the index cannot say: an expected test the
// baseline never ran, a pattern other than ./dir or ./dir/..., or no module
// path.
func focusPackages(e *entry, idx testIndex, module string) []string {
	if module == "" {
		return e.Packages
	}
	var pkgs []string
	for _, name := range e.Expect {
		found := false
		for _, p := range idx[topLevel(name)] {
			in, ok := matchesAny(e.Packages, module, p)
			if !ok {
				return e.Packages
			}
			if in {
				found = true
				if !slices.Contains(pkgs, p) {
					pkgs = append(pkgs, p)
				}
			}
		}
		if !found {
			return e.Packages
		}
	}
	slices.Sort(pkgs)
	return pkgs
}

// matchesAny reports whether the package at import path pkg is matched by
// one of patterns; ok is false for a pattern this does not understand.
func matchesAny(patterns []string, module, pkg string) (in, ok bool) {
	for _, pat := range patterns {
		rel, ok := strings.CutPrefix(pat+"/", "./")
		if !ok {
			return false, false
		}
		rel, wild := strings.CutSuffix(rel, ".../")
		if strings.Contains(rel, "...") || (wild && rel != "" && !strings.HasSuffix(rel, "/")) {
			return false, false // ./x/.../y, ./x...: go's matching, not ours
		}
		base := strings.TrimSuffix(module+"/"+rel, "/")
		switch {
		case pkg == base:
			return true, true
		case wild && strings.HasPrefix(pkg, base+"/"):
			return true, true
		}
	}
	return false, true
}

// modulePath is the module path declared in root's go.mod, or "" when it
// cannot be read.
func modulePath(root string) string {
	data, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return ""
	}
	for line := range strings.Lines(string(data)) {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module")
		if !ok || rest == "" || (rest[0] != ' ' && rest[0] != '\t') {
			continue
		}
		rest, _, _ = strings.Cut(rest, "//")
		rest = strings.TrimSpace(rest)
		if unq, err := strconv.Unquote(rest); err == nil {
			return unq
		}
		return rest
	}
	return ""
}
