// Package tools holds the builtin tools the model works with: Bash, Glob,
// Read, Write, Edit and Grep (contract C8).
//
// Every file tool goes through the guarded work-dir port ([workfs.FS], contract
// C5), so a path the model chooses cannot reach outside the work dir: a
// refusal, like every other mistake the model can correct (bad arguments, a
// missing file, an old_string that matches twice), comes back as a
// [contract.ToolResult] with IsError set and a message saying why. A Go error
// means only that the call's context was done before the tool ran.
//
// Bash is not confined to the work dir — a shell can go anywhere — but it
// starts there, and it leaves nothing running: on timeout, on cancellation
// and when the command returns, its whole process group is killed.
package tools
