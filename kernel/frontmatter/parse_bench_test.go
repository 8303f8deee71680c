package frontmatter

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/helios-agents/helios/internal/skillsfloor"
)

// BenchmarkParse parses the frontmatter of 1,000 SKILL.md files of each
// corpus shape (internal/skillsfloor.Corpora: synthetic and real) as
// discovery does: each file's head up to the end of its frontmatter
// (HeadLen), through one reused Parser. SHAPE/parser is Parse; SHAPE/yaml
// parses the same frontmatter texts with yaml.v3 alone (parseSlow), the path
// the fast path spares; fast-share is the share of files the fast path took.
//
//	go test -run '^$' -bench BenchmarkParse -benchmem ./kernel/frontmatter/
func BenchmarkParse(b *testing.B) {
	for _, c := range benchCorpora() {
		files, heads, texts := c.files, c.heads, c.texts
		corpus := c.Corpus
		b.Run(fmt.Sprintf("%s/parser", corpus.Name), func(b *testing.B) {
			var p Parser
			b.ReportAllocs()
			for b.Loop() {
				for i, h := range heads {
					if _, err := p.Parse(files[i].Folder, h); err != nil {
						b.Fatal(err)
					}
				}
			}
			fast := 0
			for _, t := range texts {
				if _, _, ok := parseFast(t); ok {
					fast++
				}
			}
			b.ReportMetric(float64(fast)/float64(len(texts)), "fast-share")
		})
		b.Run(fmt.Sprintf("%s/yaml", corpus.Name), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, t := range texts {
					if _, _, err := parseSlow("f.md", t, newLineMap(t)); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

type benchCorpus struct {
	skillsfloor.Corpus
	files []skillsfloor.SkillFile
	heads [][]byte // each file up to the end of its frontmatter
	texts []string // the YAML of each
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
			c.texts = append(c.texts, yamlText(f.Data[:n]))
		}
		out = append(out, c)
	}
	return out
})

// yamlText is the YAML between the delimiters of a head, as Parse passes it
// on (LF lines, no BOM).
func yamlText(head []byte) string {
	text := toLF(strings.TrimPrefix(string(head), utf8BOM))
	_, rest, _ := strings.Cut(text, "\n")
	if i := strings.LastIndex(strings.TrimSuffix(rest, "\n"), "\n"); i >= 0 {
		return rest[:i+1]
	}
	return ""
}
