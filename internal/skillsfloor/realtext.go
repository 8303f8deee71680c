package skillsfloor

import (
	_ "embed"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// escape draws a double-quoted escape from the measured kinds.
func (g *gen) escape() string {
	kinds := map[string]string{`\"`: `\"quoted\"`, `\n`: `\n`, `\\`: `C:\\path`, `\u`: `\u00e9`, `\t`: `\t`, `\/`: `a\/b`, "other": `\t`}
	total := 0
	for _, c := range g.sh.Escapes {
		total += c
	}
	if total > 0 {
		x := g.r.IntN(total)
		for _, k := range sortedKeys(g.sh.Escapes) {
			if x -= g.sh.Escapes[k]; x < 0 {
				if e, ok := kinds[k]; ok {
					return e
				}
				break
			}
		}
	}
	return `\"quoted\"`
}

// insert puts s between two words of text.
func (g *gen) insert(text, s string) string {
	sp := strings.Split(text, " ")
	i := g.r.IntN(len(sp) + 1)
	return strings.Join(slices.Insert(sp, i, s), " ")
}

// wrap breaks text into lines of about a drawn width; each line after the
// first starts with indent. In a flow (plain or quoted) value a blank line
// would be a line break of the value: only block scalars get paragraphs.
func (g *gen) wrap(text, indent string, flow bool) string {
	// At least two lines: the form says the value spans several.
	width := min(max(40, min(120, g.quantile(g.sh.LineWidth))), max(10, utf8.RuneCountInString(text)/2))
	var b strings.Builder
	col := 0
	for i, w := range strings.Split(text, " ") {
		switch {
		case i == 0:
		case col+1+utf8.RuneCountInString(w) > width:
			b.WriteString("\n")
			if !flow && g.r.IntN(8) == 0 {
				b.WriteString("\n")
			}
			b.WriteString(indent)
			col = 0
		default:
			b.WriteString(" ")
			col++
		}
		b.WriteString(w)
		col += utf8.RuneCountInString(w)
	}
	return b.String()
}

// text is about n characters of words. Plain text never holds ": " or " #"
// (either would end a plain scalar) and starts with a letter.
func (g *gen) text(n int, uni, plain bool) string {
	var b strings.Builder
	sentence := true
	for b.Len() < n || b.Len() == 0 {
		if b.Len() > 0 {
			b.WriteString(" ")
		}
		w := g.word(uni && g.r.IntN(16) == 0)
		if sentence {
			w = capitalize(w)
			sentence = false
		}
		b.WriteString(w)
		switch x := g.r.IntN(40); {
		case x < 3:
			b.WriteString(".")
			sentence = true
		case x < 6:
			b.WriteString(",")
		case x == 6 && !plain:
			b.WriteString(":")
		case x == 7 && uni:
			b.WriteString(" —")
		}
	}
	return strings.TrimRight(b.String(), " ,:—.") + "."
}

// words is n words of text.
func (g *gen) words(n int, uni bool) string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = g.word(uni)
	}
	return strings.Join(ws, " ")
}

// word draws a word, from the non-ASCII ones when uni.
func (g *gen) word(uni bool) string {
	if uni {
		return uniWords[g.r.IntN(len(uniWords))]
	}
	return vocabulary[g.r.IntN(len(vocabulary))]
}

// slug is a lowercase hyphenated folder name of about n characters, unique
// by i.
func (g *gen) slug(n, i int) string {
	suffix := fmt.Sprintf("-%d", i)
	var parts []string
	l := 0
	for l+len(suffix) < n || len(parts) == 0 {
		w := g.word(false)
		parts = append(parts, w)
		l += len(w) + 1
	}
	return strings.Join(parts, "-") + suffix
}

// body is markdown of about n bytes.
func (g *gen) body(n int) string {
	var b strings.Builder
	title := g.words(3, false)
	b.WriteString("\n# " + capitalize(title) + "\n\n")
	for b.Len() < n {
		switch g.r.IntN(6) {
		case 0:
			b.WriteString("## " + g.words(3, false) + "\n\n")
		case 1:
			b.WriteString("```bash\n" + g.words(4, false) + " --" + g.word(false) + "\n```\n\n")
		case 2:
			for range 3 {
				b.WriteString("- " + g.text(40, false, false) + "\n")
			}
			b.WriteString("\n")
		default:
			b.WriteString(g.wrap(g.text(300, g.r.IntN(10) == 0, false), "", true) + "\n\n")
		}
	}
	return b.String()
}

// span is the uniform distribution of lo..hi.
func span(lo, hi int) Quantiles {
	q := make(Quantiles, len(QuantileAt))
	for i, p := range QuantileAt {
		q[i] = lo + int(p/100*float64(hi-lo))
	}
	return q
}

// capitalize upper-cases the first letter of w.
func capitalize(w string) string {
	r, n := utf8.DecodeRuneInString(w)
	return string(unicode.ToUpper(r)) + w[n:]
}

// vocabulary is the words of generated text: the register of published
// skills (tools, files, steps), written for this generator.
var vocabulary = strings.Fields(`
	use when the user asks to create edit review test build deploy debug analyze convert
	extract generate format validate migrate refactor document summarize search fetch
	query monitor schedule publish release package install configure audit secure scan
	report plan design write read update delete merge split compare check fix lint run
	file files folder repository branch commit pull request issue ticket pipeline workflow
	api endpoint schema database table index query cache queue service server client
	browser page component style theme layout chart diagram spreadsheet document slide
	pdf markdown json yaml csv html image video audio text code script test suite
	project team customer product feature bug error log metric trace alert dashboard
	cloud cluster container image registry secret token key account user role policy
	data model prompt agent tool skill task step guide template example reference
	python typescript javascript go rust java kotlin swift shell terraform kubernetes
	docker git github gitlab jira slack notion figma stripe aws azure gcp postgres redis
	quickly safely with from into for and or of in on at by using without across before
	after each every any all new existing local remote large small complex simple
`)

// uniWords are the non-ASCII words of generated text: accents, scripts
// other than Latin, punctuation and symbols published skills carry.
var uniWords = []string{"café", "naïve", "résumé", "über", "señal", "données", "日本語", "技能", "文档", "데이터",
	"данные", "описание", "→", "✓", "…", "📄", "🚀", "«outil»", "Ärger", "ça"}
