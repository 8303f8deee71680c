package sdk_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/helios-agents/helios/kernel/hookwire"
	"github.com/helios-agents/helios/plugins/sdk"
)

// echo returns a handler that hands its decoded payload back as the result.
func echo[In any](seen *any) func(context.Context, In) (In, bool, error) {
	return func(_ context.Context, in In) (In, bool, error) {
		*seen = in
		return in, true, nil
	}
}

// FuzzHookPayload feeds arbitrary payloads to the SDK's typed hooks, as a
// kernel (or anything on the other end of the socket) could send them:
// decoding never panics, a failure names the point, and a payload that
// decodes reaches the handler and survives a JSON round trip unchanged.
func FuzzHookPayload(f *testing.F) {
	for i, seed := range []string{
		`{"sessionId":"20261201-100000-ab12","workDir":"/home/me/proj"}`,
		`{"sessionId":"s","step":3,"skills":[{"name":"changelog","description":"Draft a changelog.","source":"project"}],"complete":true}`,
		`{"sessionId":"s","call":{"id":"call_1","name":"Bash","arguments":{"command":"git tag -d v1"}}}`,
		`{"sessionId":"s","step":2,"text":"Done.","toolCalls":[]}`,
		`{"sessionId":"s","viewBytes":500000,"budget":400000,"events":[{"seq":1,"type":"user","text":"hi"},{"seq":2,"type":"tool_use","toolName":"Bash","input":"{\"command\":\"ls\"}"}]}`,
	} {
		f.Add(uint8(i), []byte(seed))
	}
	f.Fuzz(func(t *testing.T, which uint8, payload []byte) {
		var seen any
		hooks := []sdk.Hook{
			sdk.SessionStart("", func(ctx context.Context, in hookwire.SessionStart) (string, bool, error) {
				seen = in
				return in.WorkDir, true, nil
			}),
			sdk.On("context:prepare", "", echo[hookwire.Prepare](&seen)),
			sdk.On("tool:before", "", echo[hookwire.ToolBefore](&seen)),
			sdk.On("turn:end", "", echo[hookwire.TurnEnd](&seen)),
			sdk.On("context:compact", "", echo[hookwire.Compact](&seen)),
		}
		h := hooks[int(which)%len(hooks)]
		out, handled, err := h.Handle(context.Background(), payload)
		if err != nil {
			if !strings.HasPrefix(err.Error(), h.Point+": decode payload: ") || handled || seen != nil {
				t.Fatalf("error %q (handled %v, handler called %v)", err, handled, seen != nil)
			}
			return
		}
		if !handled || seen == nil {
			t.Fatal("a payload that decodes did not reach the handler")
		}
		b, err := json.Marshal(out)
		if err != nil {
			t.Fatalf("the decoded payload does not encode: %v", err)
		}
		again := reflect.New(reflect.TypeOf(out))
		if err := json.Unmarshal(b, again.Interface()); err != nil {
			t.Fatalf("the re-encoded payload does not decode: %v\n%s", err, b)
		}
		b2, _ := json.Marshal(again.Elem().Interface())
		if string(b) != string(b2) {
			t.Fatalf("round trip changed the payload:\n%s\n%s", b, b2)
		}
	})
}
