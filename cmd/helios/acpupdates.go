package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/session"
	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/workfs"
)

// The kernel's updates as ACP session/update notifications: the model's
// text as agent_message_chunk while it streams, each tool call as
// tool_call (title, kind, locations) and its result as tool_call_update
// (status, content; for Write and Edit the diff, the file before and
// after), what is injected on the user's side (the skills catalog and its
// changes, a loaded skill) and warnings as agent_thought_chunk.

// acpToolCall is a running call's state: for Write and Edit, the file's
// path and content before the call (nil: the file did not exist).
type acpToolCall struct {
	path   string
	old    *string
	isEdit bool
}

// send sends one update, ignoring a failed write (the connection is gone:
// its end cancels the turn).
func (s *acpSession) send(ctx context.Context, u acp.SessionUpdate) {
	_ = s.a.conn.SessionUpdate(context.WithoutCancel(ctx), acp.SessionNotification{SessionId: acp.SessionId(s.id), Update: u})
}

// observe is the kernel session's Observe.
func (s *acpSession) observe(u kernel.Update) {
	ctx := context.Background()
	switch u.Kind {
	case kernel.UpdateText:
		if u.Text != "" {
			s.send(ctx, acp.UpdateAgentMessageText(u.Text))
		}
	case kernel.UpdateUsage:
		s.mu.Lock()
		s.usage = s.usage.Add(u.Usage)
		s.requests, s.toolsAsked = s.requests+1, false
		s.mu.Unlock()
	case kernel.UpdateToolCall:
		title, kind, locs := s.describe(u.Call.Name, u.Call.Arguments)
		tc := s.before(u.Call.Name, u.Call.Arguments)
		s.mu.Lock()
		s.toolsAsked = true
		if tc != nil {
			s.tools[u.Call.ID] = tc
		}
		s.mu.Unlock()
		s.send(ctx, acp.StartToolCall(acp.ToolCallId(u.Call.ID), title, acp.WithStartKind(kind),
			acp.WithStartStatus(acp.ToolCallStatusInProgress), acp.WithStartLocations(locs),
			acp.WithStartRawInput(rawInput(u.Call.Arguments))))
	case kernel.UpdateToolResult:
		s.mu.Lock()
		tc := s.tools[u.Call.ID]
		delete(s.tools, u.Call.ID)
		s.mu.Unlock()
		status := acp.ToolCallStatusCompleted
		if u.IsError {
			status = acp.ToolCallStatusFailed
		}
		content := []acp.ToolCallContent{acp.ToolContent(acp.TextBlock(u.Text))}
		if tc != nil && !u.IsError {
			if d, ok := s.diff(tc); ok {
				content = []acp.ToolCallContent{d}
			}
		}
		s.send(ctx, acp.UpdateToolCall(acp.ToolCallId(u.Call.ID), acp.WithUpdateStatus(status),
			acp.WithUpdateContent(content), acp.WithUpdateRawOutput(map[string]any{"content": u.Text, "isError": u.IsError})))
	case kernel.UpdateInjected:
		s.send(ctx, acp.UpdateAgentThoughtText(u.Text+"\n"))
	case kernel.UpdateCompacted:
		s.send(ctx, acp.UpdateAgentThoughtText("Context compacted.\n"))
	case kernel.UpdateWarning:
		s.send(ctx, acp.UpdateAgentThoughtText("Warning: "+u.Text+"\n"))
	}
}

// toolArgs are the arguments of the builtin tools the updates read.
type toolArgs struct {
	Path    string `json:"path"`
	Pattern string `json:"pattern"`
	Command string `json:"command"`
	Offset  *int   `json:"offset"`
	URL     string `json:"url"`
	Query   string `json:"query"`
}

