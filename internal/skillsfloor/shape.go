package skillsfloor

import (
	"cmp"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Shape is the measured make-up of published SKILL.md files: sizes, which
// keys they carry, in which YAML form each value is written, how long the
// values are. It holds counts and quantiles only, never text. shape.json is
// one, written by cmd/skillshape; GenerateReal draws skills from it.
type Shape struct {
	Measured Measured `json:"measured"`
	// FrontmatterBytes is the size of the YAML text between the delimiters.
	FrontmatterBytes Quantiles `json:"frontmatterBytes"`
	// BodyBytes is the size of the text after the closing delimiter.
	BodyBytes Quantiles `json:"bodyBytes"`
	// KeysPerFile counts the top-level keys.
	KeysPerFile Quantiles `json:"keysPerFile"`
	// CRLF, BOM, Comments and BlankLines are the fractions of files with
	// CRLF line ends, a UTF-8 byte order mark, a comment line in the
	// frontmatter, a blank line in the frontmatter.
	CRLF       float64 `json:"crlf"`
	BOM        float64 `json:"bom"`
	Comments   float64 `json:"comments"`
	BlankLines float64 `json:"blankLines"`
	// Name is what the name key holds.
	Name NameShape `json:"name"`
	// Keys are the keys found in at least 1% of the files, in the order
	// they tend to appear in (by mean relative position).
	Keys []KeyShape `json:"keys"`
	// KeySets are the sets of those keys files have together, in file
	// order, each seen in at least two files, most frequent first: keys
	// come in families (one publisher's files carry the same ones), which
	// drawing each key on its own would lose. KeySetFiles is the fraction of
	// files whose set is among them; GenerateReal draws the others key by
	// key.
	KeySets     []KeySet `json:"keySets"`
	KeySetFiles float64  `json:"keySetFiles"`
	// Other pools the rarer keys: Files is the fraction of files with at
	// least one, Count how many such a file has.
	Other KeyShape `json:"other"`
	// Escapes counts the escape sequences of double-quoted values by kind
	// (`\"`, `\n`, `\\`, `\u`, ... and "other").
	Escapes map[string]int `json:"escapes"`
	// LineWidth is the width of the lines of values written over several
	// lines (block scalars, multi-line plain or quoted values).
	LineWidth Quantiles `json:"lineWidth"`
	// Indent counts the indentation of nested lines ("2", "4", ...).
	Indent map[string]int `json:"indent"`
}

// Measured says what was measured.
type Measured struct {
	// Repositories are the sources, each "owner/name@commit" as given.
	Repositories []string `json:"repositories"`
	// PerRepository is the sample cap of each repository (0: no cap).
	PerRepository int `json:"perRepository"`
	// Files are the distinct SKILL.md files measured (a copy of a file
	// already seen counts once).
	Files int `json:"files"`
	// NoFrontmatter, YAMLErrors and NotMapping are files of the sample left
	// out of the distributions: no frontmatter between "---" lines, YAML
	// that yaml.v3 refuses, a frontmatter that is not a mapping.
	NoFrontmatter int `json:"noFrontmatter"`
	YAMLErrors    int `json:"yamlErrors"`
	NotMapping    int `json:"notMapping"`
}

// KeySet is a set of keys seen together and how many files have it.
type KeySet struct {
	Keys  []string `json:"keys"`
	Files int      `json:"files"`
}

// NameShape is what the name key holds.
type NameShape struct {
	// Capitals, Spaces and Differs are the fractions of names with an upper
	// case letter, with a space, and unequal to their folder's name.
	Capitals float64 `json:"capitals"`
	Spaces   float64 `json:"spaces"`
	Differs  float64 `json:"differs"`
}

// KeyShape is one key: how often it appears and how its value is written.
type KeyShape struct {
	Key string `json:"key"`
	// Files is the fraction of files that have the key.
	Files float64 `json:"files"`
	// Position is the key's mean position in its file, from 0 (first) to 1
	// (last).
	Position float64 `json:"position"`
	// Forms counts the value's forms (see the Form constants).
	Forms map[string]int `json:"forms"`
	// Len is the length in characters of the scalar values; LenByForm the
	// same by form, for forms seen at least minByForm times.
	Len       Quantiles            `json:"len,omitempty"`
	LenByForm map[string]Quantiles `json:"lenByForm,omitempty"`
	// NonASCII is the fraction of the scalar values with a character
	// outside ASCII.
	NonASCII float64 `json:"nonASCII"`
	// Items is the number of entries of the collection values, ItemForms
	// the forms of those entries' values.
	Items     Quantiles      `json:"items,omitempty"`
	ItemForms map[string]int `json:"itemForms,omitempty"`
	// ItemLen is the length in characters of the entries that are scalars.
	ItemLen Quantiles `json:"itemLen,omitempty"`
	// Count (Other only) is how many rare keys a file that has one has.
	Count Quantiles `json:"count,omitempty"`
}

// The forms of a value. A scalar string is plain, single-quoted (sq) or
// double-quoted (dq), on one line or several (-ml), with escapes (-esc: ”
// in sq, a backslash in dq); or a block scalar, literal (lit) or folded
// (fold), with its chomping indicator (lit- is "|-"). A plain scalar that is
// not a string is named by its type. Collections are block or flow.
const (
	FormPlain     = "plain"
	FormPlainML   = "plain-ml"
	FormSQ        = "sq"
	FormSQEsc     = "sq-esc"
	FormSQML      = "sq-ml"
	FormDQ        = "dq"
	FormDQEsc     = "dq-esc"
	FormDQML      = "dq-ml"
	FormLit       = "lit"
	FormLitStrip  = "lit-"
	FormLitKeep   = "lit+"
	FormFold      = "fold"
	FormFoldStrip = "fold-"
	FormFoldKeep  = "fold+"
	FormBool      = "bool"
	FormInt       = "int"
	FormFloat     = "float"
	FormTimestamp = "timestamp"
	FormNull      = "null"
	FormSeq       = "seq"
	FormFlowSeq   = "flowseq"
	FormMap       = "map"
	FormFlowMap   = "flowmap"
	FormOther     = "other" // an alias, an anchor, a tag: drawn as plain
)

// Quantiles are a distribution's values at the percentiles QuantileAt.
type Quantiles []int

// QuantileAt are the percentiles of a Quantiles, in order.
var QuantileAt = []float64{0, 5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55, 60, 65, 70, 75, 80, 85, 90, 95, 99, 100}

// quantiles of xs (sorted in place).
func quantiles(xs []int) Quantiles {
	if len(xs) == 0 {
		return nil
	}
	slices.Sort(xs)
	q := make(Quantiles, len(QuantileAt))
	for i, p := range QuantileAt {
		q[i] = xs[int(math.Round(p/100*float64(len(xs)-1)))]
	}
	return q
}

// Median is the 50th percentile.
func (q Quantiles) Median() int { return q.At(50) }

// At returns the value at percentile p (one of QuantileAt).
func (q Quantiles) At(p float64) int {
	if i := slices.Index(QuantileAt, p); i >= 0 && i < len(q) {
		return q[i]
	}
	return 0
}

// draw maps u in [0, 1) to a value of the distribution, linear between the
// percentiles.
func (q Quantiles) draw(u float64) int {
	if len(q) == 0 {
		return 0
	}
	p := u * 100
	for i := 1; i < len(QuantileAt); i++ {
		if p <= QuantileAt[i] {
			lo, hi := QuantileAt[i-1], QuantileAt[i]
			f := (p - lo) / (hi - lo)
			return q[i-1] + int(math.Round(f*float64(q[i]-q[i-1])))
		}
	}
	return q[len(q)-1]
}

// minByForm is how often a form must be seen for its own length quantiles.
const minByForm = 10

// minKeyShare is the share of files a key needs to be described on its own
// rather than pooled in Shape.Other.
const minKeyShare = 0.01

// SkillFile is one SKILL.md to measure: its folder's name and its bytes.
type SkillFile struct {
	Folder string
	Data   []byte
}

// CollectSkillFiles returns the SKILL.md files found at any depth under each
// root, a copy of a file already found counting once. When perRoot > 0, at
// most perRoot of each root are kept, chosen by the SHA-256 of their content
// (an order unrelated to where they sit, and the same on every run).
func CollectSkillFiles(roots []string, perRoot int) ([]SkillFile, error) {
	seen := map[[32]byte]bool{}
	var out []SkillFile
	for _, root := range roots {
		type found struct {
			sum [32]byte
			f   SkillFile
		}
		var files []found
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == ".git" {
				return filepath.SkipDir
			}
			if d.IsDir() || d.Name() != "SKILL.md" || !d.Type().IsRegular() {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(data)
			if seen[sum] {
				return nil
			}
			seen[sum] = true
			files = append(files, found{sum, SkillFile{Folder: filepath.Base(filepath.Dir(p)), Data: data}})
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("collect %s: %w", root, err)
		}
		slices.SortFunc(files, func(a, b found) int { return cmp.Compare(string(a.sum[:]), string(b.sum[:])) })
		if perRoot > 0 && len(files) > perRoot {
			files = files[:perRoot]
		}
		for _, f := range files {
			out = append(out, f.f)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("collect: no SKILL.md found")
	}
	return out, nil
}

// keyAcc accumulates one key's measures.
type keyAcc struct {
	files, nonASCII, scalars int
	pos                      float64
	forms, itemForms         map[string]int
	lens, items, count       []int
	itemLens                 []int
	lenByForm                map[string][]int
}

func newKeyAcc() *keyAcc {
	return &keyAcc{forms: map[string]int{}, itemForms: map[string]int{}, lenByForm: map[string][]int{}}
}

// Measure measures files.
func Measure(files []SkillFile) Shape {
	var sh Shape
	sh.Measured.Files = len(files)
	sh.Escapes, sh.Indent = map[string]int{}, map[string]int{}
	var fmBytes, bodyBytes, keysPer, widths []int
	var crlf, bom, comments, blanks, names, capitals, spaces, differs int
	accs := map[string]*keyAcc{}
	measured := 0
	for _, f := range files {
		text := string(f.Data)
		if strings.HasPrefix(text, "\ufeff") {
			bom++
			text = text[len("\ufeff"):]
		}
		if strings.Contains(text, "\r\n") {
			crlf++
			text = strings.ReplaceAll(text, "\r\n", "\n")
		}
		fm, body, ok := splitFrontmatter(text)
		if !ok {
			sh.Measured.NoFrontmatter++
			continue
		}
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(fm), &doc); err != nil || len(doc.Content) == 0 {
			sh.Measured.YAMLErrors++
			continue
		}
		top := doc.Content[0]
		if top.Kind != yaml.MappingNode {
			sh.Measured.NotMapping++
			continue
		}
		measured++
		fmBytes, bodyBytes = append(fmBytes, len(fm)), append(bodyBytes, len(body))
		lines := strings.Split(fm, "\n")
		hasComment, hasBlank := false, false
		for _, l := range lines[:len(lines)-1] {
			t := strings.TrimLeft(l, " \t")
			hasComment = hasComment || strings.HasPrefix(t, "#")
			hasBlank = hasBlank || t == ""
			if ind := len(l) - len(strings.TrimLeft(l, " ")); ind > 0 && t != "" {
				sh.Indent[fmt.Sprint(ind)]++
			}
		}
		comments += b2i(hasComment)
		blanks += b2i(hasBlank)
		n := len(top.Content) / 2
		keysPer = append(keysPer, n)
		for i := 0; i+1 < len(top.Content); i += 2 {
			k, v := top.Content[i].Value, top.Content[i+1]
			a := accs[k]
			if a == nil {
				a = newKeyAcc()
				accs[k] = a
			}
			a.files++
			if n > 1 {
				a.pos += float64(i/2) / float64(n-1)
			}
			next := len(lines) // the line after the value: the next key's, or the end
			if i+2 < len(top.Content) {
				next = top.Content[i+2].Line
			}
			measureValue(a, v, lines, next, &widths, sh.Escapes)
			if k == "name" && v.Kind == yaml.ScalarNode {
				names++
				capitals += b2i(strings.ToLower(v.Value) != v.Value)
				spaces += b2i(strings.Contains(v.Value, " "))
				differs += b2i(v.Value != f.Folder)
			}
		}
	}
	// Keys in at least minKeyShare of the files stand alone; the rest are
	// pooled into Other, file by file.
	common := map[string]bool{}
	pooled := newKeyAcc()
	for k, a := range accs {
		if float64(a.files) >= minKeyShare*float64(measured) {
			common[k] = true
			sh.Keys = append(sh.Keys, a.shape(k, measured))
			continue
		}
		pooled.files += a.files
		pooled.nonASCII += a.nonASCII
		pooled.scalars += a.scalars
		for f, c := range a.forms {
			pooled.forms[f] += c
		}
		for f, c := range a.itemForms {
			pooled.itemForms[f] += c
		}
		pooled.lens = append(pooled.lens, a.lens...)
		pooled.items = append(pooled.items, a.items...)
		pooled.itemLens = append(pooled.itemLens, a.itemLens...)
	}
	slices.SortFunc(sh.Keys, func(a, b KeyShape) int {
		return cmp.Or(cmp.Compare(a.Position, b.Position), cmp.Compare(a.Key, b.Key))
	})
	// Per file: how many rare keys, and which set of common ones.
	withRare, inSets := 0, 0
	sets := map[string]int{}
	for _, f := range files {
		keys, ok := topKeys(f.Data)
		if !ok {
			continue
		}
		var set []string
		rare := 0
		for _, k := range keys {
			if common[k] {
				set = append(set, k)
			} else {
				rare++
			}
		}
		sets[strings.Join(set, "\n")]++
		if rare > 0 {
			withRare++
			pooled.count = append(pooled.count, rare)
		}
	}
	for _, set := range slices.Sorted(maps.Keys(sets)) {
		if n := sets[set]; n >= 2 {
			sh.KeySets = append(sh.KeySets, KeySet{Keys: strings.Split(set, "\n"), Files: n})
			inSets += n
		}
	}
	slices.SortStableFunc(sh.KeySets, func(a, b KeySet) int { return cmp.Compare(b.Files, a.Files) })
	sh.KeySetFiles = frac(inSets, measured)
	sh.Other = pooled.shape("", measured)
	sh.Other.Files = frac(withRare, measured)
	sh.Other.Count = quantiles(pooled.count)

	sh.FrontmatterBytes, sh.BodyBytes, sh.KeysPerFile = quantiles(fmBytes), quantiles(bodyBytes), quantiles(keysPer)
	sh.LineWidth = quantiles(widths)
	sh.CRLF, sh.BOM = frac(crlf, len(files)), frac(bom, len(files))
	sh.Comments, sh.BlankLines = frac(comments, measured), frac(blanks, measured)
	sh.Name = NameShape{Capitals: frac(capitals, names), Spaces: frac(spaces, names), Differs: frac(differs, names)}
	return sh
}

// topKeys returns the top-level keys of a file in order; ok is false for a
// file left out of the distributions.
func topKeys(data []byte) (keys []string, ok bool) {
	text := strings.ReplaceAll(strings.TrimPrefix(string(data), "\ufeff"), "\r\n", "\n")
	fm, _, ok := splitFrontmatter(text)
	if !ok {
		return nil, false
	}
	var doc yaml.Node
	if yaml.Unmarshal([]byte(fm), &doc) != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, false
	}
	top := doc.Content[0]
	for i := 0; i+1 < len(top.Content); i += 2 {
		keys = append(keys, top.Content[i].Value)
	}
	return keys, true
}

