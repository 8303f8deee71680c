// Package transcript keeps, beside each session, a transcript in Claude
// Code's JSONL shape: what a command hook finds at "transcript_path"
// (contracts C21, C28).
//
// Store wraps a session store. Each session opened through it gets a file,
// <Dir>/<session id>.jsonl, holding one JSON object per line as Claude Code
// writes them: "type" ("user" or "assistant"), "message" with "role" and
// content blocks ("text", "tool_use" {id, name, input}, "tool_result"
// {tool_use_id, content, is_error}), "sessionId", "uuid", "parentUuid",
// "timestamp", "cwd". One line per event of the log:
//
//   - a user message is a "user" line whose content is the text;
//   - the model's text is an "assistant" line with one "text" block, and
//     each of its tool calls an "assistant" line with one "tool_use" block
//     and the same message id (Claude Code writes a line per block too);
//     an answer with no text has no text line;
//   - a tool result is a "user" line with one "tool_result" block;
//   - text the kernel injected (the skills catalog, a hook's context) is a
//     "user" line with "isMeta": true and a "text" block;
//   - a compaction is a "user" line with "isCompactSummary": true whose
//     content is the summary.
//
// Path brings the file up to date with the log and returns its name, so a
// hook reads everything appended before it ran. Lines are only appended:
// a session resumed in another process continues its file after the last
// line (a torn last line, left by a crash, is cut off first). Every line
// has the secrets of Config.Secrets replaced by [REDACTED]. Line uuids are
// derived from the session and the event's Seq, so the same event has the
// same uuid in every process.
package transcript
