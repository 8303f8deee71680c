package postgres

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/helios-agents/helios/kernel/session"
)

// body is an event's JSON in helios_events.body: what has no column.
type body struct {
	Text       string            `json:"text,omitempty"`
	ToolUseID  string            `json:"toolUseId,omitempty"`
	ToolName   string            `json:"toolName,omitempty"`
	IsError    bool              `json:"isError,omitempty"`
	Provenance string            `json:"provenance,omitempty"`
	Meta       map[string]string `json:"meta,omitempty"`
	From       int64             `json:"from,omitempty"`
	To         int64             `json:"to,omitempty"`
	Usage      session.Usage     `json:"usage,omitzero"`
}

// encodeEvent returns e's body and its input (nil when it has none).
// Input is kept verbatim: Append has already checked it is JSON.
func encodeEvent(e session.Event) (string, *string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(body{e.Text, e.ToolUseID, e.ToolName, e.IsError, e.Provenance, e.Meta, e.From, e.To, e.Usage}); err != nil {
		return "", nil, err
	}
	var input *string
	if len(e.Input) > 0 {
		s := string(e.Input)
		input = &s
	}
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))), input, nil
}

// decodeEvent fills e (Seq and Time already set) from its row.
func decodeEvent(e *session.Event, typ, b string, input *string) error {
	if typ == "" {
		return errors.New("no type")
	}
	var x body
	if err := decodeBody(b, &x); err != nil {
		return err
	}
	e.Time = e.Time.UTC()
	e.Type = session.Type(typ)
	e.Text, e.ToolUseID, e.ToolName, e.IsError, e.Provenance, e.Meta, e.From, e.To, e.Usage =
		x.Text, x.ToolUseID, x.ToolName, x.IsError, x.Provenance, x.Meta, x.From, x.To, x.Usage
	if input != nil {
		if !json.Valid([]byte(*input)) {
			return errors.New("input is not valid JSON")
		}
		e.Input = json.RawMessage(*input)
	}
	return nil
}

// decodeBody reads a row's body. A field it does not know is ignored, as
// the JSONL store ignores it: a newer Helios sharing the database writes
// fields (usage, in its time) that an older one must read past, not refuse
// the whole session for.
func decodeBody(b string, x *body) error {
	if err := json.Unmarshal([]byte(b), x); err != nil {
		return errors.New("body is not an event's JSON: " + err.Error())
	}
	return nil
}
