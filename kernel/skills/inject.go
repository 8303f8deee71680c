package skills

// CatalogProvenance marks the catalog messages the kernel's injector
// (kernel.InjectCatalog) appends.
const CatalogProvenance = "skills-catalog"

// CatalogDigestKey is the Meta key holding an injected catalog's digest.
const CatalogDigestKey = "digest"

// CatalogMessage wraps rendered catalog text in the message the model reads.
func CatalogMessage(text string) string {
	if text == "" {
		return catalogEmpty
	}
	return catalogHead + text + catalogTail
}
