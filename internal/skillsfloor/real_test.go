package skillsfloor

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// Protects: the real-shaped corpus is what shape.json measured, not what the
// generator's author imagined: measured back with the same code, a drawn
// corpus has the measured sizes, keys, forms and names.
func TestRealSkillsFollowTheShape(t *testing.T) {
	want := RealShape()
	require.NotEmpty(t, want.Keys, "shape.json holds no keys")
	got := Measure(RealSkills(2000, 1))
	require.Zero(t, got.Measured.SkippedNoFrontmatter+got.Measured.SkippedYAMLError+got.Measured.SkippedNotMapping, "every drawn file parses")

	near := func(what string, got, want, tol float64) {
		t.Helper()
		assert.InDelta(t, want, got, tol, "%s: drawn %.3f, measured %.3f", what, got, want)
	}
	rel := func(what string, got, want int, tol float64) {
		t.Helper()
		assert.InDelta(t, 1, float64(got)/math.Max(1, float64(want)), tol, "%s: drawn %d, measured %d", what, got, want)
	}
	for _, p := range []float64{25, 50, 75, 90} {
		rel(fmt.Sprintf("frontmatter bytes p%v", p), got.FrontmatterBytes.At(p), want.FrontmatterBytes.At(p), 0.15)
		rel(fmt.Sprintf("body bytes p%v", p), got.BodyBytes.At(p), want.BodyBytes.At(p), 0.15)
	}
	rel("keys per file p50", got.KeysPerFile.Median(), want.KeysPerFile.Median(), 0.25)
	near("names with capitals", got.Name.Capitals, want.Name.Capitals, 0.03)
	near("names with spaces", got.Name.Spaces, want.Name.Spaces, 0.03)
	near("names unlike the folder", got.Name.Differs, want.Name.Differs, 0.03)
	for _, wk := range want.Keys {
		gk := got.keyShape(wk.Key)
		near("files with "+wk.Key, gk.Files, wk.Files, 0.03)
		if wk.Key != "description" {
			continue
		}
		for _, f := range genForms {
			near("descriptions written "+f, share1(gk.Forms, f), share1(wk.Forms, f), 0.03)
		}
		rel("description length p50", gk.Len.Median(), wk.Len.Median(), 0.15)
		near("descriptions with non-ASCII", gk.NonASCII, wk.NonASCII, 0.1)
	}
}

// share1 is counts[f] over the sum of counts.
func share1(counts map[string]int, f string) float64 {
	total := 0
	for _, c := range counts {
		total += c
	}
	if total == 0 {
		return 0
	}
	return float64(counts[f]) / float64(total)
}

// Protects: a benchmark compares like with like across runs and branches:
// the same seed draws the same bytes, another seed other ones.
func TestRealSkillsAreDeterministic(t *testing.T) {
	a, b, c := RealSkills(200, 7), RealSkills(200, 7), RealSkills(200, 8)
	assert.Equal(t, a, b)
	assert.NotEqual(t, a, c)
	folders := map[string]bool{}
	for _, f := range a {
		assert.False(t, folders[f.Folder], "folder %s drawn twice", f.Folder)
		folders[f.Folder] = true
	}
}

// Protects: the differential test's seeds hold every form the generator
// writes, each where it can stand: a top-level value, a nested entry and a
// sequence item.
func TestRealFormExamplesCoverEveryForm(t *testing.T) {
	seen := map[string]bool{}
	for _, text := range RealFormExamples(1) {
		var doc yaml.Node
		require.NoError(t, yaml.Unmarshal([]byte(text), &doc), "%q", text)
		lines := strings.Split(text, "\n")
		top := doc.Content[0]
		for i := 1; i < len(top.Content); i += 2 {
			next := len(lines)
			if i+1 < len(top.Content) {
				next = top.Content[i+1].Line
			}
			v := top.Content[i]
			seen[Form(v, lines, next)] = true
			for j, c := range v.Content {
				after := next
				if j+1 < len(v.Content) {
					after = v.Content[j+1].Line
				}
				if v.Kind == yaml.MappingNode && j%2 == 1 {
					seen["in a map: "+Form(c, lines, after)] = true
				}
				if v.Kind == yaml.SequenceNode {
					seen["in a sequence: "+Form(c, lines, after)] = true
				}
			}
		}
	}
	for _, f := range genForms {
		assert.True(t, seen[f], "no example of %s at the top level", f)
		assert.True(t, seen["in a map: "+f], "no example of %s in a mapping", f)
		if scalarForm(f) && f != FormNull {
			assert.True(t, seen["in a sequence: "+f], "no example of %s in a sequence", f)
		}
	}
}
