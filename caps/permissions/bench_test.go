package permissions_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/helios-agents/helios/caps/permissions"
)

// benchCommand is a 200-character pipeline with substitutions and
// wrappers, the shape a model sends.
const benchCommand = `git status --short && git diff --stat --no-color HEAD~1 | grep -v vendor | sort -u | head -n 400; ` +
	`echo "$(git log --oneline -n 5)" | timeout 5 xargs -n1 echo > /tmp/out.txt || cat README.md | wc -l -c`

func benchSet(b *testing.B) *permissions.Set {
	var allow, ask, deny []string
	for i := range 40 {
		allow = append(allow, fmt.Sprintf("Bash(tool%d run:*)", i))
	}
	allow = append(allow, "Bash(git status:*)", "Bash(git diff:*)", "Bash(git log *)", "Bash(grep:*)",
		"Bash(sort:*)", "Bash(head:*)", "Bash(echo:*)", "Bash(cat:*)", "Bash(wc:*)")
	ask = append(ask, "Bash(git push:*)")
	deny = append(deny, "Bash(rm:*)", "Bash(curl:*)", "Bash(wget:*)", "Bash(sudo:*)", "Bash(git push --force:*)",
		"Edit(//etc/**)", "Read(./.env)", "mcp__github__delete_repo")
	s, err := permissions.Compile([]permissions.Layer{{Source: "bench", Dirs: tableDirs,
		Config: permissions.Config{Allow: allow, Ask: ask, Deny: deny[:50-len(allow)-len(ask)]}}})
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkDecide decides a 200-character pipeline against 50 rules, the
// shell parse included.
func BenchmarkDecide(b *testing.B) {
	if len(benchCommand) != 200 {
		b.Fatalf("the command is %d characters", len(benchCommand))
	}
	s := benchSet(b)
	c := bash(benchCommand)
	if d := s.Decide(c, nil); d.Behavior != permissions.Allow || d.List != "allow" {
		b.Fatalf("decision %+v", d)
	}
	b.ReportAllocs()
	var took []time.Duration
	for b.Loop() {
		start := time.Now()
		s.Decide(c, nil)
		took = append(took, time.Since(start))
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Nanoseconds()), "p50-ns")
}
