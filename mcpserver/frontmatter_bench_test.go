package mcpserver

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/helios-agents/helios/frontmatter"
	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/kernel/skills/skillfs"
)

// BenchmarkSkillFrontmatter: the frontmatter of one skills/list entry, read
// as discovery reads it (the head, within skills.maxFrontmatter), beside
// the baseline of reading the whole SKILL.md first, for a typical skill
// (a 6 KB body) and a long one (a 2 MB body).
func BenchmarkSkillFrontmatter(b *testing.B) {
	for _, size := range []struct {
		name string
		body int
	}{{"body=6KB", 6 << 10}, {"body=2MB", 2 << 20}} {
		dir := b.TempDir()
		file := filepath.Join(dir, "SKILL.md")
		fm := "---\nname: pdf\ndescription: Fill PDF forms, extract text and merge files.\nlicense: MIT\nmetadata:\n  owner: docs\n  tags: [pdf, forms]\n---\n"
		if err := os.WriteFile(file, []byte(fm+strings.Repeat("Step: run the script, then check the output.\n", size.body/46)), 0o644); err != nil {
			b.Fatal(err)
		}
		sk := skills.Skill{Name: "pdf", Description: "Fill PDF forms.", File: file, BaseDir: dir}
		ctx := context.Background()
		b.Run(size.name+"/baseline=whole-file", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				data, err := readSkillFile(ctx, sk, SkillFile)
				if err != nil {
					b.Fatal(err)
				}
				doc, err := frontmatter.Parse(file, data)
				if err != nil {
					b.Fatal(err)
				}
				x := expander{limit: skillfs.DefaultMaxFrontmatter, left: skillfs.DefaultMaxFrontmatter}
				for _, k := range doc.Keys {
					if _, err := x.value(doc.Fields[k], 0, false); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
		b.Run(size.name+"/head", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := skillFrontmatter(ctx, sk, skillfs.Limits{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
