package transcript

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"

	"github.com/helios-agents/helios/kernel/session"
)

// line is one line of a transcript, with Claude Code's keys.
type line struct {
	ParentUUID       *string `json:"parentUuid"`
	IsSidechain      bool    `json:"isSidechain"`
	UserType         string  `json:"userType"`
	CWD              string  `json:"cwd"`
	SessionID        string  `json:"sessionId"`
	Type             string  `json:"type"`
	Message          message `json:"message"`
	IsMeta           bool    `json:"isMeta,omitempty"`
	IsCompactSummary bool    `json:"isCompactSummary,omitempty"`
	UUID             string  `json:"uuid"`
	Timestamp        string  `json:"timestamp"`
}

// message is a line's "message": Content is a string or a list of blocks.
type message struct {
	ID      string `json:"id,omitempty"`
	Type    string `json:"type,omitempty"`
	Role    string `json:"role"`
	Content any    `json:"content"`
	Usage   *usage `json:"usage,omitempty"`
}

type textBlock struct {
	Type string `json:"type"` // "text"
	Text string `json:"text"`
}

type toolUseBlock struct {
	Type  string          `json:"type"` // "tool_use"
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

type toolResultBlock struct {
	Type      string `json:"type"` // "tool_result"
	ToolUseID string `json:"tool_use_id"`
	Content   string `json:"content"`
	IsError   bool   `json:"is_error"`
}

// usage is an assistant message's token counts as Anthropic's API reports
// them: input_tokens without the cached ones.
type usage struct {
	InputTokens              int `json:"input_tokens"`
	OutputTokens             int `json:"output_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
}

// Roles and line types.
const (
	typeUser      = "user"
	typeAssistant = "assistant"
)

// line is the transcript line of the log's i-th event, after the line
// whose uuid is parent; false for an event with no line (an answer with
// no text).
func (s *Store) line(log session.Log, i int, parent string) (line, bool) {
	ev := log.At(i)
	l := line{
		UserType:  "external",
		CWD:       s.cfg.WorkDir,
		SessionID: log.ID(),
		UUID:      uuidOf(log.ID(), ev.Seq),
		Timestamp: ev.Time.UTC().Format("2006-01-02T15:04:05.000Z07:00"),
	}
	if parent != "" {
		l.ParentUUID = &parent
	}
	switch ev.Type {
	case session.User:
		l.Type, l.Message = typeUser, message{Role: typeUser, Content: s.redact(ev.Text)}
	case session.Assistant:
		if ev.Text == "" {
			return line{}, false
		}
		l.Type, l.Message = typeAssistant, assistant(log.ID(), ev, textBlock{Type: "text", Text: s.redact(ev.Text)})
	case session.ToolUse:
		input := json.RawMessage(s.redact(string(ev.Input)))
		if !json.Valid(input) {
			input = json.RawMessage("{}")
		}
		l.Type, l.Message = typeAssistant, assistant(log.ID(), answerOf(log, i), toolUseBlock{Type: "tool_use", ID: ev.ToolUseID, Name: s.redact(ev.ToolName), Input: input})
	case session.ToolResult:
		l.Type, l.Message = typeUser, message{Role: typeUser, Content: []any{
			toolResultBlock{Type: "tool_result", ToolUseID: ev.ToolUseID, Content: s.redact(ev.Text), IsError: ev.IsError}}}
	case session.Injected:
		l.Type, l.IsMeta = typeUser, true
		l.Message = message{Role: typeUser, Content: []any{textBlock{Type: "text", Text: s.redact(ev.Text)}}}
	case session.Compaction:
		l.Type, l.IsCompactSummary = typeUser, true
		l.Message = message{Role: typeUser, Content: s.redact(ev.Text)}
	default:
		return line{}, false
	}
	return l, true
}

// assistant is the message of one block of the answer ev: every block of
// an answer has its message id and usage, as Claude Code writes them.
func assistant(sessionID string, ev session.Event, block any) message {
	m := message{ID: "msg_" + hashOf(sessionID, ev.Seq)[:24], Type: "message", Role: typeAssistant, Content: []any{block}}
	if u := ev.Usage; u != (session.Usage{}) {
		m.Usage = &usage{
			InputTokens:              max(0, u.Input-u.CacheRead-u.CacheWrite),
			OutputTokens:             u.Output,
			CacheCreationInputTokens: u.CacheWrite,
			CacheReadInputTokens:     u.CacheRead,
		}
	}
	return m
}

// answerOf is the Assistant event whose tool call is the log's i-th
// event: the kernel appends an answer and its calls together.
func answerOf(log session.Log, i int) session.Event {
	for j := i - 1; j >= 0; j-- {
		if ev := log.At(j); ev.Type != session.ToolUse {
			return ev
		}
	}
	return log.At(i)
}

// encode is l as one JSON line, with the secrets replaced once more over
// the whole line (a secret in a key's value that no field held alone).
func (l line) encode(redact func(string) string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(l) // nothing in a line fails to encode
	return []byte(redact(b.String()))
}

// uuidOf is the uuid of the line of session id's event seq: a version 8
// UUID from their hash, the same in every process.
func uuidOf(id string, seq int64) string {
	h := []byte(hashOf(id, seq)[:32])
	b := make([]byte, 16)
	_, _ = hex.Decode(b, h)
	b[6] = b[6]&0x0f | 0x80
	b[8] = b[8]&0x3f | 0x80
	x := hex.EncodeToString(b)
	return x[0:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:32]
}

// hashOf is the hex SHA-256 of a session id and an event's Seq.
func hashOf(id string, seq int64) string {
	h := sha256.New()
	h.Write([]byte(id))
	_ = binary.Write(h, binary.BigEndian, seq)
	return hex.EncodeToString(h.Sum(nil))
}

// lastUUID is the "uuid" of a transcript line; "" when it has none.
func lastUUID(data []byte) string {
	var l struct {
		UUID string `json:"uuid"`
	}
	_ = json.Unmarshal(data, &l)
	return l.UUID
}