// measureValue records the value v of a key in a. lines are the frontmatter's lines; next is the 1-based line after the
// value.
func measureValue(a *keyAcc, v *yaml.Node, lines []string, next int, widths *[]int, escapes map[string]int) {
	form := Form(v, lines, next)
	a.forms[form]++
	switch v.Kind {
	case yaml.ScalarNode:
		a.scalars++
		n := utf8.RuneCountInString(v.Value)
		a.lens = append(a.lens, n)
		a.lenByForm[form] = append(a.lenByForm[form], n)
		if !isASCII(v.Value) {
			a.nonASCII++
		}
		if first, last := v.Line, lastLine(lines, next); last > first {
			for _, l := range lines[first:last] { // the lines after the key's
				if w := utf8.RuneCountInString(strings.TrimSpace(l)); w > 0 {
					*widths = append(*widths, w)
				}
			}
		}
		if v.Style == yaml.DoubleQuotedStyle {
			countEscapes(valueText(lines, v.Line, next), escapes)
		}
	case yaml.SequenceNode:
		a.items = append(a.items, len(v.Content))
		for i, c := range v.Content {
			after := next
			if i+1 < len(v.Content) {
				after = v.Content[i+1].Line
			}
			a.itemForms[Form(c, lines, after)]++
			a.itemLen(c)
		}
	case yaml.MappingNode:
		a.items = append(a.items, len(v.Content)/2)
		for i := 1; i < len(v.Content); i += 2 {
			after := next
			if i+1 < len(v.Content) {
				after = v.Content[i+1].Line
			}
			a.itemForms[Form(v.Content[i], lines, after)]++
			a.itemLen(v.Content[i])
		}
	}
}

