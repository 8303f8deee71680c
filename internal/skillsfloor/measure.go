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

// How Measure reads published SKILL.md files into a Shape.

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
	m := &measurer{accs: map[string]*keyAcc{}}
	m.sh.Measured.Files = len(files)
	m.sh.Escapes, m.sh.Indent = map[string]int{}, map[string]int{}
	for _, f := range files {
		m.file(f)
	}
	common, pooled := m.pool()
	m.keySets(files, common, pooled)

	sh := &m.sh
	sh.FrontmatterBytes, sh.BodyBytes, sh.KeysPerFile = quantiles(m.fmBytes), quantiles(m.bodyBytes), quantiles(m.keysPer)
	sh.LineWidth = quantiles(m.widths)
	sh.CRLF, sh.BOM = frac(m.crlf, len(files)), frac(m.bom, len(files))
	sh.Comments, sh.BlankLines = frac(m.comments, m.measured), frac(m.blanks, m.measured)
	sh.Name = NameShape{Capitals: frac(m.capitals, m.names), Spaces: frac(m.spaces, m.names), Differs: frac(m.differs, m.names)}
	return m.sh
}

// measurer holds what Measure accumulates over the files.
type measurer struct {
	sh                                  Shape
	fmBytes, bodyBytes, keysPer, widths []int
	crlf, bom, comments, blanks         int
	names, capitals, spaces, differs    int
	accs                                map[string]*keyAcc
	measured                            int
}

// file measures one file, or counts why it is left out.
func (m *measurer) file(f SkillFile) {
	text := string(f.Data)
	if strings.HasPrefix(text, "\ufeff") {
		m.bom++
		text = text[len("\ufeff"):]
	}
	if strings.Contains(text, "\r\n") {
		m.crlf++
		text = strings.ReplaceAll(text, "\r\n", "\n")
	}
	fm, body, ok := splitFrontmatter(text)
	if !ok {
		m.sh.Measured.NoFrontmatter++
		return
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(fm), &doc); err != nil || len(doc.Content) == 0 {
		m.sh.Measured.YAMLErrors++
		return
	}
	top := doc.Content[0]
	if top.Kind != yaml.MappingNode {
		m.sh.Measured.NotMapping++
		return
	}
	m.measured++
	m.fmBytes, m.bodyBytes = append(m.fmBytes, len(fm)), append(m.bodyBytes, len(body))
	lines := strings.Split(fm, "\n")
	hasComment, hasBlank := false, false
	for _, l := range lines[:len(lines)-1] {
		t := strings.TrimLeft(l, " \t")
		hasComment = hasComment || strings.HasPrefix(t, "#")
		hasBlank = hasBlank || t == ""
		if ind := len(l) - len(strings.TrimLeft(l, " ")); ind > 0 && t != "" {
			m.sh.Indent[fmt.Sprint(ind)]++
		}
	}
	m.comments += b2i(hasComment)
	m.blanks += b2i(hasBlank)
	n := len(top.Content) / 2
	m.keysPer = append(m.keysPer, n)
	for i := 0; i+1 < len(top.Content); i += 2 {
		next := len(lines) // the line after the value: the next key's, or the end
		if i+2 < len(top.Content) {
			next = top.Content[i+2].Line
		}
		m.key(f, top.Content[i].Value, top.Content[i+1], i/2, n, lines, next)
	}
}

// key measures the value v of key k, the pos-th of n keys of file f.
func (m *measurer) key(f SkillFile, k string, v *yaml.Node, pos, n int, lines []string, next int) {
	a := m.accs[k]
	if a == nil {
		a = newKeyAcc()
		m.accs[k] = a
	}
	a.files++
	if n > 1 {
		a.pos += float64(pos) / float64(n-1)
	}
	measureValue(a, v, lines, next, &m.widths, m.sh.Escapes)
	if k == "name" && v.Kind == yaml.ScalarNode {
		m.names++
		m.capitals += b2i(strings.ToLower(v.Value) != v.Value)
		m.spaces += b2i(strings.Contains(v.Value, " "))
		m.differs += b2i(v.Value != f.Folder)
	}
}

// pool describes the keys in at least minKeyShare of the files on their own
// (Shape.Keys) and pools the rest, file by file, into one accumulator.
func (m *measurer) pool() (common map[string]bool, pooled *keyAcc) {
	common = map[string]bool{}
	pooled = newKeyAcc()
	for k, a := range m.accs {
		if float64(a.files) >= minKeyShare*float64(m.measured) {
			common[k] = true
			m.sh.Keys = append(m.sh.Keys, a.shape(k, m.measured))
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
	slices.SortFunc(m.sh.Keys, func(a, b KeyShape) int {
		return cmp.Or(cmp.Compare(a.Position, b.Position), cmp.Compare(a.Key, b.Key))
	})
	return common, pooled
}

// keySets counts, per file, how many rare keys it has and which set of
// common ones, and describes the pooled keys as Shape.Other.
func (m *measurer) keySets(files []SkillFile, common map[string]bool, pooled *keyAcc) {
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
			m.sh.KeySets = append(m.sh.KeySets, KeySet{Keys: strings.Split(set, "\n"), Files: n})
			inSets += n
		}
	}
	slices.SortStableFunc(m.sh.KeySets, func(a, b KeySet) int { return cmp.Compare(b.Files, a.Files) })
	m.sh.KeySetFiles = frac(inSets, m.measured)
	m.sh.Other = pooled.shape("", m.measured)
	m.sh.Other.Files = frac(withRare, m.measured)
	m.sh.Other.Count = quantiles(pooled.count)
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
