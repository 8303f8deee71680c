package skills

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
)

// CatalogDescriptionLimit is where a description is cut in a full catalog
// line: the spec's limit, so a description within the spec is shown whole
// whenever the budget allows; a budget that cannot hold the full lines
// shortens them (BudgetCatalog).
const CatalogDescriptionLimit = 1024

// RenderCatalog renders the skills the model may see as the text that goes
// between <available_skills> tags, without a budget: one line per skill in
// catalog order (see BudgetCatalog; by code point of the name within a
// source), whitespace collapsed, descriptions whole up to
// CatalogDescriptionLimit (longer ones cut at a word end with an ellipsis),
// markup escaped. Bodies never appear, so a
// body-only edit never changes the text or its digest.
// The kernel renders through Catalog.View; this is exported so that a front
// end (an MCP server, a UI) can show exactly the text the model reads.
func RenderCatalog(skills []Skill) string {
	return BudgetCatalog(skills, Budget{}, MessageFrame()).Text
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

func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

var markup = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

func escapeMarkup(s string) string { return markup.Replace(s) }
