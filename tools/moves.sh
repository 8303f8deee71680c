#!/usr/bin/env bash
# moves.sh: issue 35, Build item 1 — adapters and mechanisms leave kernel/.
#
# Run at the root of any checkout of this repository (or anywhere inside it):
#
#   tools/moves.sh
#
# It moves each package folder below with git mv (tests, testdata and kits
# go along), then rewrites every reference to the old paths by pattern, never
# by a list of files: import paths in .go files (then gofmt -w), comments,
# docs/*.md, README.md, the Makefile and .ci/, the mutation catalogue's file:
# and packages: fields, and the tests that name kernel/... paths. It adds the
# layering test of the new top-level packages (test/unit/layering_outside_test.go)
# when it is missing. Running it again on a tree that is already moved, or on
# a newer tree whose new files still sit under the old paths, finishes the
# job and changes nothing else. It commits nothing: review with git status
# and git diff, then run go build ./... && go vet ./... and the tests.
set -euo pipefail

cd "$(git rev-parse --show-toplevel)"
[ -f go.mod ] || { echo "moves.sh: no go.mod at $(pwd)" >&2; exit 1; }
module=$(awk '$1 == "module" { print $2; exit }' go.mod)
[ -n "$module" ] || { echo "moves.sh: go.mod at $(pwd) names no module" >&2; exit 1; }
command -v perl >/dev/null || { echo "moves.sh: perl is needed for the rewrites" >&2; exit 1; }
GOFMT=${GOFMT:-gofmt}
command -v "$GOFMT" >/dev/null || GOFMT=/usr/local/go/bin/gofmt
command -v "$GOFMT" >/dev/null || { echo "moves.sh: gofmt not found (set GOFMT)" >&2; exit 1; }

# old -> new, one package folder a line (its subfolders go along). The
# scripted model server kit serves both wires, so it sits beside the
# providers, not inside one of them.
moves='
kernel/model/openai              provider/openai
kernel/model/anthropic           provider/anthropic
kernel/model/internal/httpcall   provider/internal/httpcall
kernel/model/modeltest           provider/modeltest
kernel/session/postgres          store/postgres
kernel/telemetry/otelsetup       otelsetup
kernel/sandbox                   sandbox
kernel/workfs                    workfs
kernel/watch                     watch
kernel/frontmatter               frontmatter
kernel/runpin                    runpin
'
# The new top-level folders, for package patterns (./kernel/... covered
# them before the move).
tops='provider store otelsetup sandbox workfs watch frontmatter runpin'

say() { printf 'moves.sh: %s\n' "$*"; }

# 1. Move the folders. A folder whose target already exists (a second run on
# a tree where someone added files under the old path) is moved file by file.
while read -r old new; do
	[ -n "$old" ] || continue
	if [ ! -d "$old" ]; then
		continue
	fi
	if [ ! -e "$new" ]; then
		mkdir -p "$(dirname "$new")"
		git mv "$old" "$new"
		say "moved $old -> $new"
	else
		git ls-files -z -- "$old" | while IFS= read -r -d '' f; do
			dst="$new/${f#"$old"/}"
			if [ -e "$dst" ]; then
				echo "moves.sh: $f and $dst both exist: merge them by hand" >&2
				continue
			fi
			mkdir -p "$(dirname "$dst")"
			git mv "$f" "$dst"
			say "moved $f -> $dst"
		done
	fi
	# Untracked files left behind (generated, local): say so, never delete.
	if [ -d "$old" ] && [ -n "$(find "$old" -type f -print -quit)" ]; then
		echo "moves.sh: $old still holds untracked files; move or delete them by hand:" >&2
		find "$old" -type f >&2
	fi
	[ -d "$old" ] && find "$old" -depth -type d -empty -delete
	# Parents the move emptied (kernel/model/internal).
	d=$(dirname "$old")
	while [ "$d" != "." ] && [ -d "$d" ] && [ -z "$(ls -A "$d")" ]; do
		rmdir "$d"
		d=$(dirname "$d")
	done
