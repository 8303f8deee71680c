package mcpclient

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/internal/mcptest"
	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/skills"
)

func TestToolName(t *testing.T) {
	long := strings.Repeat("long", 20)
	for _, tc := range []struct{ server, tool, want string }{
		{"gh", "create_issue", "mcp__gh__create_issue"},
		{"gh", "repos.list", "mcp__gh__repos_list"},
		{"fs", "read/file", "mcp__fs__read_file"},
		{"x", "ünï côdé", "mcp__x___n__c_d_"},
		{"my-server_2", "A-b_C", "mcp__my-server_2__A-b_C"},
	} {
		got := ToolName(tc.server, tc.tool)
		assert.Equal(t, tc.want, got, "%s/%s", tc.server, tc.tool)
		assert.True(t, skills.ValidToolName(got), "%q is a valid tool name", got)
	}
	a, b := ToolName("srv", long), ToolName("srv", long+"x")
	assert.Len(t, a, 64, "a long name is cut to 64")
	assert.True(t, skills.ValidToolName(a))
	assert.True(t, strings.HasPrefix(a, "mcp__srv__long"), "it keeps the namespace and the start of the name: %s", a)
	assert.NotEqual(t, a, b, "two long names that share their first 55 characters stay apart")
	assert.NotEqual(t, ToolName("a", long)[55:], ToolName("b", long)[55:], "the hash covers the server too")
}

// Both transports carry the same tools and results.
func TestToolsAndResults(t *testing.T) {
	for _, transport := range []string{"stdio", "http", "sse"} {
		t.Run(transport, func(t *testing.T) {
			sc := stdioServer("t")
			switch transport {
			case "http":
				sc, _ = httpServer(t, "t", false)
			case "sse":
				hs := httptest.NewServer(mcptest.New(false).SSEHandler())
				t.Cleanup(hs.Close)
				sc = ServerConfig{Name: "t", URL: hs.URL, SSE: true}
			}
			ss, logs := start(t, Config{}, sc)
			s := ss[0]
			assert.Equal(t, transport, s.Status().Transport)
			tools := toolsOf(t, s)

			for _, n := range []string{"mcp__t__echo", "mcp__t__image", "mcp__t__fail", "mcp__t__add", "mcp__t__dotted_name"} {
				assert.Contains(t, tools, n)
			}
			for n := range tools {
				assert.True(t, strings.HasPrefix(n, "mcp__t__"), "every tool is namespaced: %s", n)
				assert.True(t, skills.ValidToolName(n), "every name is valid for model APIs: %s", n)
			}
			assert.Contains(t, logs.String(), "two tools get the same name", "dotted.name and dotted_name collide: warned")
			assert.Equal(t, "dotted.name answered", call(t, s, "mcp__t__dotted_name", `{}`).Content, "the first of two colliding tools is kept")
			assert.JSONEq(t, `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"],"additionalProperties":false}`, string(tools["mcp__t__echo"].Schema), "the server's input schema")
			assert.Equal(t, &contract.ToolAnnotations{ReadOnly: true, OpenWorld: true}, tools["mcp__t__echo"].Annotations)
			assert.Equal(t, &contract.ToolAnnotations{Destructive: true}, tools["mcp__t__delete_everything"].Annotations)
			assert.Nil(t, tools["mcp__t__image"].Annotations, "no annotations given: none claimed")

			assert.Equal(t, contract.ToolResult{Content: "echo: hi"}, call(t, s, "mcp__t__echo", `{"text":"hi"}`))
			assert.Equal(t, contract.ToolResult{Content: "failed: boom", IsError: true}, call(t, s, "mcp__t__fail", `{"text":"boom"}`))
			assert.Equal(t, contract.ToolResult{Content: "here is a picture\n[image: image/png, 33 bytes]\n[audio: audio/wav, 12 bytes]\n[resource link: file:///tmp/picture.png (picture, image/png)]"},
				call(t, s, "mcp__t__image", `{}`))
			assert.Equal(t, contract.ToolResult{Content: `{"sum":5}`}, call(t, s, "mcp__t__add", `{"a":2,"b":3}`), "structured content once, not again beside its own text")
			assert.Equal(t, contract.ToolResult{Content: `{"answer":42}`}, call(t, s, "mcp__t__structured_only", `{}`), "structured content alone, as JSON")
			file := mcptest.FileText(20000)
			assert.Equal(t, contract.ToolResult{Content: file}, call(t, s, "mcp__t__read_text_file", `{"bytes":20000}`),
				"a file read as server-filesystem answers it (text, and {content: text} again): the 20000 bytes once, uncut")

			// C19: text from a server reaches the model with hidden characters
			// made visible, and the description's once with a warning.
			assert.Equal(t, `Look\u202eup\U000e0069\U000e0067\U000e006e a word.`, tools["mcp__t__hidden"].Description)
			assert.Contains(t, logs.String(), "a tool's description holds 4 hidden characters (the first U+202E, a bidi control)")
			assert.Equal(t, contract.ToolResult{Content: `found\u001b[2J it\u200b`}, call(t, s, "mcp__t__hidden", `{"text":"it"}`))

			res := call(t, s, "mcp__t__protocol_error", `{}`)
			assert.True(t, res.IsError)
			assert.Contains(t, res.Content, `MCP server "t" refused the call to mcp__t__protocol_error: no such widget`)

			res = call(t, s, "mcp__t__echo", `{"text": 5}`)
			assert.True(t, res.IsError, "arguments the server's schema refuses: an error result")
			assert.Contains(t, res.Content, `want "string"`, "the server's own words")

			res = call(t, s, "mcp__t__echo", `[1]`)
			assert.Equal(t, contract.ToolResult{Content: "mcp__t__echo takes a JSON object of arguments", IsError: true}, res)

			res = call(t, s, "mcp__t__big", `{"bytes":100000}`)
			assert.False(t, res.IsError)
			assert.Less(t, len(res.Content), DefaultMaxOutput+200)
			assert.Contains(t, res.Content, "70000 more bytes cut: the model gets at most 30000 bytes of a tool result (tools.maxOutput)")
		})
	}
}

