package skillsfloor

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

//go:embed shape.json
var shapeJSON []byte

// RealShape returns the shape measured from published skill repositories
// (shape.json, written by cmd/skillshape).
func RealShape() Shape {
	var sh Shape
	if err := json.Unmarshal(shapeJSON, &sh); err != nil {
		panic(fmt.Sprintf("read embedded shape.json: %v", err)) // embedded: a build defect
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

// genForms are the forms the generator writes (FormOther is written plain,
// and "|+" and ">+" are not seen in published files).
var genForms = []string{
	FormPlain, FormPlainML, FormSQ, FormSQEsc, FormSQML, FormDQ, FormDQEsc, FormDQML,
	FormLit, FormLitStrip, FormFold, FormFoldStrip,
	FormBool, FormInt, FormFloat, FormTimestamp, FormNull,
	FormSeq, FormFlowSeq, FormMap, FormFlowMap,
}

// gen draws skills from a shape.
type gen struct {
	sh   Shape
	r    *rand.Rand
	step int // indentation of this file's nested lines
}

func newGen(sh Shape, seed uint64) *gen {
	return &gen{sh: sh, r: rand.New(rand.NewPCG(seed, 0x5ca1ab1e)), step: 2}
}

// skill draws the i-th skill.
func (g *gen) skill(i int) SkillFile {
	sh := &g.sh
	g.step = 2
	if g.r.Float64() < share(sh.Indent, "4", "2") {
		g.step = 4
	}
	nameLen := max(3, g.quantile(sh.keyShape("name").Len))
	folder := g.slug(nameLen, i)
	var fm strings.Builder
	if g.r.Float64() < sh.Comments {
		fm.WriteString("# " + g.words(4, false) + "\n")
	}
	for _, key := range g.keys() {
		k := sh.keyShape(key)
		if fm.Len() > 0 && g.r.Float64() < sh.BlankLines/float64(max(1, sh.KeysPerFile.Median())) {
			fm.WriteString("\n")
		}
		switch key {
		case "name":
			g.name(&fm, folder, i)
		case "description":
			g.value(&fm, key, g.form(k.Forms, isString), 0, k)
		default:
			g.value(&fm, key, g.form(k.Forms, nil), 0, k)
		}
	}
	if g.r.Float64() < sh.Other.Files {
		for j := range max(1, g.quantile(sh.Other.Count)) {
			key := fmt.Sprintf("x-%s-%d", g.word(false), j)
			g.value(&fm, key, g.form(sh.Other.Forms, nil), 0, sh.Other)
		}
	}
	text := "---\n" + fm.String() + "---\n" + g.body(g.quantile(sh.BodyBytes))
	if g.r.Float64() < sh.CRLF {
		text = strings.ReplaceAll(text, "\n", "\r\n")
	}
	if g.r.Float64() < sh.BOM {
		text = "\ufeff" + text
	}
	return SkillFile{Folder: folder, Data: []byte(text)}
}

// keys draws the keys of a file: a measured key set (as often as published
// files have one of them), or else each key by its own frequency.
// Description is always among them.
func (g *gen) keys() []string {
	sh := &g.sh
	var keys []string
	if u := g.r.Float64(); u < sh.KeySetFiles {
		total := 0
		for _, s := range sh.KeySets {
			total += s.Files
		}
		x := g.r.IntN(max(1, total))
		for _, s := range sh.KeySets {
			if x -= s.Files; x < 0 {
				keys = slices.Clone(s.Keys)
				break
			}
		}
	} else {
		for _, k := range sh.Keys {
			if g.r.Float64() < k.Files {
				keys = append(keys, k.Key)
			}
		}
	}
	if !slices.Contains(keys, "description") {
		keys = append(keys, "description")
	}
	return keys
}

// name writes the name key: the folder's name, or (as often as published
// files do) a Title Case name with spaces, one with capitals, or another
// lowercase name, each made unique by i.
func (g *gen) name(b *strings.Builder, folder string, i int) {
	sh := &g.sh
	k := sh.keyShape("name")
	name := folder
	u := g.r.Float64()
	switch {
	case u < sh.Name.Spaces:
		var words []string
		for _, w := range strings.Split(folder, "-") {
			words = append(words, capitalize(w))
		}
		name = strings.Join(words, " ")
	case u < sh.Name.Capitals:
		name = capitalize(folder)
	case u < sh.Name.Differs:
		name = g.slug(len(folder), i) + "-skill"
	}
	form := g.form(k.Forms, func(f string) bool { return f == FormPlain || f == FormDQ || f == FormSQ })
	switch form {
	case FormDQ:
		name = `"` + name + `"`
	case FormSQ:
		name = "'" + name + "'"
	}
	b.WriteString("name: " + name + "\n")
}

// form draws a form from counts, among those ok accepts (nil: any).
func (g *gen) form(counts map[string]int, ok func(string) bool) string {
	total := 0
	for _, f := range genForms {
		if ok == nil || ok(f) {
			total += counts[f]
		}
	}
	if total == 0 {
		return FormPlain
	}
	x := g.r.IntN(total)
	for _, f := range genForms {
		if ok != nil && !ok(f) {
			continue
		}
		if x -= counts[f]; x < 0 {
			return f
		}
	}
	return FormPlain
}

func isString(f string) bool {
	return scalarForm(f) && f != FormBool && f != FormInt && f != FormFloat && f != FormTimestamp && f != FormNull
}

func scalarForm(f string) bool {
	return f != FormSeq && f != FormFlowSeq && f != FormMap && f != FormFlowMap
}

// value writes key (unless empty: the caller wrote it) and its value in
// form, at indentation ind; k describes the key (lengths, items).
func (g *gen) value(b *strings.Builder, key, form string, ind int, k KeyShape) {
	pad := strings.Repeat(" ", ind)
	if key != "" {
		b.WriteString(pad + key + ":")
	} else {
		// The caller wrote "k: " or "- "; undo the space before a value
		// that opens its own lines.
		s := b.String()
		if strings.HasSuffix(s, ": ") && (form == FormMap || form == FormSeq || form == FormNull) {
			b.Reset()
			b.WriteString(s[:len(s)-1])
		}
	}
	sep := " "
	if key == "" {
		sep = ""
	}
	n := g.quantile(k.Len)
	if q, ok := k.LenByForm[form]; ok {
		n = g.quantile(q)
	}
	if n == 0 {
		n = 8 + g.r.IntN(30)
	}
	uni := g.r.Float64() < k.NonASCII
	inner := pad + strings.Repeat(" ", g.step)
	switch form {
	case FormPlain, FormOther:
		b.WriteString(sep + g.text(n, uni, true) + "\n")
	case FormPlainML:
		b.WriteString(sep + g.wrap(g.text(n, uni, true), inner, true) + "\n")
	case FormSQ:
		b.WriteString(sep + "'" + g.text(n, uni, false) + "'\n")
	case FormSQEsc:
		b.WriteString(sep + "'" + g.insert(g.text(n, uni, false), "it''s") + "'\n")
	case FormSQML:
		b.WriteString(sep + "'" + g.wrap(g.text(n, uni, false), inner, true) + "'\n")
	case FormDQ:
		b.WriteString(sep + `"` + g.text(n, uni, false) + "\"\n")
	case FormDQEsc:
		b.WriteString(sep + `"` + g.insert(g.text(n, uni, false), g.escape()) + "\"\n")
	case FormDQML:
		b.WriteString(sep + `"` + g.wrap(g.text(n, uni, false), inner, true) + "\"\n")
	case FormLit, FormLitStrip, FormFold, FormFoldStrip:
		b.WriteString(sep + map[string]string{FormLit: "|", FormLitStrip: "|-", FormFold: ">", FormFoldStrip: ">-"}[form] + "\n")
		b.WriteString(inner + g.wrap(g.text(n, uni, false), inner, false) + "\n")
	case FormBool:
		b.WriteString(sep + []string{"true", "false"}[g.r.IntN(2)] + "\n")
	case FormInt:
		b.WriteString(sep + fmt.Sprint(g.r.IntN(50000)) + "\n")
	case FormFloat:
		b.WriteString(sep + fmt.Sprintf("%d.%d", g.r.IntN(4), g.r.IntN(10)) + "\n")
	case FormTimestamp:
		b.WriteString(sep + fmt.Sprintf("202%d-%02d-%02d", g.r.IntN(7), 1+g.r.IntN(12), 1+g.r.IntN(28)) + "\n")
	case FormNull:
		b.WriteString("\n")
	case FormFlowSeq:
		items := make([]string, max(1, g.quantile(k.Items)))
		for j := range items {
			items[j] = g.flowScalar(g.form(k.ItemForms, func(f string) bool { return f == FormPlain || f == FormDQ }))
		}
		b.WriteString(sep + "[" + strings.Join(items, ", ") + "]\n")
	case FormFlowMap:
		b.WriteString(sep + g.flowMap(k, 0) + "\n")
	case FormSeq:
		b.WriteString("\n")
		for range max(1, g.quantile(k.Items)) {
			b.WriteString(inner + "- ")
			f := g.form(k.ItemForms, func(f string) bool { return isString(f) && f != FormPlainML })
			g.value(b, "", f, ind+g.step, KeyShape{Len: k.ItemLen})
		}
	case FormMap:
		b.WriteString("\n")
		g.mapping(b, k, ind+g.step, 0)
	}
}

// mapping writes the entries of a block mapping at indentation ind.
func (g *gen) mapping(b *strings.Builder, k KeyShape, ind, depth int) {
	entries := max(1, g.quantile(k.Items))
	if depth > 0 {
		entries = 1 + g.r.IntN(3)
	}
	keys := slices.Clone(nestedKeys)
	g.r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	for j := range min(entries, len(keys)) {
		f := g.form(k.ItemForms, nil)
		if depth > 0 && !scalarForm(f) {
			f = FormPlain
		}
		b.WriteString(strings.Repeat(" ", ind) + keys[j] + ":")
		switch {
		case f == FormMap:
			b.WriteString("\n")
			g.mapping(b, k, ind+g.step, depth+1)
		case f == FormSeq:
			g.value(b, "", f, ind, KeyShape{Items: span(1, 3), ItemForms: map[string]int{FormPlain: 1}})
		default:
			b.WriteString(" ")
			g.value(b, "", f, ind, KeyShape{Len: k.ItemLen, Items: span(1, 4), ItemForms: map[string]int{FormPlain: 3, FormDQ: 1}})
		}
	}
}

// flowMap writes a flow mapping of entries drawn from k.
func (g *gen) flowMap(k KeyShape, depth int) string {
	n := 1 + g.r.IntN(4)
	keys := slices.Clone(nestedKeys)
	g.r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	parts := make([]string, n)
	for j := range parts {
		f := g.form(k.ItemForms, func(f string) bool {
			return f == FormPlain || f == FormDQ || f == FormFlowSeq || f == FormFlowMap || f == FormInt || f == FormBool
		})
		var v string
		switch {
		case f == FormFlowMap && depth < 2:
			v = g.flowMap(k, depth+1)
		case f == FormFlowSeq:
			v = "[" + g.flowScalar(FormDQ) + ", " + g.flowScalar(FormPlain) + "]"
		case f == FormInt:
			v = fmt.Sprint(g.r.IntN(1000))
		case f == FormBool:
			v = "true"
		default:
			v = g.flowScalar(FormDQ)
		}
		key := keys[j]
		if g.r.IntN(2) == 0 {
			key = `"` + key + `"` // JSON written as YAML, as published files often are
		}
		parts[j] = key + ": " + v
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// flowScalar is a short scalar in form for a flow collection.
func (g *gen) flowScalar(form string) string {
	w := g.word(false)
	if g.r.IntN(3) == 0 {
		w = capitalize(w) + "(" + g.word(false) + ")"
	}
	switch form {
	case FormDQ, FormDQEsc, FormDQML:
		return `"` + w + `"`
	case FormSQ, FormSQEsc, FormSQML:
		return "'" + w + "'"
	case FormInt:
		return fmt.Sprint(g.r.IntN(100))
	case FormBool:
		return "false"
	}
	return w
}

// nestedKeys name the entries of generated nested mappings.
var nestedKeys = []string{"author", "version", "category", "tags", "domain", "source", "updated", "homepage",
	"requires", "emoji", "bins", "env", "keywords", "license", "maintainer", "repository", "platforms", "priority"}

// quantile draws from q.
func (g *gen) quantile(q Quantiles) int { return q.draw(g.r.Float64()) }

// keyShape returns the shape of key, or a zero one.
func (sh *Shape) keyShape(key string) KeyShape {
	for _, k := range sh.Keys {
		if k.Key == key {
			return k
		}
	}
	return KeyShape{}
}

// share is counts[a] / (counts[a] + counts[b]).
func share(counts map[string]int, a, b string) float64 {
	if t := counts[a] + counts[b]; t > 0 {
		return float64(counts[a]) / float64(t)
	}
	return 0
}

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
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
