package main

import (
	"context"
	"io"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/internal/skillsfloor"
	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/kernel/skills/skillfs"
)

// BenchmarkListJSON writes what `skills list --json` prints for 10,000
// skills of each corpus shape (internal/skillsfloor.Corpora), discovered
// as the command discovers them, with their warnings (about three a skill
// on the real shape, as published skills bring): SHAPE/by-hand is
// writeListJSON, SHAPE/encoding-json the baseline it is held to byte for
// byte, writeJSON.
//
//	go test -run '^$' -bench BenchmarkListJSON -benchmem ./cmd/helios/
func BenchmarkListJSON(b *testing.B) {
	for _, corpus := range skillsfloor.Corpora {
		root := b.TempDir()
		require.NoError(b, corpus.Generate(root, 10_000))
		src := &skillfs.DirSource{FS: skillfs.OSFS{}, Source: skills.SourceUser, Roots: []string{root}}
		set, err := src.Skills(context.Background())
		require.NoError(b, err)
		l := listJSON{Complete: true, Skills: []skillJSON{}, Warnings: set.Warnings}
		for _, s := range set.Skills {
			l.Skills = append(l.Skills, toSkillJSON(s))
		}
		for name, write := range map[string]func(io.Writer, listJSON) error{
			"by-hand":       writeListJSON,
			"encoding-json": func(w io.Writer, l listJSON) error { return writeJSON(w, l) },
		} {
			b.Run(corpus.Name+"/"+name, func(b *testing.B) {
				b.ReportAllocs()
				b.ReportMetric(float64(len(l.Warnings)), "warnings")
				for b.Loop() {
					require.NoError(b, write(io.Discard, l))
				}
			})
		}
	}
}
