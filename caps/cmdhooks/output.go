package cmdhooks

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/helios-agents/helios/kernel/bytesize"
	"github.com/helios-agents/helios/kernel/utf8text"
)

// reply is the JSON a command may print on stdout (exit 0), as Claude Code
// reads it. Keys it does not know are ignored, as Claude Code ignores them.
type reply struct {
	// Continue false stops the turn after the hooks ran; StopReason is for
	// the person.
	Continue   *bool  `json:"continue"`
	StopReason string `json:"stopReason"`
	// SuppressOutput hides stdout from Claude Code's transcript; Helios
	// never shows a hook's stdout but in its debug log.
	SuppressOutput bool `json:"suppressOutput"`
	// SystemMessage is a warning for the person.
	SystemMessage string `json:"systemMessage"`
	// Decision "block" with Reason: blocks the prompt (UserPromptSubmit),
	// keeps the turn going (Stop), sends Reason to the model (PostToolUse).
	// On PreToolUse it is the old spelling of permissionDecision
	// ("approve" is "allow", "block" is "deny").
	Decision string `json:"decision"`
	Reason   string `json:"reason"`
	// Specific holds the event's own answers.
	Specific specific `json:"hookSpecificOutput"`
}

type specific struct {
	HookEventName            string          `json:"hookEventName"`
	PermissionDecision       string          `json:"permissionDecision"`
	PermissionDecisionReason string          `json:"permissionDecisionReason"`
	AdditionalContext        string          `json:"additionalContext"`
	UpdatedInput             json.RawMessage `json:"updatedInput"`
	// Decision is PermissionRequest's answer.
	Decision *permissionAnswer `json:"decision"`
}

// permissionAnswer is a PermissionRequest hook's decision: behavior
// "allow" (with updatedInput) or "deny" (with message and interrupt).
// Claude Code's updatedPermissions is not applied.
type permissionAnswer struct {
	Behavior     string          `json:"behavior"`
	UpdatedInput json.RawMessage `json:"updatedInput"`
	Message      string          `json:"message"`
	Interrupt    bool            `json:"interrupt"`
}

// stops says the reply asks to stop the turn ("continue": false).
func (r *reply) stops() bool { return r.Continue != nil && !*r.Continue }

// read reads what a command that exited 0 printed: a JSON answer when its
// stdout is a JSON object, else plain text. Output over the bound, or that
// looks like JSON and is not a valid answer, is read as plain text with a
// warning naming the hook.
func (c *Hooks) read(ctx context.Context, h *hook, o outcome) (r reply, text string, isJSON bool) {
	text = utf8text.Valid(string(o.stdout.buf))
	if o.stdout.cut() {
		c.warn(ctx, h, fmt.Sprintf("printed %s on stdout, over the limit of %s: the rest was dropped and what was kept is read as plain text", bytesize.Text(o.stdout.total), bytesize.Text(c.maxOutput)))
		return r, text, false
	}
	trimmed := bytes.TrimSpace(o.stdout.buf)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return r, text, false
	}
	if err := json.Unmarshal(trimmed, &r); err != nil {
		c.warn(ctx, h, fmt.Sprintf("printed invalid JSON on stdout (%v): it is read as plain text", err))
		return reply{}, text, false
	}
	if r.SystemMessage != "" {
		c.warn(ctx, h, "says: "+utf8text.Valid(r.SystemMessage))
	}
	return r, "", true
}

// errText is what a command printed on stderr, for a message, or fallback
// when it printed nothing.
func errText(o outcome, fallback string) string {
	s := strings.TrimSpace(utf8text.Valid(string(o.stderr.buf)))
	if s == "" {
		return fallback
	}
	if o.stderr.cut() {
		s += fmt.Sprintf(" [... %d more bytes dropped]", o.stderr.total-len(o.stderr.buf))
	}
	return s
}

// failed is the error of a command that exited with a status other than 0
// and 2: a non-blocking error, which the kernel reports as a warning.
func failed(o outcome) error {
	if o.code < 0 {
		return fmt.Errorf("it was ended by a signal (%s): %s", o.signal, errText(o, "no stderr output"))
	}
	return fmt.Errorf("it exited with status %d (a non-blocking error: only 2 blocks): %s", o.code, errText(o, "no stderr output"))
}
