// Package runpin keeps what a trusted config runs from being changed by the
// model unnoticed. A hook command, an MCP stdio server or a go-plugin names
// files it runs (the script of "$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh,
// the x.py of `python3 x.py`, a server's executable, a plugin's path); the
// ones that lie inside a tree the model can write (the work dir and the
// sandbox's writable paths) get their SHA-256 recorded when the config is
// trusted (`helios trust`) or, for a config the user names, when it is
// loaded. Pins.Check hashes them again before each run: a file that changed,
// vanished or was never recorded refuses the run, and the caller disables
// that one hook, server or plugin with one warning.
package runpin
