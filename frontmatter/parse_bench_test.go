package frontmatter

import (
	"fmt"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/helios-agents/helios/internal/skillsfloor"
)

// BenchmarkParse parses the frontmatter of 1,000 SKILL.md files of each
// corpus shape (internal/skillsfloor.Corpora: synthetic and real) as
// discovery does: each file's head up to the end of its frontmatter
// (HeadLen), through one reused Parser.
//
//	go test -run '^$' -bench BenchmarkParse -benchmem ./frontmatter/
func BenchmarkParse(b *testing.B) {
	for _, c := range benchCorpora() {
		files, heads := c.files, c.heads
		b.Run(fmt.Sprintf("%s/parser", c.Corpus.Name), func(b *testing.B) {
			var p Parser
			b.ReportAllocs()
			c0 := processCPU()
			for b.Loop() {
				for i, h := range heads {
					if _, err := p.Parse(files[i].Folder, h); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(processCPU()-c0)/float64(b.N), "cpu-ns/op")
		})
	}
}

type benchCorpus struct {
	skillsfloor.Corpus
	files []skillsfloor.SkillFile
	heads [][]byte // each file up to the end of its frontmatter
}

// benchCorpora draws the corpora once, however often the benchmark's body
// runs.
var benchCorpora = sync.OnceValue(func() []benchCorpus {
	var out []benchCorpus
	for _, corpus := range skillsfloor.Corpora {
		c := benchCorpus{Corpus: corpus, files: corpus.Skills(1000)}
		for _, f := range c.files {
			n, _ := HeadLen(f.Data, true)
			c.heads = append(c.heads, f.Data[:n])
		}
		out = append(out, c)
	}
	return out
})

// processCPU is the CPU time of the process so far, the garbage collector's
// included: the figure that holds on a loaded machine.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
