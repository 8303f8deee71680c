package skills

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/helios-agents/helios/kernel/skills/internal/text"
)

// SearchToolName is the name of the tool that finds skills by words.
const SearchToolName = "skill_search"

// Search bounds.
const (
	// MaxSearchQuery is the longest query, in characters: a few words
	// describing a task, not a document.
	MaxSearchQuery = 500
	// DefaultSearchLimit is how many skills a search returns at most.
	DefaultSearchLimit = 10
)

// ErrBadQuery is returned by Search for a query it cannot rank by: empty,
// without a word, or longer than MaxSearchQuery.
var ErrBadQuery = errors.New("bad query")

// SearchHit is one skill a search found, with its relevance score (higher
// is better; only the order means anything).
type SearchHit struct {
	Skill Skill
	Score float64
}

// Search ranks every skill the model may see (not disable-model-invocation),
// those a catalog budget omits included, by BM25 relevance of query to its
// name and description, and returns the best limit of them (limit ≤ 0:
// DefaultSearchLimit). Words of the name weigh more than words of the
// description. Equal scores come in name order, so the same catalog and
// query always give the same answer. A skill matching no word of the query
// is never returned. The index is built once per catalog served from the
// registry's cache.
func (c Catalog) Search(query string, limit int) ([]SearchHit, error) {
	terms, err := queryTerms(query)
	if err != nil {
		return nil, err
	}
	var idx *searchIndex
	if c.memo == nil {
		idx = newSearchIndex(c.Skills)
	} else {
		m := c.memo
		m.indexOnce.Do(func() { m.index = newSearchIndex(c.Skills) })
		idx = m.index
	}
	return idx.search(terms, cmp.Or(max(limit, 0), DefaultSearchLimit)), nil
}

// queryTerms checks a query and returns its distinct terms.
func queryTerms(query string) ([]string, error) {
	if n := utf8.RuneCountInString(query); n > MaxSearchQuery {
		return nil, fmt.Errorf("%w: %s characters is over the limit of %s; search with a few words", ErrBadQuery, text.Thousands(n), text.Thousands(MaxSearchQuery))
	}
	if strings.TrimSpace(query) == "" {
		return nil, fmt.Errorf("%w: the query is empty; search with a few words describing the task", ErrBadQuery)
	}
	var terms []string
	tokens(query, func(t string) {
		if !slices.Contains(terms, t) {
			terms = append(terms, t)
		}
	})
	if len(terms) == 0 {
		return nil, fmt.Errorf("%w: %q holds no word (letters or digits) to search for", ErrBadQuery, query)
	}
	return terms, nil
}

// BM25 parameters (the usual ones), and how much more a word of the name
// counts than a word of the description (a simple BM25F).
const (
	bm25K1     = 1.2
	bm25B      = 0.75
	nameWeight = 3
)

// searchIndex is an inverted index over the visible skills of a catalog.
type searchIndex struct {
	docs     []*Skill             // visible skills, in name order
	postings map[string][]posting // term -> the docs holding it
}

// posting is one doc holding a term, with the term's BM25 weight in that
// doc before the term's idf: tf × (k1 + 1) / (tf + k1 × (1 − b + b × len/avglen)),
// where tf counts a word of the name nameWeight times.
type posting struct {
	doc int32
	w   float32
}

func newSearchIndex(all []Skill) *searchIndex {
	idx := &searchIndex{postings: map[string][]posting{}}
	for i := range all {
		if !all[i].DisableModelInvocation {
			idx.docs = append(idx.docs, &all[i])
		}
	}
	slices.SortFunc(idx.docs, func(a, b *Skill) int {
		return cmp.Or(strings.Compare(a.Name, b.Name), strings.Compare(a.Source, b.Source))
	})
	// Postings first hold the term's count (tf); once every doc's length is
	// known, its weight.
	type tf struct {
		term string
		n    float32
	}
	var terms []tf // one doc's terms, reused
	add := func(weight float32) func(string) {
		return func(t string) {
			for i := range terms {
				if terms[i].term == t {
					terms[i].n += weight
					return
				}
			}
			terms = append(terms, tf{t, weight})
		}
	}
	addName, addDesc := add(nameWeight), add(1)
	lens := make([]float32, len(idx.docs))
	total := 0.0
	for d, s := range idx.docs {
		terms = terms[:0]
		tokens(s.Name, addName)
		tokens(s.Description, addDesc)
		for _, t := range terms {
			idx.postings[t.term] = append(idx.postings[t.term], posting{doc: int32(d), w: t.n})
			lens[d] += t.n
		}
		total += float64(lens[d])
	}
	avg := float32(1)
	if total > 0 {
		avg = float32(total / float64(len(idx.docs)))
	}
	for _, ps := range idx.postings {
		for i := range ps {
			p := &ps[i]
			p.w = p.w * (bm25K1 + 1) / (p.w + bm25K1*(1-bm25B+bm25B*lens[p.doc]/avg))
		}
	}
	return idx
}

// search scores the docs holding any term and returns the best limit.
func (idx *searchIndex) search(terms []string, limit int) []SearchHit {
	n := float64(len(idx.docs))
	scores := make([]float32, len(idx.docs))
	var touched []int32
	for _, t := range terms {
		ps := idx.postings[t]
		if len(ps) == 0 {
			continue
		}
		df := float64(len(ps))
		idf := float32(math.Log(1 + (n-df+0.5)/(df+0.5)))
		for _, p := range ps {
			if scores[p.doc] == 0 {
				touched = append(touched, p.doc)
			}
			scores[p.doc] += idf * p.w
		}
	}
	// The best limit, kept sorted by insertion: score, then doc index
	// (docs are in name order, so ties come by name).
	better := func(a, b int32) bool { return scores[a] > scores[b] || scores[a] == scores[b] && a < b }
	top := make([]int32, 0, min(limit, len(touched)))
	for _, d := range touched {
		if len(top) == limit && !better(d, top[len(top)-1]) {
			continue
		}
		i, _ := slices.BinarySearchFunc(top, d, func(x, y int32) int {
			if better(x, y) {
				return -1
			}
			return 1
		})
		if len(top) < limit {
			top = append(top, 0)
		}
		copy(top[i+1:], top[i:len(top)-1])
		top[i] = d
	}
	out := make([]SearchHit, len(top))
	for i, d := range top {
		out[i] = SearchHit{Skill: *idx.docs[d], Score: float64(scores[d])}
	}
	return out
}

// tokens calls fn with each word of s, lowercased: a run of letters and
// digits, or a single character of a script written without spaces (Han,
// Hiragana, Katakana). A plural "s" is dropped from words of four letters
// or more, so "spreadsheets" finds "spreadsheet".
func tokens(s string, fn func(string)) {
	start := -1
	emit := func(end int) {
		if start < 0 {
			return
		}
		w := s[start:end]
		if !lowerASCII(w) {
			w = strings.ToLower(w)
		}
		if len(w) >= 4 && w[len(w)-1] == 's' && w[len(w)-2] != 's' {
			w = w[:len(w)-1]
		}
		fn(w)
		start = -1
	}
	for i, r := range s {
		switch {
		case text.Unbroken(r):
			emit(i)
			fn(string(r))
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			if start < 0 {
				start = i
			}
		default:
			emit(i)
		}
	}
	emit(len(s))
}

// lowerASCII reports a word ToLower would leave as is, cheaply.
func lowerASCII(w string) bool {
	for i := 0; i < len(w); i++ {
		if c := w[i]; c >= utf8.RuneSelf || c >= 'A' && c <= 'Z' {
			return false
		}
	}
	return true
}