// Form names the form of value v (see the Form constants). lines are the
// frontmatter's lines, next the 1-based line after the value (the next
// key's): a scalar ending before it on a later line than it starts is
// multi-line.
func Form(v *yaml.Node, lines []string, next int) string {
	switch v.Kind {
	case yaml.SequenceNode:
		if v.Style&yaml.FlowStyle != 0 {
			return FormFlowSeq
		}
		return FormSeq
	case yaml.MappingNode:
		if v.Style&yaml.FlowStyle != 0 {
			return FormFlowMap
		}
		return FormMap
	case yaml.ScalarNode:
	default:
		return FormOther
	}
	if v.Anchor != "" || v.Style&yaml.TaggedStyle != 0 {
		return FormOther
	}
	ml := lastLine(lines, next) > v.Line
	switch v.Style {
	case yaml.LiteralStyle, yaml.FoldedStyle:
		base := FormLit
		if v.Style == yaml.FoldedStyle {
			base = FormFold
		}
		head := lines[v.Line-1]
		switch {
		case strings.Contains(head, "|-") || strings.Contains(head, ">-"):
			return base + "-"
		case strings.Contains(head, "|+") || strings.Contains(head, ">+"):
			return base + "+"
		}
		return base
	case yaml.SingleQuotedStyle:
		switch {
		case ml:
			return FormSQML
		case strings.Contains(v.Value, "'"):
			return FormSQEsc
		}
		return FormSQ
	case yaml.DoubleQuotedStyle:
		switch {
		case ml:
			return FormDQML
		case strings.Contains(valueText(lines, v.Line, next), `\`):
			return FormDQEsc
		}
		return FormDQ
	}
	switch v.Tag {
	case "!!bool":
		return FormBool
	case "!!int":
		return FormInt
	case "!!float":
		return FormFloat
	case "!!timestamp":
		return FormTimestamp
	case "!!null":
		return FormNull
	case "!!str":
		if ml {
			return FormPlainML
		}
		return FormPlain
	}
	return FormOther
}

// lastLine is the 1-based last line before next that is neither blank nor a
// comment.
func lastLine(lines []string, next int) int {
	l := min(next-1, len(lines))
	for l > 1 {
		t := strings.TrimSpace(lines[l-1])
		if t != "" && !strings.HasPrefix(t, "#") {
			break
		}
		l--
	}
	return l
}

// valueText is the text of lines first..next-1 (1-based), joined.
func valueText(lines []string, first, next int) string {
	last := max(lastLine(lines, next), first)
	return strings.Join(lines[first-1:last], "\n")
}

// countEscapes counts the backslash escapes of a double-quoted value's text.
func countEscapes(text string, escapes map[string]int) {
	for i := strings.IndexByte(text, '\\'); i >= 0 && i+1 < len(text); {
		kind := `\` + text[i+1:i+2]
		switch text[i+1] {
		case '"', 'n', '\\', 't', '/', 'u':
		default:
			kind = "other"
		}
		escapes[kind]++
		j := strings.IndexByte(text[i+2:], '\\')
		if j < 0 {
			break
		}
		i += 2 + j
	}
}

// itemLen records the length of a collection's entry that is a scalar.
func (a *keyAcc) itemLen(n *yaml.Node) {
	if n.Kind == yaml.ScalarNode {
		a.itemLens = append(a.itemLens, utf8.RuneCountInString(n.Value))
	}
}

func (a *keyAcc) shape(key string, files int) KeyShape {
	ks := KeyShape{
		Key:       key,
		Files:     frac(a.files, files),
		Forms:     a.forms,
		Len:       quantiles(a.lens),
		NonASCII:  frac(a.nonASCII, a.scalars),
		Items:     quantiles(a.items),
		ItemForms: a.itemForms,
		ItemLen:   quantiles(a.itemLens),
	}
	if a.files > 0 {
		ks.Position = math.Round(a.pos/float64(a.files)*1000) / 1000
	}
	for _, f := range slices.Sorted(maps.Keys(a.lenByForm)) {
		if l := a.lenByForm[f]; len(l) >= minByForm {
			if ks.LenByForm == nil {
				ks.LenByForm = map[string]Quantiles{}
			}
			ks.LenByForm[f] = quantiles(l)
		}
	}
	if len(ks.ItemForms) == 0 {
		ks.ItemForms = nil
	}
	return ks
}

// splitFrontmatter splits text (LF lines) at its "---" lines.
func splitFrontmatter(text string) (fm, body string, ok bool) {
	first, rest, ok := strings.Cut(text, "\n")
	if !ok || strings.TrimRight(first, " \t") != "---" {
		return "", "", false
	}
	for off := 0; off <= len(rest); {
		line, _, _ := strings.Cut(rest[off:], "\n")
		if strings.TrimRight(line, " \t") == "---" {
			end := off + len(line) + 1
			return rest[:off], rest[min(end, len(rest)):], true
		}
		if off+len(line) >= len(rest) {
			break
		}
		off += len(line) + 1
	}
	return "", "", false
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func frac(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return math.Round(float64(n)/float64(of)*10000) / 10000
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
