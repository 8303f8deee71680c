package sdk_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/helios-agents/helios/plugins/sdk"
)

// shoutArgs are the shout tool's arguments: the struct is the schema the
// model sees.
type shoutArgs struct {
	Text  string `json:"text" jsonschema:"What to shout."`
	Times *int   `json:"times,omitempty" jsonschema:"How many times. Default 1."`
}

// NewTool derives the schema from the argument struct and decodes the
// model's arguments into it; a missing or mistyped argument is a result
// naming it.
func ExampleNewTool() {
	shout := sdk.NewTool("shout", "Shouts the text.", func(_ context.Context, in shoutArgs) (sdk.ToolResult, error) {
		n := 1
		if in.Times != nil {
			n = *in.Times
		}
		return sdk.ToolResult{Content: strings.Repeat(strings.ToUpper(in.Text)+"!", n)}, nil
	}, func(s *sdk.Schema) {
		s.Properties["times"].Minimum = new(1.0)
	})
	fmt.Println(string(shout.Schema))
	for _, args := range []string{`{"text": "hi", "times": 2}`, `{"times": 2}`, `{"text": 5}`} {
		res, _ := shout.Call(context.Background(), json.RawMessage(args))
		fmt.Println(res.IsError, res.Content)
	}
	// Output:
	// {"type":"object","properties":{"text":{"type":"string","description":"What to shout."},"times":{"type":"integer","description":"How many times. Default 1.","minimum":1}},"required":["text"],"additionalProperties":false}
	// false HI!HI!
	// true invalid arguments: missing required argument "text"; shout takes {"text": string, "times"?: integer}
	// true invalid arguments: "text" must be a string, not number; shout takes {"text": string, "times"?: integer}
}
