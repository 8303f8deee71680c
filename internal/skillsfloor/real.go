package skillsfloor

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
)

//go:embed shape.json
var shapeJSON []byte

// RealShape returns the shape measured from published skill repositories
// (shape.json, written by cmd/skillshape).
func RealShape() Shape {
	var sh Shape
	if err := json.Unmarshal(shapeJSON, &sh); err != nil {
		panic(fmt.Sprintf("skillsfloor: shape.json: %v", err)) // embedded: a build defect
	}
	return sh
}

// GenerateReal writes n bundles under root, each a SKILL.md drawn from
// RealShape by RealSkills(n, seed), in its own folder, with a scripts/
// folder of one script as Generate writes.
func GenerateReal(root string, n int, seed uint64) error {
	return write(root, RealSkills(n, seed))
}

// RealSkills draws n real-shaped SKILL.md files from RealShape, the same
// for the same n and seed. Each loads (its name is unique, its description
// a non-empty string), with the warnings real files cause: names with
// capitals or spaces, names unlike their folder, keys outside the spec, an
// allowed-tools list.
func RealSkills(n int, seed uint64) []SkillFile {
	g := newGen(RealShape(), seed)
	out := make([]SkillFile, n)
	for i := range out {
		out[i] = g.skill(i)
	}
	return out
}

// RealFormExamples returns frontmatter texts (the YAML between the
// delimiters, LF lines) in which each value form the generator emits stands
// as a top-level value, as an entry of a nested mapping and, for scalars, as
// an item of a block and a flow sequence: seeds for a differential test.
func RealFormExamples(seed uint64) []string {
	g := newGen(RealShape(), seed)
	var out []string
	for _, form := range genForms {
		for _, ind := range []int{2, 4} {
			g.step = ind
			var b strings.Builder
			b.WriteString("name: example\n")
			g.value(&b, "description", form, 0, g.sh.Keys[0])
			b.WriteString("metadata:\n")
			b.WriteString(strings.Repeat(" ", ind) + "k: ")
			g.value(&b, "", form, ind, KeyShape{})
			out = append(out, b.String())
			if scalarForm(form) && form != FormNull {
				b.Reset()
				b.WriteString("tags:\n")
				for range 2 {
					b.WriteString(strings.Repeat(" ", ind) + "- ")
					g.value(&b, "", form, ind, KeyShape{})
				}
				b.WriteString("allowed-tools: [")
				b.WriteString(g.flowScalar(form))
				b.WriteString(", ")
				b.WriteString(g.flowScalar(form))
				b.WriteString("]\n")
				out = append(out, b.String())
			}
		}
	}
	return out
}

// Corpus is one shape of skills for a benchmark: Skills draws n of them,
// Generate writes them as a skills root.
type Corpus struct {
	Name     string
	Skills   func(n int) []SkillFile
	Generate func(root string, n int) error
}

// Corpora are the benchmarks' two shapes, reported side by side: synthetic
// (every skill alike, plain one-line values) and real (drawn with seed 1
// from the measured shape of published skills).
var Corpora = []Corpus{
	{Name: "synthetic", Skills: SyntheticSkills, Generate: Generate},
	{Name: "real", Skills: func(n int) []SkillFile { return RealSkills(n, 1) }, Generate: func(root string, n int) error { return GenerateReal(root, n, 1) }},
}
