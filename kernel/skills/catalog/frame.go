package catalog

import (
	_ "embed"
	"strconv"
	"strings"
)

// Provenance marks the catalog messages the kernel's injector
// (kernel.InjectCatalog) appends.
const Provenance = "skills-catalog"

// DigestKey is the Meta key holding an injected catalog's digest.
const DigestKey = "digest"

// Frame is the fixed text around the skill lines of a budgeted catalog; it
// counts against the budget. MessageFrame is the catalog message's; another
// consumer of the same rule (an MCP tool description) brings its own.
type Frame struct {
	// Head comes before the lines and Tail after them.
	Head, Tail string
	// Empty is the whole text when no skill is visible.
	Empty string
	// Note is appended after Tail when skills are omitted: it says how many
	// and how to reach them.
	Note func(omitted int) string
	// NoteFirst puts the note before Head instead, for a consumer whose
	// reader may cut the text at a length (an MCP client cutting a tool
	// description) and must still learn that skills were left out.
	NoteFirst bool
}

// The catalog message's text lives in these files; a file's trailing
// newline is not part of the text (the head ends with one).
var (
	//go:embed catalog_head.md
	catalogHeadMD string
	//go:embed catalog_tail.md
	catalogTailMD string
	//go:embed catalog_empty.md
	catalogEmptyMD string
	//go:embed catalog_note.md
	catalogNoteMD string

	catalogHead  = strings.TrimRight(catalogHeadMD, "\n") + "\n"
	catalogTail  = strings.TrimRight(catalogTailMD, "\n")
	catalogEmpty = strings.TrimRight(catalogEmptyMD, "\n")
	catalogNote  = "\n" + strings.TrimRight(catalogNoteMD, "\n") // on its own line, after the tail
)

// MessageFrame is the frame of the catalog message the model receives.
func MessageFrame() Frame {
	return Frame{Head: catalogHead, Tail: catalogTail, Empty: catalogEmpty, Note: catalogOmittedNote}
}

func catalogOmittedNote(omitted int) string {
	return strings.ReplaceAll(catalogNote, "{omitted}", strconv.Itoa(omitted))
}
