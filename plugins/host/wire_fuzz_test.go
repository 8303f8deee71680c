package host

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/helios-agents/helios/kernel"
)

// wirePoints are the points decodeHookOutput knows, and a custom one.
var wirePoints = []string{"session:start", "context:prepare", "tool:before", "turn:end", "context:compact", "custom:point"}

// FuzzDecodeHookOutput feeds arbitrary plugin results to the decoder of
// every standard point: it never panics, an error names the point, and a
// value it returns is what the point expects and keeps its rules (a
// compaction span is a valid range, replaced tool arguments are JSON).
func FuzzDecodeHookOutput(f *testing.F) {
	for i, seed := range []string{
		`"Release notes: load the release-notes skill first."`,
		`"Release notes: load the release-notes skill first."`,
		`{"deny":true,"reason":"tags are published"}`,
		`{"end":true}`,
		`{"from":2,"to":9,"summary":"The user asked for a changelog; three commits were read."}`,
		`{"any":["json",1,null]}`,
	} {
		f.Add(uint8(i), []byte(seed))
	}
	f.Add(uint8(2), []byte(`{"args":{"command":"ls"}}`))
	f.Add(uint8(4), []byte(`{"from":0,"to":-1}`))
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		point := wirePoints[int(which)%len(wirePoints)]
		v, err := decodeHookOutput(point, data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "decode "+point+" result: ") {
				t.Fatalf("error %q does not name the point", err)
			}
			return
		}
		switch point {
		case "session:start", "context:prepare":
			if _, ok := v.(string); !ok {
				t.Fatalf("%s result is %T", point, v)
			}
		case "tool:before":
			d, ok := v.(kernel.ToolDecision)
			if !ok {
				t.Fatalf("%s result is %T", point, v)
			}
			if len(d.Args) > 0 && !json.Valid(d.Args) {
				t.Fatalf("replaced arguments %q are not JSON", d.Args)
			}
		case "turn:end":
			if _, ok := v.(kernel.TurnDecision); !ok {
				t.Fatalf("%s result is %T", point, v)
			}
		case "context:compact":
			c, ok := v.(kernel.Compaction)
			if !ok {
				t.Fatalf("%s result is %T", point, v)
			}
			if c.From < 1 || c.To < c.From {
				t.Fatalf("compaction span [%d, %d] accepted", c.From, c.To)
			}
		default:
			raw, ok := v.(json.RawMessage)
			if !ok || !bytes.Equal(raw, data) {
				t.Fatalf("custom result %T %q, want the bytes as sent", v, v)
			}
		}
	})
}
