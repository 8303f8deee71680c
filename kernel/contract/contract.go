package contract

import (
	"context"
	"encoding/json"
	"fmt"
)

// Tool is something the model can call. Name and Description are what the
// model sees; Schema is the JSON Schema of the arguments object.
type Tool struct {
	// Name is what the model calls the tool by: unique among its tools.
	Name string
	// Description tells the model when and how to use the tool.
	Description string
	// Schema is a JSON Schema for the arguments. Nil means an object with no
	// properties.
	Schema json.RawMessage
	// Call runs the tool. Errors the model should see (bad arguments, a file
	// that does not exist, an unknown skill) come back as a ToolResult with
	// IsError set; a Go error means the kernel itself could not run the call.
	Call func(ctx context.Context, args json.RawMessage) (ToolResult, error)
	// Annotations are what the tool's provider says of its behaviour (an
	// MCP server's tool annotations); nil when it says nothing. Hooks on
	// tool:before see them.
	Annotations *ToolAnnotations
}

// ToolAnnotations describe a tool's behaviour, as its provider states it:
// hints for policy (a tool:before hook may ask before a destructive call),
// never guarantees about a provider one does not trust.
type ToolAnnotations struct {
	// Title is a name for people.
	Title string `json:"title,omitempty"`
	// ReadOnly: the tool does not change its environment.
	ReadOnly bool `json:"readOnly"`
	// Destructive: it may delete or overwrite (never true when ReadOnly).
	Destructive bool `json:"destructive"`
	// Idempotent: calling it again with the same arguments changes nothing
	// more.
	Idempotent bool `json:"idempotent"`
	// OpenWorld: it reaches beyond a closed domain (the web, say).
	OpenWorld bool `json:"openWorld"`
}

// ToolResult is what a tool call returns to the model.
type ToolResult struct {
	// Content is the text the model reads.
	Content string
	// IsError marks a failed call; Content then says why.
	IsError bool
}

// ErrorResult is a ToolResult telling the model what went wrong.
func ErrorResult(format string, args ...any) ToolResult {
	return ToolResult{Content: fmt.Sprintf(format, args...), IsError: true}
}

// Warning reports input that was skipped, or accepted with a doubt: a broken
// SKILL.md, a name conflict, a failing provider or hook handler. Warnings never
// stop the kernel; they are collected so that the CLI and tests can show them.
type Warning struct {
	// Source is where the input came from: "user", "project",
	// "capability:<name>", "config", "hook", ...
	Source string `json:"source"`
	// Path is the file, directory, key or mount point the warning is about.
	Path string `json:"path"`
	// Message says what is wrong and what was done about it.
	Message string `json:"message"`
}

// String formats the warning as "source: path: message".
func (w Warning) String() string {
	if w.Path == "" {
		return fmt.Sprintf("%s: %s", w.Source, w.Message)
	}
	return fmt.Sprintf("%s: %s: %s", w.Source, w.Path, w.Message)
}
