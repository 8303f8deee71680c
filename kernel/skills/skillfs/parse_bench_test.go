package skillfs

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/helios-agents/helios/frontmatter"
	"github.com/helios-agents/helios/internal/skillsfloor"
)

// BenchmarkParseSkill is the CPU discovery spends on each skill outside its
// syscalls: parseSkill on the head of 1,000 SKILL.md files of each corpus
// shape (internal/skillsfloor.Corpora), as readEntry passes them: the first
// read of up to 8 KiB, and where the frontmatter ends in it. Each head is
// copied into one buffer first, as a read leaves it in the cache (the copy
// is a tenth of the time).
//
//	go test -run '^$' -bench BenchmarkParseSkill -benchmem ./kernel/skills/skillfs/
func BenchmarkParseSkill(b *testing.B) {
	for _, corpus := range skillsfloor.Corpora {
		type head struct {
			file, folder string
			data         []byte
			end          int
		}
		var heads []head
		for _, f := range corpus.Skills(1000) {
			data := f.Data[:min(len(f.Data), headChunk)]
			end, _ := frontmatter.HeadLen(data, len(data) == len(f.Data))
			heads = append(heads, head{filepath.Join("/skills", f.Folder, "SKILL.md"), f.Folder, data, end})
		}
		b.Run(corpus.Name, func(b *testing.B) {
			b.ReportAllocs()
			buf := make([]byte, headChunk)
			for b.Loop() {
				for _, h := range heads {
					data := buf[:copy(buf, h.data)]
					if _, _, fs := parseSkill(h.file, h.folder, data, h.end); len(fs) > 0 && fs[0].Severity == Unusable {
						b.Fatal(fmt.Sprint(h.file, ": ", fs[0].Message))
					}
				}
			}
		})
	}
}