// The structured content reaches the model only when no text part carries
// it: the same content twice costs the model's context and, cut, makes a
// whole answer read as truncated.
func TestStructuredContentOnce(t *testing.T) {
	file := "line one \"quoted\"\n\tline two\n"
	for _, tc := range []struct {
		name  string
		texts []string
		sc    any
		want  bool
	}{
		{"its JSON", []string{`{"sum": 5}`}, map[string]any{"sum": 5}, true},
		{"server-filesystem: the text again as content", []string{file}, map[string]any{"content": file}, true},
		{"every value in the text", []string{"Created issue 42: Fix the build (open)"}, map[string]any{"number": 42, "title": "Fix the build", "state": "open"}, true},
		{"values inside a JSON text, escaped there", []string{`{"graph": {"entities": [{"name": "a \"b\"", "observations": ["x\ny"]}]}}`},
			map[string]any{"entities": []any{map[string]any{"name": `a "b"`, "observations": []any{"x\ny"}}}}, true},
		{"one value missing", []string{"Created issue 42"}, map[string]any{"number": 42, "url": "https://example.com/42"}, false},
		{"a number inside a longer one", []string{"1423 results"}, map[string]any{"count": 42}, false},
		{"a word inside a longer one", []string{"reopened"}, map[string]any{"state": "open"}, false},
		{"a boolean not written", []string{"done"}, map[string]any{"ok": true}, false},
		{"no text part", nil, map[string]any{}, false},
	} {
		assert.Equal(t, tc.want, holds(tc.texts, tc.sc), tc.name)
	}

	// Looking thousands of strings up in a large text is bounded: past the
	// budget the structured content is sent, not searched for any longer.
	var lines []any
	var b strings.Builder
	for i := range 20000 {
		lines = append(lines, fmt.Sprintf("line number %d", i))
		fmt.Fprintf(&b, "line number %d\n", i)
	}
	text := b.String()
	assert.True(t, holds([]string{text}, map[string]any{"lines": lines[:10]}), "a few strings are looked for")
	assert.False(t, holds([]string{text}, map[string]any{"lines": lines}), "%d strings in %d bytes: past the budget", len(lines), len(text))
}

// Protects: a long server name (a plugin's plugin_<plugin>_<server>) is
// usable up to MaxServerName: each tool whose mcp__<server>__<tool> fits in
// 64 characters is kept, each other one is left out with a warning naming
// it, never the whole server, and no name is cut inside the namespace.
func TestLongServerNameKeepsToolsThatFit(t *testing.T) {
	assert.Equal(t, 56, MaxServerName)
	long := "plugin_" + strings.Repeat("p", 21) + "_" + strings.Repeat("s", 21) // 50 characters
	require.Len(t, long, 50)
	assert.Empty(t, ToolName(long, "delete_everything"), "74 characters, no room for a hash after the namespace")
	assert.Equal(t, "mcp__"+long+"__echo", ToolName(long, "echo"))
	assert.Len(t, ToolName(strings.Repeat("s", 47), strings.Repeat("t", 30)), 64, "up to 47 characters a long tool name is still shortened with a hash")
	assert.Empty(t, ToolName(strings.Repeat("s", 48), strings.Repeat("t", 30)))
	require.NoError(t, ServerConfig{Name: strings.Repeat("n", 56), Command: "x"}.Check())

	ss, logs := start(t, Config{}, stdioServer(long))
	tools := toolsOf(t, ss[0])
	for _, n := range []string{"echo", "add", "fail", "image"} {
		assert.Contains(t, tools, "mcp__"+long+"__"+n)
	}
	for n := range tools {
		assert.True(t, strings.HasPrefix(n, "mcp__"+long+"__"), "the namespace is whole: %s", n)
		assert.LessOrEqual(t, len(n), 64, n)
	}
	assert.NotContains(t, tools, "mcp__"+long+"__delete_everything")
	assert.Contains(t, logs.String(), `tool \"delete_everything\" left out: mcp__`+long+`__delete_everything is over 64 characters`)
	assert.Equal(t, "echo: hi", call(t, ss[0], "mcp__"+long+"__echo", `{"text":"hi"}`).Content)
}
