// Package commands reads slash commands: Markdown prompt templates in
// Claude Code's format from <work>/.helios/commands, <work>/.claude/commands,
// ~/.helios/commands and ~/.claude/commands, in that order (the first file
// of a name wins; a later one is reported as shadowed). A file's path below
// its folder gives its name, subfolders joined by ":" (frontend/test.md is
// "frontend:test"). Project folders are read through the guarded work-dir
// port, so a command symlinked out of the project is refused. After them
// come the command folders of installed agent plugins (Config.Plugins),
// each command namespaced as Claude Code does: "<plugin>:<name>".
//
// The frontmatter keys are Claude Code's: description, argument-hint,
// allowed-tools and model. A file whose frontmatter cannot be read is
// listed with its error and cannot be expanded.
//
// [Set.Expand] turns a command and its arguments into the prompt: $ARGUMENTS
// is the whole argument text, $1…$9 the shell-split words (a missing one
// is empty); with no placeholder in the body the arguments are appended as
// "ARGUMENTS: …", as Claude Code does. @path attaches a file of the project
// or the home folder (anything else is refused with a warning; a path that
// does not exist stays text). !`cmd` runs cmd at expansion time through the
// Runner (the sandbox that confines the Bash tool) and inserts its output,
// only when allowed-tools names Bash. Markers are recognized in the
// template only, never inside the arguments, and not in fenced code
// blocks.
//
// Nothing is cached: every List and Expand reads the folders again, so a
// new or edited file counts at once.
package commands
