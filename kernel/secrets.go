package kernel

import (
	"encoding/json"

	"github.com/helios-agents/helios/kernel/redact"
	"github.com/helios-agents/helios/kernel/session"
)

// redactEvents returns copies of evs with every secret replaced by
// [REDACTED] in the text an event carries (Text, Input, Provenance, Meta
// values); evs itself when there is no secret to hide.
func redactEvents(secrets *redact.Secrets, evs []session.Event) []session.Event {
	if secrets.Len() == 0 {
		return evs
	}
	out := make([]session.Event, len(evs))
	for i, e := range evs {
		e.Text = secrets.String(e.Text)
		e.Provenance = secrets.String(e.Provenance)
		if in := secrets.String(string(e.Input)); in != string(e.Input) {
			e.Input = json.RawMessage(in)
			if !json.Valid(e.Input) {
				// The secret straddled a JSON escape: keep the arguments
				// as one redacted string rather than as invalid JSON.
				e.Input, _ = json.Marshal(in)
			}
		}
		if len(e.Meta) > 0 {
			m := make(map[string]string, len(e.Meta))
			for k, v := range e.Meta {
				m[k] = secrets.String(v)
			}
			e.Meta = m
		}
		out[i] = e
	}
	return out
}
