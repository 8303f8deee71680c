package kernel

import (
	"embed"
	"sync"

	"github.com/helios-agents/helios/kernel/modeltext"
)

// The kernel's prompts live in these files.
//
//go:embed *.md *.md.tmpl
var textFiles embed.FS

var texts = modeltext.New(textFiles)

// Texts without variables, rendered once.
var (
	defaultSystemPrompt = sync.OnceValue(func() string { return texts.Text("system.md", nil) })
	compactPrompt       = sync.OnceValue(func() string { return texts.Text("compact.md", nil) })
	// summaryHead comes before a compaction's summary in the model view.
	summaryHead = sync.OnceValue(func() string { return texts.Text("compact_summary.md", nil) })
)
