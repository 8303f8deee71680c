//go:build unix

package skills_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/helios-agents/helios/kernel/skills"
)

// cpuTime is the process's user and system CPU time: on a shared machine
// it measures the work better than the wall clock.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// searchCorpus makes n skills whose descriptions draw from a vocabulary of
// 5,000 words with Zipf frequencies (as words in published descriptions
// are), 12 to 60 words each, through a registry, so the catalog memoizes
// its index as a served one does.
func searchCorpus(b *testing.B, n int) skills.Catalog {
	r := rand.New(rand.NewPCG(26, uint64(n)))
	vocab := make([]string, 5000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%dx", i)
	}
	vocab[0], vocab[1], vocab[2], vocab[40], vocab[900] = "the", "and", "files", "pdf", "kubernetes"
	zipf := rand.NewZipf(r, 1.1, 2, uint64(len(vocab)-1))
	ss := make([]skills.Skill, n)
	for i := range ss {
		words := make([]string, 12+r.IntN(49))
		for j := range words {
			words[j] = vocab[zipf.Uint64()]
		}
		ss[i] = skills.Skill{Name: fmt.Sprintf("skill-%05d-%s", i, vocab[zipf.Uint64()]), Source: skills.SourceUser, Description: strings.Join(words, " ")}
	}
	reg := skills.NewRegistry(skills.RegistryConfig{})
	reg.Register(skills.SourceUser, setProvider(ss))
	return reg.Snapshot(context.Background())
}

// BenchmarkSkillSearch ranks every skill for a three-word query (a common
// word, a mid-frequency one, a rare one) at 1,000 and 10,000 skills; the
// goal is a query ≤ 1 ms at 10,000. "index" is the first search of a new
// catalog (it builds the index); "baseline-scan" is the floor of looking at
// every description once (a substring test per skill, no ranking).
// cpu-ms/op is the CPU time per operation: on a shared machine it measures
// the work better than the wall clock.
func BenchmarkSkillSearch(b *testing.B) {
	const query = "fill the pdf kubernetes files"
	for _, n := range []int{1_000, 10_000} {
		cat := searchCorpus(b, n)
		b.Run(fmt.Sprintf("%dk/query", n/1000), func(b *testing.B) {
			b.ReportAllocs()
			start := cpuTime()
			defer func() { b.ReportMetric(float64(cpuTime()-start)/float64(b.N)/1e6, "cpu-ms/op") }()
			if _, err := cat.Search(query, 0); err != nil { // the index, built once per catalog
				b.Fatal(err)
			}
			for b.Loop() {
				hits, err := cat.Search(query, 0)
				if err != nil || len(hits) != skills.DefaultSearchLimit {
					b.Fatalf("%d hits, %v", len(hits), err)
				}
			}
		})
		b.Run(fmt.Sprintf("%dk/index", n/1000), func(b *testing.B) {
			b.ReportAllocs()
			start := cpuTime()
			defer func() { b.ReportMetric(float64(cpuTime()-start)/float64(b.N)/1e6, "cpu-ms/op") }()
			for b.Loop() {
				fresh := skills.Catalog{Skills: cat.Skills} // no memo: every search builds the index
				if _, err := fresh.Search(query, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("%dk/baseline-scan", n/1000), func(b *testing.B) {
			b.ReportAllocs()
			start := cpuTime()
			defer func() { b.ReportMetric(float64(cpuTime()-start)/float64(b.N)/1e6, "cpu-ms/op") }()
			for b.Loop() {
				found := 0
				for _, s := range cat.Skills {
					if strings.Contains(s.Description, "kubernetes") {
						found++
					}
				}
				if found == 0 {
					b.Fatal("no match")
				}
			}
		})
	}
}

// setProvider provides a fixed list of skills.
type setProvider []skills.Skill

func (p setProvider) Skills(context.Context) (skills.Set, error) { return skills.Set{Skills: p}, nil }