done <<<"$moves"

# 2. Rewrite every reference to an old path, by pattern, in every tracked
# text file but this script: the import path ("module/kernel/sandbox"), Go
# test patterns (./kernel/sandbox/...), file: fields (kernel/sandbox/x.go)
# and prose (kernel/sandbox's). A path is a whole word: kernel/watch never
# matches inside kernel/watcher or mykernel/watch.
self=tools/moves.sh
perlexpr=''
alt=''
while read -r old new; do
	[ -n "$old" ] || continue
	perlexpr+="s{(?<![A-Za-z0-9_-])\Q$old\E(?![A-Za-z0-9_-])}{$new}g;"
	alt+="${alt:+|}$old"
done <<<"$moves"
mapfile -t files < <(git grep -l -I -E "(^|[^A-Za-z0-9_-])($alt)([^A-Za-z0-9_-]|\$)" -- . ":!$self" || true)
if [ "${#files[@]}" -gt 0 ]; then
	perl -pi -e "$perlexpr" -- "${files[@]}"
	say "rewrote paths in ${#files[@]} files"
fi

# 3. Package patterns that meant "the kernel and everything in it" keep
# covering the packages that left it, so an entry or a target runs the same
# tests as before: ./kernel/... gains the new top-level folders, in the
# catalogue's packages: lists (comma-separated) and in the Makefile and .ci/
# (space-separated).
extra_yaml=''
extra_sh=''
for t in $tops; do
	extra_yaml+=", ./$t/..."
	extra_sh+=" ./$t/..."
done
mapfile -t cats < <(git ls-files -- 'test/mutation/catalogue.yaml' 'test/mutation/catalogue.d/*.yaml')
for f in "${cats[@]}"; do
	[ -f "$f" ] || continue
	EXTRA="$extra_yaml" perl -pi -e 'if (/^\s*packages:/ && !m{\./provider/\.\.\.}) { s{(?<![A-Za-z0-9_/-])\./kernel/\.\.\.(?=[\s,\]])}{./kernel/...$ENV{EXTRA}}g }' -- "$f"
done
mapfile -t shells < <(git ls-files -- Makefile '.ci/*')
for f in "${shells[@]}"; do
	[ -f "$f" ] || continue
	EXTRA="$extra_sh" perl -pi -e 'if (!m{\./provider/\.\.\.}) { s{(?<![A-Za-z0-9_/-])\./kernel/\.\.\.(?=\s|$)}{./kernel/...$ENV{EXTRA}}g }' -- "$f"
done

# 4. Tests that walk the kernel's folder for model text (.md, .md.tmpl
# outside testdata) also walk the new folders that hold some.
texttops=''
for t in $tops; do
	if [ -d "$t" ] && [ -n "$(find "$t" -path '*/testdata' -prune -o \( -name '*.md' -o -name '*.md.tmpl' \) -type f -print -quit)" ]; then
		texttops+=" $t"
	fi
done
mapfile -t walkers < <(git grep -l -F '"../../kernel", ' -- 'test/*.go' || true)
for f in "${walkers[@]}"; do
	for t in $texttops; do
		T="$t" perl -pi -e 'if (/\{[^}]*"\.\.\/\.\.\/kernel", / && !/"\.\.\/\.\.\/$ENV{T}"/) { s{"\.\./\.\./kernel", }{"../../kernel", "../../$ENV{T}", } }' -- "$f"
	done
done