// describe gives a call's title, kind and the files it touches.
func (s *acpSession) describe(name string, raw json.RawMessage) (string, acp.ToolKind, []acp.ToolCallLocation) {
	var a toolArgs
	_ = json.Unmarshal(raw, &a)
	var locs []acp.ToolCallLocation
	if a.Path != "" {
		loc := acp.ToolCallLocation{Path: s.abs(a.Path)}
		if a.Offset != nil {
			loc.Line = a.Offset
		}
		locs = append(locs, loc)
	}
	switch {
	case name == "Read":
		return "Read " + a.Path, acp.ToolKindRead, locs
	case name == "Write":
		return "Write " + a.Path, acp.ToolKindEdit, locs
	case name == "Edit":
		return "Edit " + a.Path, acp.ToolKindEdit, locs
	case name == "Bash":
		return "Run " + clip(a.Command, 120), acp.ToolKindExecute, locs
	case name == "Glob" || name == "Grep":
		return name + " " + clip(cmp.Or(a.Pattern, a.Query), 120), acp.ToolKindSearch, locs
	case name == "WebFetch" || name == "Fetch":
		return "Fetch " + a.URL, acp.ToolKindFetch, locs
	case name == "Think" || name == "think":
		return "Think", acp.ToolKindThink, locs
	case strings.HasPrefix(name, "mcp__"):
		server, tool, _ := strings.Cut(strings.TrimPrefix(name, "mcp__"), "__")
		return fmt.Sprintf("%s (MCP %s)", tool, server), acp.ToolKindOther, locs
	}
	if s.isSkill(name) {
		return "Load skill " + name, acp.ToolKindRead, locs
	}
	return name, acp.ToolKindOther, locs
}

// isSkill says whether name is a skill's tool (skills mode tools).
func (s *acpSession) isSkill(name string) bool {
	return slices.ContainsFunc(s.k.Catalog(context.Background()).Skills, func(sk skills.Skill) bool { return sk.Name == name })
}

// abs is a tool's path argument made absolute against the work dir.
func (s *acpSession) abs(p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(s.cwd, p)
}

// before records, for Write and Edit, the file's content before the call,
// read through the work dir's guard (a path outside it has no diff).
func (s *acpSession) before(name string, raw json.RawMessage) *acpToolCall {
	if name != "Write" && name != "Edit" {
		return nil
	}
	var a toolArgs
	if json.Unmarshal(raw, &a) != nil || a.Path == "" {
		return nil
	}
	tc := &acpToolCall{path: a.Path, isEdit: name == "Edit"}
	if b, err := s.readWork(a.Path); err == nil {
		old := string(b)
		tc.old = &old
	}
	return tc
}

// diff is a Write's or Edit's diff content: the file before and after.
func (s *acpSession) diff(tc *acpToolCall) (acp.ToolCallContent, bool) {
	b, err := s.readWork(tc.path)
	if err != nil {
		return acp.ToolCallContent{}, false
	}
	if tc.old == nil {
		return acp.ToolDiffContent(s.abs(tc.path), string(b)), true
	}
	return acp.ToolDiffContent(s.abs(tc.path), string(b), *tc.old), true
}

// readWork reads a file inside the work dir through the guarded port.
func (s *acpSession) readWork(p string) ([]byte, error) {
	f, err := workfs.New(s.cwd)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadFile(p)
}

// rawInput is a call's arguments as JSON, or the raw text when they are
// not JSON.
func rawInput(raw json.RawMessage) any {
	if json.Valid(raw) {
		return raw
	}
	return string(raw)
}

// replay sends a loaded session's history as updates: the user's
// messages, the model's answers, each tool call and its result.
func (s *acpSession) replay(ctx context.Context) {
	log := s.s.Log()
	var pending []string // calls without a result yet
	defer func() {
		// A call whose result was never saved (the turn was cancelled
		// or the process ended while it ran) is shown interrupted.
		for _, id := range pending {
			s.send(ctx, acp.UpdateToolCall(acp.ToolCallId(id), acp.WithUpdateStatus(acp.ToolCallStatusFailed),
				acp.WithUpdateContent([]acp.ToolCallContent{acp.ToolContent(acp.TextBlock("interrupted: no result was saved"))})))
		}
	}()
	for i := range log.Len() {
		ev := log.At(i)
		switch ev.Type {
		case session.User:
			s.send(ctx, acp.UpdateUserMessageText(ev.Text))
		case session.Assistant:
			if ev.Text != "" {
				s.send(ctx, acp.UpdateAgentMessageText(ev.Text))
			}
		case session.ToolUse:
			pending = append(pending, ev.ToolUseID)
			title, kind, locs := s.describe(ev.ToolName, ev.Input)
			s.send(ctx, acp.StartToolCall(acp.ToolCallId(ev.ToolUseID), title, acp.WithStartKind(kind),
				acp.WithStartStatus(acp.ToolCallStatusInProgress), acp.WithStartLocations(locs), acp.WithStartRawInput(rawInput(ev.Input))))
		case session.ToolResult:
			pending = slices.DeleteFunc(pending, func(id string) bool { return id == ev.ToolUseID })
			status := acp.ToolCallStatusCompleted
			if ev.IsError {
				status = acp.ToolCallStatusFailed
			}
			s.send(ctx, acp.UpdateToolCall(acp.ToolCallId(ev.ToolUseID), acp.WithUpdateStatus(status),
				acp.WithUpdateContent([]acp.ToolCallContent{acp.ToolContent(acp.TextBlock(ev.Text))})))
		case session.Injected:
			s.send(ctx, acp.UpdateAgentThoughtText(ev.Text+"\n"))
		case session.Compaction:
			s.send(ctx, acp.UpdateAgentThoughtText("Context compacted.\n"))
		}
	}
}

