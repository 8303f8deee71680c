// Package cmdhooks runs the person's own hook commands, configured under
// the "hooks" key of helios.config.json in the shape of Claude Code's
// settings, so that hooks written for Claude Code run unchanged.
//
// Each event maps onto a standard mount point (SessionStart onto
// session:start, UserPromptSubmit onto prompt:submit, PreToolUse onto
// tool:before, PostToolUse onto tool:after after a call that succeeded,
// PostToolUseFailure onto tool:after after one that failed, Stop onto
// turn:end, PreCompact onto compact:before, SessionEnd onto session:end), and each command is
// one handler there, mounted in config order. The kernel installs the
// capability in the command band: after every builtin of a point and before
// every plugin.
//
// A command gets Claude Code's JSON on stdin and answers as Claude Code
// reads it: exit 0 (stdout is context for UserPromptSubmit and
// SessionStart, or JSON with decisions), exit 2 (blocks; stderr goes to the
// model where Claude Code sends it there), any other status (a warning; the
// call goes on). A command past its timeout is killed with its process
// group; the call goes on, and the failure is a warning naming the hook and
// the limit.
//
// Commands are the person's own code: they run unconfined, only from a
// trusted config, and inherit Helios's environment but for the secrets
// Helios holds, plus CLAUDE_PROJECT_DIR, HELIOS_PROJECT_DIR and the
// session's CLAUDE_ENV_FILE.
package cmdhooks