# 5. The plugin SDK's never-arrows named kernel/model/... and
# kernel/session/... as whole trees: the providers and the store left them.
fd=test/unit/frontdoors_layering_test.go
if [ -f "$fd" ]; then
	for pair in 'kernel/model:provider' 'kernel/session:store'; do
		anchor=${pair%%:*} add=${pair##*:}
		if grep -q "{\"$add\", false}," "$fd"; then
			continue
		fi
		if grep -q "^[[:space:]]*{\"$anchor\", false}," "$fd"; then
			A="$anchor" N="$add" perl -pi -e 'if (/^(\s*)\{"\Q$ENV{A}\E", false\},$/) { $_ .= $1 . "{\"$ENV{N}\", false},\n" }' -- "$fd"
		else
			echo "moves.sh: $fd: no {\"$anchor\", false} line; add {\"$add\", false} to the SDK's forbidden list by hand" >&2
		fi
	done
fi

# 6. The never-arrows of the packages that left kernel/ (DESIGN.md "Layout").
lo=test/unit/layering_outside_test.go
if [ -d test/unit ] && [ ! -e "$lo" ]; then
	cat >"$lo" <<'EOF'
package unit_test

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The adapters and mechanisms outside kernel/ (DESIGN.md "Layout"). The
// kernel imports its ports, never an adapter: the model providers, the
// PostgreSQL store and the telemetry setup are wired to their ports by the
// assembly. The kernel may use a mechanism (the builtin tools run through
// sandbox and workfs, skillfs reads through frontmatter and watch), so a
// mechanism never depends on the kernel's root package. Every one of them
// keeps the kernel's own never-arrows (forbidden, from "kernel").
var outsideKernel = []struct {
	dir     string
	adapter bool
}{
	{"provider", true},
	{"store", true},
	{"otelsetup", true},
	{"sandbox", false},
	{"workfs", false},
	{"watch", false},
	{"frontmatter", false},
	{"runpin", false},
}

func TestLayeringOutsideKernel(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-json=ImportPath,Deps", module+"/...").Output()
	require.NoError(t, err, "go list")
	dec := json.NewDecoder(strings.NewReader(string(out)))
	seen := map[string]bool{}
	for dec.More() {
		var p struct {
			ImportPath string
			Deps       []string
		}
		require.NoError(t, dec.Decode(&p))
		for _, o := range outsideKernel {
			if under(p.ImportPath, "kernel") && o.adapter {
				for _, d := range p.Deps {
					assert.False(t, under(d, o.dir), "%s imports %s: the kernel never depends on an adapter (%s/...)", p.ImportPath, d, o.dir)
				}
			}
			if !under(p.ImportPath, o.dir) {
				continue
			}
			seen[o.dir] = true
			for _, f := range forbidden {
				if f.from != "kernel" {
					continue
				}
				for _, d := range p.Deps {
					assert.False(t, under(d, f.to), "%s imports %s: %s/... must never depend on %s/...", p.ImportPath, d, o.dir, f.to)
				}
			}
			if !o.adapter {
				assert.NotContains(t, p.Deps, module+"/kernel", "%s is a mechanism the kernel uses: it never depends on the kernel's root package", p.ImportPath)
			}
		}
	}
	for _, o := range outsideKernel {
		assert.True(t, seen[o.dir], "no package under %s/ was checked; the test would pass vacuously", o.dir)
	}
}
EOF
	say "added $lo"
fi

# 7. gofmt the Go files the rewrite touched (import blocks re-sort).
mapfile -t gofiles < <(printf '%s\n' "${files[@]}" | grep '\.go$' || true)
[ -f "$lo" ] && gofiles+=("$lo")
if [ "${#gofiles[@]}" -gt 0 ]; then
	"$GOFMT" -w -- "${gofiles[@]}"
fi

# 8. What is left names an old path: say so (this script is the only
# expected holder).
left=$(git grep -n -I -E "(^|[^A-Za-z0-9_-])($alt)([^A-Za-z0-9_-]|\$)" -- . ":!$self" || true)
if [ -n "$left" ]; then
	echo "moves.sh: these lines still name an old path:" >&2
	echo "$left" >&2
	exit 1
fi
say "done; now: go build ./... && go vet ./... and the moved packages' tests"
