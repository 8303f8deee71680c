package skills

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// CatalogDescriptionLimit is where a description is cut in the catalog text.
const CatalogDescriptionLimit = 250

// RenderCatalog renders the skills the model may see as the text that goes
// between <available_skills> tags: one line per skill, by code point of the
// name, whitespace collapsed, descriptions cut at CatalogDescriptionLimit
// with an ellipsis, markup escaped. Bodies never appear, so a body-only edit
// never changes the text or its digest. The kernel renders through
// Catalog.Rendered; this is exported so that a front end (an MCP server, a
// UI) can show exactly the text the model reads.
func RenderCatalog(skills []Skill) string {
	visible := make([]Skill, 0, len(skills))
	for _, s := range skills {
		if !s.DisableModelInvocation {
			visible = append(visible, s)
		}
	}
	sortByName(visible)
	var b strings.Builder
	for _, s := range visible {
		b.WriteString("- ")
		b.WriteString(escapeMarkup(collapse(s.Name)))
		b.WriteString(": ")
		b.WriteString(escapeMarkup(cut(collapse(s.Description), CatalogDescriptionLimit)))
		b.WriteByte('\n')
	}
	return b.String()
}

// Digest is a stable hash of the summaries in a catalog (name, description,
// source, base dir, visibility): it changes when membership or what a person
// or the model sees changes, never on a body-only edit.
func (c Catalog) Digest() string {
	h := sha256.New()
	for _, s := range c.Skills {
		for _, f := range []string{s.Name, s.Description, s.Source, s.BaseDir, strconv.FormatBool(s.DisableModelInvocation)} {
			h.Write([]byte(f))
			h.Write([]byte{0})
		}
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// TextDigest hashes a rendered catalog text: the digest the kernel's
// catalog messages carry (CatalogDigestKey), exported so that whoever reads
// a session log can tell which catalog a message published.
func TextDigest(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
}

func sortByName(ss []Skill) {
	slices.SortStableFunc(ss, func(a, b Skill) int { return strings.Compare(a.Name, b.Name) })
}

func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimRight(string(r[:n-1]), " ") + "…"
}

var markup = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

func escapeMarkup(s string) string { return markup.Replace(s) }
