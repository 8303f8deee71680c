package tools

import (
	"embed"

	"github.com/helios-agents/helios/kernel/modeltext"
)

// The tools' descriptions live in these files.
//
//go:embed *.md *.md.tmpl
var textFiles embed.FS

var texts = modeltext.New(textFiles)
