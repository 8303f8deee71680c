package tui

import (
	"context"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/helios-agents/helios/kernel"
)

// SlashCommands is the person's slash commands (prompt templates in
// .claude/commands and the like): /name completes like /skill: and, with
// its arguments, sends the expansion as the prompt.
type SlashCommands interface {
	// List reads the commands now: a file added meanwhile is in it.
	List() []SlashCommand
	// Expand makes /name args into the prompt, with warnings to show.
	Expand(ctx context.Context, name, args string) (prompt string, warnings []string, err error)
}

// CommandTools is what SlashCommands may also do: name the allowed-tools of
// a command, which pre-approve calls (permission rules) during the turn it
// starts.
type CommandTools interface {
	AllowedTools(ctx context.Context, name string) []string
}

// SlashCommand is one command as the popup shows it.
type SlashCommand struct {
	Name, Description, ArgumentHint string
}

// slashSuggestions are the commands whose "/name" starts with draft.
func slashSuggestions(draft string, cmds []SlashCommand) []suggestion {
	var out []suggestion
	for _, c := range cmds {
		if !strings.HasPrefix("/"+c.Name, draft) {
			continue
		}
		desc := c.Description
		if c.ArgumentHint != "" {
			desc = c.ArgumentHint + "  " + desc
		}
		out = append(out, suggestion{value: "/" + c.Name + " ", name: "/" + c.Name, desc: desc})
	}
	return out
}

// listCommands returns the person's commands for a draft that may complete
// to one (a slash word, not /skill:); nil otherwise. They are read when
// the draft is a bare "/" (a command being started) or was not a slash
// word before, and reused while the name is typed: reading costs a few
// milliseconds per hundred files, too much for every keystroke.
func (m *Model) listCommands(draft string) []SlashCommand {
	if m.cfg.Commands == nil || !strings.HasPrefix(draft, "/") || strings.HasPrefix(draft, skillPrefix) || strings.ContainsAny(draft, " \t\n") {
		m.slashRead = false
		return nil
	}
	if draft == "/" || !m.slashRead {
		m.slashCmds, m.slashRead = m.cfg.Commands.List(), true
	}
	return m.slashCmds
}

// userCommand splits "/name args" when name is one of the person's
// commands.
func (m *Model) userCommand(draft string) (name, args string, ok bool) {
	if m.cfg.Commands == nil {
		return "", "", false
	}
	first, rest, _ := strings.Cut(draft, " ")
	name = strings.TrimPrefix(first, "/")
	for _, c := range m.cfg.Commands.List() {
		if c.Name == name {
			return name, strings.TrimSpace(rest), true
		}
	}
	return "", "", false
}

// startCommand expands a slash command and sends it, as startTurn sends a
// prompt; the conversation shows what was typed.
func (m *Model) startCommand(typed, name, args string) tea.Cmd {
	if !m.canSend() {
		return nil
	}
	m.clearDraft()
	m.add(entry{kind: userEntry, text: strings.TrimSpace(typed)})
	m.busy = inTurn
	ctx, cancel := context.WithCancel(m.rt.ctx)
	m.cancelTurn = cancel
	return m.rt.runCommand(ctx, m.cfg.Commands, name, args)
}

// runCommand expands a command (its !`cmd` run confined, which may take a
// while: off the UI's goroutine) and runs the turn with the prompt.
func (rt *runtime) runCommand(ctx context.Context, cmds SlashCommands, name, args string) tea.Cmd {
	return func() tea.Msg {
		if !rt.enter() {
			return nil
		}
		defer rt.leave()
		prompt, warnings, err := cmds.Expand(ctx, name, args)
		for _, w := range warnings {
			rt.post(updateMsg(kernel.Update{Kind: kernel.UpdateWarning, Text: w}))
		}
		if err == nil {
			if ct, ok := cmds.(CommandTools); ok {
				ctx = kernel.WithPreapproved(ctx, ct.AllowedTools(ctx, name))
			}
			var s Session
			if s, err = rt.session(); err == nil {
				_, err = s.Run(ctx, prompt)
			}
		}
		rt.post(turnDoneMsg{err: err})
		return nil
	}
}

// isUserCommand reports whether draft is "/name …" for one of the
// person's commands.
func (m *Model) isUserCommand(draft string) bool {
	_, _, ok := m.userCommand(draft)
	return ok
}
