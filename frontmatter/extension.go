package frontmatter

import (
	"fmt"
	"strings"
)

// ExtensionDoc is the parsed EXTENSION.md of a capability: an extension
// folder or a plugin.
type ExtensionDoc struct {
	// Name is the frontmatter name, trimmed; empty when there is none (the
	// folder's name is then used).
	Name string
	// Description is the frontmatter description with runs of white space
	// collapsed: the capability's line in the <extensions> manifest. Empty
	// means "not listed".
	Description string
	// Body is the text after the frontmatter.
	Body string
}

// ParseExtensionDoc reads an EXTENSION.md. It uses the same parser as
// SKILL.md, so both files follow one set of rules.
func ParseExtensionDoc(file string, data []byte) (ExtensionDoc, error) {
	doc, err := Parse(file, data)
	if err != nil {
		return ExtensionDoc{}, fmt.Errorf("extension doc: %w", err)
	}
	var d ExtensionDoc
	d.Name, _ = doc.Scalar("name")
	d.Description, _ = doc.Scalar("description")
	d.Name = strings.TrimSpace(d.Name)
	d.Description = strings.Join(strings.Fields(d.Description), " ")
	d.Body = doc.Body
	return d, nil
}
