package skillsfloor

import (
	"cmp"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
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
	// SkippedNoFrontmatter, SkippedYAMLError and SkippedNotMapping count
	// the files of the sample left out of the distributions: no frontmatter
	// between "---" lines, YAML that yaml.v3 refuses, a frontmatter that is
	// not a mapping.
	SkippedNoFrontmatter int `json:"noFrontmatter"`
	SkippedYAMLError     int `json:"yamlErrors"`
	SkippedNotMapping    int `json:"notMapping"`
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
