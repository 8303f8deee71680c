package contract_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/kernel/contract"
)

type noteArgs struct {
	Title string   `json:"title" jsonschema:"The note's title."`
	Body  string   `json:"body,omitempty" jsonschema:"The note's text."`
	Stars *int     `json:"stars,omitempty" jsonschema:"How good it is."`
	Tags  []string `json:"tags,omitempty"`
	Draft bool     `json:"draft,omitempty"`
}

// noteTool echoes its arguments, so a test sees what call got.
func noteTool(t *testing.T, refine ...func(*jsonschema.Schema)) contract.Tool {
	t.Helper()
	return contract.NewTool("note", "Takes a note.", func(_ context.Context, in noteArgs) (contract.ToolResult, error) {
		out, err := json.Marshal(in)
		return contract.ToolResult{Content: string(out)}, err
	}, refine...)
}

// The schema the model sees is the argument struct's: required unless
// omitempty, described by the jsonschema tag, pointers and slices as their
// plain type, nothing else allowed; refine adds what a type cannot say.
func TestNewToolSchemaIsTheStruct(t *testing.T) {
	tool := noteTool(t, func(s *jsonschema.Schema) { s.Properties["stars"].Maximum = jsonschema.Ptr(5.0) })
	assert.Equal(t, "note", tool.Name)
	assert.Equal(t, "Takes a note.", tool.Description)
	assert.JSONEq(t, `{
	  "type": "object",
	  "properties": {
	    "title": {"type": "string", "description": "The note's title."},
	    "body": {"type": "string", "description": "The note's text."},
	    "stars": {"type": "integer", "description": "How good it is.", "maximum": 5},
	    "tags": {"type": "array", "items": {"type": "string"}},
	    "draft": {"type": "boolean"}
	  },
	  "required": ["title"],
	  "additionalProperties": false
	}`, string(tool.Schema))
}

func TestNewToolWithoutArguments(t *testing.T) {
	tool := contract.NewTool("ping", "Pings.", func(context.Context, struct{}) (contract.ToolResult, error) {
		return contract.ToolResult{Content: "pong"}, nil
	})
	assert.JSONEq(t, `{"type":"object","properties":{},"additionalProperties":false}`, string(tool.Schema))
	res, err := tool.Call(context.Background(), nil)
	require.NoError(t, err)
	assert.Equal(t, "pong", res.Content)
}

// What the model can correct is a result naming the argument, and the
// tool's function does not run; fields the schema does not declare are
// ignored.
func TestNewToolDecodesArguments(t *testing.T) {
	tests := []struct {
		name, args string
		want       string
		isError    bool
	}{
		{"all", `{"title": "t", "body": "b", "stars": 4, "tags": ["x"], "draft": true}`, `{"title":"t","body":"b","stars":4,"tags":["x"],"draft":true}`, false},
		{"optional absent", `{"title": "t"}`, `{"title":"t"}`, false},
		{"optional null", `{"title": "t", "stars": null}`, `{"title":"t"}`, false},
		{"unknown field ignored", `{"title": "t", "description": "why"}`, `{"title":"t"}`, false},
		{"not an object", `["t"]`, "invalid arguments: not a JSON object", true},
		{"not JSON", `title`, "invalid arguments: not a JSON object", true},
		{"empty", ``, `invalid arguments: missing required argument "title"`, true},
		{"required missing", `{"body": "b"}`, `invalid arguments: missing required argument "title"`, true},
		{"required null", `{"title": null}`, `invalid arguments: missing required argument "title"`, true},
		{"wrong type", `{"title": 5}`, `invalid arguments: "title" must be a string, not number`, true},
		{"wrong type integer", `{"title": "t", "stars": "many"}`, `invalid arguments: "stars" must be an integer, not string`, true},
		{"fraction for integer", `{"title": "t", "stars": 1.5}`, `invalid arguments: "stars" must be an integer, not number`, true},
		{"wrong type array", `{"title": "t", "tags": "x"}`, `invalid arguments: "tags" must be an array, not string`, true},
		{"wrong type boolean", `{"title": "t", "draft": "yes"}`, `invalid arguments: "draft" must be a boolean, not string`, true},
		// Every such result ends with the arguments' shape, so the model
		// can send them right the next time.
		{"shape", `{}`, `missing required argument "title"; note takes {"title": string, "body"?: string, "stars"?: integer, "tags"?: array, "draft"?: boolean}`, true},
	}
	tool := noteTool(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := tool.Call(context.Background(), json.RawMessage(tt.args))
			require.NoError(t, err)
			assert.Equal(t, tt.isError, res.IsError, "result %+v", res)
			if tt.isError {
				assert.Contains(t, res.Content, tt.want)
			} else {
				assert.JSONEq(t, tt.want, res.Content)
			}
		})
	}
}

// A context already done is the one Go error, and the function does not
// run.
func TestNewToolDoneContext(t *testing.T) {
	ran := false
	tool := contract.NewTool("note", "Takes a note.", func(context.Context, noteArgs) (contract.ToolResult, error) {
		ran = true
		return contract.ToolResult{}, nil
	})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := tool.Call(ctx, json.RawMessage(`{"title": "t"}`))
	assert.ErrorIs(t, err, context.Canceled)
	assert.ErrorContains(t, err, "tool note")
	assert.False(t, ran, "the tool ran on a done context")
}

// A type with no JSON schema, or a refinement that breaks the schema, is a
// programming error found when the tool is built.
func TestNewToolPanicsOnBadTypes(t *testing.T) {
	call := func(context.Context, string) (contract.ToolResult, error) { return contract.ToolResult{}, nil }
	assert.PanicsWithValue(t, "new tool s: arguments type string is not a struct", func() { contract.NewTool("s", "", call) })
	type withChan struct {
		C chan int `json:"c"`
	}
	assert.Panics(t, func() {
		contract.NewTool("c", "", func(context.Context, withChan) (contract.ToolResult, error) { return contract.ToolResult{}, nil })
	})
	assert.Panics(t, func() {
		noteTool(t, func(s *jsonschema.Schema) { s.Properties["draft"].Default = json.RawMessage(`"no"`) })
	}, "a default that does not match its type")
}

func TestSchemaForIsNewToolsSchema(t *testing.T) {
	refine := func(s *jsonschema.Schema) { s.Properties["title"].MinLength = jsonschema.Ptr(1) }
	assert.JSONEq(t, string(noteTool(t, refine).Schema), string(contract.SchemaFor[noteArgs](refine)))
	assert.Panics(t, func() { contract.SchemaFor[int]() })
}
