package cmdhooks

import (
	"bytes"
	"encoding/json"
	"math"
	"path/filepath"
)

// input is the JSON a command reads on stdin: Claude Code's common fields,
// then the fields of its event.
type input struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	CWD            string `json:"cwd"`
	HookEventName  string `json:"hook_event_name"`

	ToolName     string          `json:"tool_name,omitempty"`
	ToolInput    json.RawMessage `json:"tool_input,omitempty"`
	ToolResponse any             `json:"tool_response,omitempty"`
	ToolUseID    string          `json:"tool_use_id,omitempty"`
	// Error and IsInterrupt are PostToolUseFailure's: the failed call's
	// result and whether the person interrupted it.
	Error       *string `json:"error,omitempty"`
	IsInterrupt *bool   `json:"is_interrupt,omitempty"`

	Prompt         *string `json:"prompt,omitempty"`
	Source         string  `json:"source,omitempty"`
	StopHookActive *bool   `json:"stop_hook_active,omitempty"`
	Trigger        string  `json:"trigger,omitempty"`
	// CustomInstructions is PreCompact's; Helios only compacts on its own,
	// so it is always empty.
	CustomInstructions *string `json:"custom_instructions,omitempty"`
	Reason             string  `json:"reason,omitempty"`
	// FilePath, MemoryType and LoadReason are InstructionsLoaded's.
	FilePath   string `json:"file_path,omitempty"`
	MemoryType string `json:"memory_type,omitempty"`
	LoadReason string `json:"load_reason,omitempty"`
	// AgentID and AgentType are SubagentStart's and SubagentStop's (the
	// child session's ID, the subagent's name), LastAssistantMessage
	// SubagentStop's.
	AgentID              string  `json:"agent_id,omitempty"`
	AgentType            string  `json:"agent_type,omitempty"`
	LastAssistantMessage *string `json:"last_assistant_message,omitempty"`
}

// encode is in as JSON, with <, > and & as they are.
func encode(in input) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(in) // nothing in an input fails to encode
	return b.Bytes()
}

// The builtin tools' keys that differ from Claude Code's: the file tools'
// "path" (relative to the work dir, or absolute) is Claude Code's
// "file_path" (always absolute), Bash's "timeout_seconds" its "timeout" in
// milliseconds.
const (
	keyPath        = "path"
	keyFilePath    = "file_path"
	keyTimeoutSecs = "timeout_seconds"
	keyTimeoutMS   = "timeout"
)

// fileTool says whether tool is a builtin file tool with a "path".
func fileTool(tool string) bool {
	return tool == "Read" || tool == "Write" || tool == "Edit"
}

// claudeInput is a call's arguments as a Claude Code hook reads them: the
// arguments as they are, and beside Helios's keys Claude Code's where they
// differ. Arguments that are not a JSON object are "{}".
func claudeInput(tool string, args json.RawMessage, workDir string) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil || m == nil {
		return json.RawMessage("{}")
	}
	switch {
	case fileTool(tool):
		var p string
		if _, has := m[keyFilePath]; !has && json.Unmarshal(m[keyPath], &p) == nil && p != "" {
			m[keyFilePath], _ = json.Marshal(absolute(workDir, p))
		}
	case tool == "Bash":
		var s float64
		if _, has := m[keyTimeoutMS]; !has && json.Unmarshal(m[keyTimeoutSecs], &s) == nil {
			m[keyTimeoutMS], _ = json.Marshal(s * 1000)
		}
	}
	out, err := json.Marshal(m)
	if err != nil {
		return json.RawMessage("{}")
	}
	return out
}

// heliosInput is a hook's updatedInput as the tool reads it: where the hook
// wrote a Claude Code key that differs from what it was given, that value
// wins over Helios's key; Claude Code's keys are then dropped. It reports
// false when updated is not a JSON object.
func heliosInput(tool string, updated, given json.RawMessage) (json.RawMessage, bool) {
	var u, g map[string]json.RawMessage
	if json.Unmarshal(updated, &u) != nil || u == nil {
		return nil, false
	}
	_ = json.Unmarshal(given, &g) // what claudeInput wrote
	changed := func(key string) bool {
		_, kept := u[key]
		return kept && !jsonEqual(u[key], g[key])
	}
	switch {
	case fileTool(tool):
		if _, has := u[keyPath]; changed(keyFilePath) || (!has && u[keyFilePath] != nil) {
			u[keyPath] = u[keyFilePath]
		}
		delete(u, keyFilePath)
	case tool == "Bash":
		var ms float64
		_, has := u[keyTimeoutSecs]
		if (changed(keyTimeoutMS) || !has) && json.Unmarshal(u[keyTimeoutMS], &ms) == nil {
			u[keyTimeoutSecs], _ = json.Marshal(max(1, int64(math.Ceil(ms/1000))))
		}
		delete(u, keyTimeoutMS)
	}
	out, err := json.Marshal(u)
	if err != nil {
		return nil, false
	}
	return out, true
}

// jsonEqual says whether two JSON values are the same value.
func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

// absolute is p against the work dir.
func absolute(workDir, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(workDir, p)
}

// toolResponse is a result as a Claude Code PostToolUse hook reads it:
// "content" (the text the model reads) and "success", and the keys of
// Claude Code's own responses a hook most often reads: the file tools'
// "filePath", Bash's "stdout" (Helios's Bash output holds stderr too).
func toolResponse(tool string, toolInput json.RawMessage, content string, isError bool) map[string]any {
	r := map[string]any{"content": content, "success": !isError}
	switch {
	case fileTool(tool):
		var in struct {
			FilePath string `json:"file_path"`
		}
		if json.Unmarshal(toolInput, &in) == nil && in.FilePath != "" {
			r["filePath"] = in.FilePath
		}
	case tool == "Bash":
		r["stdout"], r["stderr"], r["interrupted"] = content, "", false
	}
	return r
}