// availableCommands lists the slash commands (caps/commands) and
// /skill:<name> for each skill in the catalog.
func (s *acpSession) availableCommands(ctx context.Context) []acp.AvailableCommand {
	out := []acp.AvailableCommand{}
	if set, done, err := s.g.commandSet(ctx); err == nil {
		cmds, _ := set.List()
		for _, c := range cmds {
			ac := acp.AvailableCommand{Name: c.Name, Description: c.Description}
			if c.ArgumentHint != "" {
				ac.Input = &acp.AvailableCommandInput{Unstructured: &acp.UnstructuredCommandInput{Hint: c.ArgumentHint}}
			}
			out = append(out, ac)
		}
		done()
	}
	s.mu.Lock()
	k := s.k // set_mode swaps it
	s.mu.Unlock()
	for _, sk := range k.Catalog(ctx).Skills {
		out = append(out, acp.AvailableCommand{Name: "skill:" + sk.Name, Description: sk.Description})
	}
	return out
}

// sendCommands sends available_commands_update when the list changed
// since the last one sent.
func (s *acpSession) sendCommands(ctx context.Context) {
	cmds := s.availableCommands(ctx)
	s.mu.Lock()
	same := s.commands != nil && slices.EqualFunc(s.commands, cmds, func(a, b acp.AvailableCommand) bool {
		return a.Name == b.Name && a.Description == b.Description
	})
	if !same {
		s.commands = cmds
	}
	s.mu.Unlock()
	if !same {
		s.send(ctx, acp.SessionUpdate{AvailableCommandsUpdate: &acp.SessionAvailableCommandsUpdate{AvailableCommands: cmds}})
	}
}

// commandsAfterResponse sends the first available_commands_update once
// the response that opened the session is written (a client knows the
// session only then), or after a second at the latest.
func (s *acpSession) commandsAfterResponse() {
	written := s.a.out.waitFor(`"sessionId":"` + s.id + `"`)
	go func() {
		select {
		case <-written:
		case <-time.After(time.Second):
		}
		s.sendCommands(context.Background())
	}()
}

// promptText is an ACP prompt as the text the model reads, as Claude
// Code's ACP adapter writes it: text as it is, a resource link as
// [@name](uri), an embedded resource as its link with its text appended in
// a <context ref="uri"> block after the prompt.
func promptText(blocks []acp.ContentBlock) (string, error) {
	var b strings.Builder
	var contexts []string
	for i, c := range blocks {
		switch {
		case c.Text != nil:
			b.WriteString(c.Text.Text)
		case c.ResourceLink != nil:
			b.WriteString(uriLink(c.ResourceLink.Uri, c.ResourceLink.Name))
		case c.Resource != nil && c.Resource.Resource.TextResourceContents != nil:
			r := c.Resource.Resource.TextResourceContents
			b.WriteString(uriLink(r.Uri, ""))
			contexts = append(contexts, fmt.Sprintf("\n<context ref=%q>\n%s\n</context>", r.Uri, r.Text))
		case c.Resource != nil:
			return "", invalid("session/prompt: prompt[%d]: a binary embedded resource; only text resources are read", i)
		case c.Image != nil:
			return "", invalid("session/prompt: prompt[%d]: an image; Helios does not take images (promptCapabilities.image is false)", i)
		case c.Audio != nil:
			return "", invalid("session/prompt: prompt[%d]: audio; Helios does not take audio (promptCapabilities.audio is false)", i)
		default:
			return "", invalid("session/prompt: prompt[%d]: an unknown content block", i)
		}
	}
	for _, c := range contexts {
		b.WriteString("\n")
		b.WriteString(c)
	}
	if strings.TrimSpace(b.String()) == "" {
		return "", invalid("session/prompt: prompt: no text")
	}
	return b.String(), nil
}

// uriLink is [@name](uri); name defaults to a file URI's base name.
func uriLink(uri, name string) string {
	if name == "" {
		name = uri
		if p, ok := strings.CutPrefix(uri, "file://"); ok {
			name = path.Base(p)
		}
	}
	return fmt.Sprintf("[@%s](%s)", name, uri)
}
