// Package tui is helios's interactive terminal UI (`helios`, `helios chat`),
// built on Bubble Tea v2: a conversation view that streams the model's answer
// and shows each tool call and its outcome compactly, an input line with
// slash commands (/skill:<name>, /skills, /help, /quit, and the person's own
// commands from Config.Commands), a completion popup for /skill: names and
// commands, and a status line.
//
// The skill catalog is UI state, not history. The UI listens for the
// kernel's bare "skills changed" signal, fetches a fresh snapshot in a
// command tagged with a sequence number, and applies only the newest
// complete result: a result older than the one shown is dropped, an
// incomplete one keeps the previous completions (a transient read error is
// no proof that skills are gone), and a complete empty one clears them. A
// catalog that arrives while a slash-command name is being typed recomputes
// the suggestions for that draft and never touches the draft itself.
//
// The Model is driven by messages only, so tests feed Update directly; Run
// wraps it in a tea.Program and releases everything when it ends.
package tui
