package skillsfloor

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

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
			sh.Measured.SkippedNoFrontmatter++
			continue
		}
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(fm), &doc); err != nil || len(doc.Content) == 0 {
			sh.Measured.SkippedYAMLError++
			continue
		}
		top := doc.Content[0]
		if top.Kind != yaml.MappingNode {
			sh.Measured.SkippedNotMapping++
			continue
		}
		measured++
		fmBytes, bodyBytes = append(fmBytes, len(fm)), append(bodyBytes, len(body))
		lines := strings.Split(fm, "\n")
		hasComment, hasBlank := measureLines(lines, sh.Indent)
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
		pooled.add(a)
	}
	slices.SortFunc(sh.Keys, func(a, b KeyShape) int {
		return cmp.Or(cmp.Compare(a.Position, b.Position), cmp.Compare(a.Key, b.Key))
	})
	withRare := sh.measureKeySets(files, common, pooled, measured)
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

// measureLines counts the frontmatter's indentations into indent and says
// whether it holds a comment line and a blank line.
func measureLines(lines []string, indent map[string]int) (hasComment, hasBlank bool) {
	for _, l := range lines[:len(lines)-1] {
		t := strings.TrimLeft(l, " \t")
		hasComment = hasComment || strings.HasPrefix(t, "#")
		hasBlank = hasBlank || t == ""
		if ind := len(l) - len(strings.TrimLeft(l, " ")); ind > 0 && t != "" {
			indent[fmt.Sprint(ind)]++
		}
	}
	return hasComment, hasBlank
}

// add pools b's measures into a.
func (a *keyAcc) add(b *keyAcc) {
	a.files += b.files
	a.nonASCII += b.nonASCII
	a.scalars += b.scalars
	for f, c := range b.forms {
		a.forms[f] += c
	}
	for f, c := range b.itemForms {
		a.itemForms[f] += c
	}
	a.lens = append(a.lens, b.lens...)
	a.items = append(a.items, b.items...)
	a.itemLens = append(a.itemLens, b.itemLens...)
}

// measureKeySets measures, per file, how many rare keys it has (their
// counts go to pooled) and which set of common ones; it sets KeySets and
// KeySetFiles and returns how many files have a rare key.
func (sh *Shape) measureKeySets(files []SkillFile, common map[string]bool, pooled *keyAcc, measured int) (withRare int) {
	inSets := 0
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
	return withRare
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
