package skills

// CatalogProvenance marks the catalog messages the kernel's injector
// (kernel.InjectCatalog) appends.
const CatalogProvenance = "skills-catalog"

// CatalogDigestKey is the Meta key holding an injected catalog's digest.
const CatalogDigestKey = "digest"

// CatalogMessage wraps rendered catalog text in the message the model reads.
func CatalogMessage(text string) string {
	if text == "" {
		return "No skills are available now; this replaces any earlier list.\n<available_skills>\n</available_skills>"
	}
	return "Skills you can load with the skill tool; this list replaces any earlier one.\n<available_skills>\n" + text + "</available_skills>"
}
