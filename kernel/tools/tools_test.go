package tools_test

import (
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/helios-agents/helios/kernel/tools"
	"github.com/helios-agents/helios/workfs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNewRejectsBadConfig(t *testing.T) {
	fsys, err := workfs.New(t.TempDir())
	require.NoError(t, err)
	defer fsys.Close()
	tests := []struct {
		name string
		cfg  tools.Config
		want string
	}{
		{"no FS", tools.Config{}, "Config.FS is required"},
		{"negative timeout", tools.Config{FS: fsys, BashTimeout: -time.Second}, "negative"},
		{"negative output", tools.Config{FS: fsys, MaxOutput: -1}, "negative"},
		{"timeout above max", tools.Config{FS: fsys, BashTimeout: time.Hour}, "exceeds MaxBashTimeout"},
		{"unknown shell", tools.Config{FS: fsys, Shell: "no-such-shell-helios"}, "no-such-shell-helios"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set, err := tools.New(tt.cfg)
			require.ErrorContains(t, err, tt.want, "New = %v, %v; want an error containing %q", set, err, tt.want)
		})
	}
}

// schema is the part of a tool's JSON Schema the model relies on.
type schema struct {
	Type                 string
	Properties           map[string]struct{ Type string }
	Required             []string
	AdditionalProperties *bool
}

func TestToolsOrderAndSchemas(t *testing.T) {
	fsys, err := workfs.New(t.TempDir())
	require.NoError(t, err)
	defer fsys.Close()
	set, err := tools.New(tools.Config{FS: fsys})
	require.NoError(t, err)
	type want struct {
		Name     string
		Props    map[string]string
		Required []string
	}
	wants := []want{
		{"Bash", map[string]string{"command": "string", "timeout_seconds": "integer"}, []string{"command"}},
		{"Glob", map[string]string{"pattern": "string"}, []string{"pattern"}},
		{"Read", map[string]string{"path": "string", "offset": "integer", "limit": "integer"}, []string{"path"}},
		{"Write", map[string]string{"path": "string", "content": "string"}, []string{"path", "content"}},
		{"Edit", map[string]string{"path": "string", "old_string": "string", "new_string": "string", "replace_all": "boolean"},
			[]string{"path", "old_string", "new_string"}},
		{"Grep", map[string]string{"pattern": "string", "path": "string", "glob": "string", "type": "string", "output_mode": "string",
			"-i": "boolean", "-n": "boolean", "-A": "integer", "-B": "integer", "-C": "integer", "head_limit": "integer", "multiline": "boolean"},
			[]string{"pattern"}},
	}
	var got []want
	for _, tool := range set.Tools() {
		assert.GreaterOrEqual(t, len(tool.Description), 100, "%s: description %q is too thin to guide a model", tool.Name, tool.Description)
		var s schema
		require.NoError(t, json.Unmarshal(tool.Schema, &s), "%s: schema is not JSON", tool.Name)
		assert.Equal(t, "object", s.Type, "%s: schema type", tool.Name)
		if assert.NotNil(t, s.AdditionalProperties, "%s: schema must forbid extra properties", tool.Name) {
			assert.False(t, *s.AdditionalProperties, "%s: schema must forbid extra properties", tool.Name)
		}
		w := want{Name: tool.Name, Props: map[string]string{}, Required: s.Required}
		for name, p := range s.Properties {
			w.Props[name] = p.Type
		}
		got = append(got, w)
	}
	assert.Empty(t, cmp.Diff(wants, got), "tools (-want +got)")
}

// The timeout bounds reach the model through Bash's schema.
func TestBashSchemaTimeoutBounds(t *testing.T) {
	tests := []struct {
		name        string
		cfg         tools.Config
		wantMax     int
		wantDefault string
	}{
		{"defaults", tools.Config{}, 600, "Default 120;"},
		{"max below the default timeout", tools.Config{MaxBashTimeout: time.Minute}, 60, "Default 60;"},
		{"both set", tools.Config{BashTimeout: 5 * time.Second, MaxBashTimeout: 30 * time.Second}, 30, "Default 5;"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, tt.cfg)
			var s struct {
				Properties struct {
					Timeout struct {
						Maximum     int
						Description string
					} `json:"timeout_seconds"`
				}
			}
			require.NoError(t, json.Unmarshal(e.tools["Bash"].Schema, &s))
			assert.Equal(t, tt.wantMax, s.Properties.Timeout.Maximum, "timeout_seconds: maximum %d, description %q; want maximum %d and %q", s.Properties.Timeout.Maximum, s.Properties.Timeout.Description, tt.wantMax, tt.wantDefault)
			assert.Contains(t, s.Properties.Timeout.Description, tt.wantDefault, "timeout_seconds: maximum %d, description %q; want maximum %d and %q", s.Properties.Timeout.Maximum, s.Properties.Timeout.Description, tt.wantMax, tt.wantDefault)
		})
	}
}

func TestBadArgumentsAreToolResults(t *testing.T) {
	tests := []struct {
		tool string
		args string
		want string
	}{
		{"Bash", `not json`, "not a JSON object"},
		{"Bash", `["echo hi"]`, "not a JSON object"},
		{"Bash", `{}`, `missing required argument "command"`},
		{"Bash", ``, `missing required argument "command"`},
		{"Bash", `{"command": null}`, `missing required argument "command"`},
		{"Bash", `{"command": 5}`, `"command" must be a string, not number`},
		{"Bash", `{"command": "  "}`, `"command" is empty`},
		{"Bash", `{"command": "true", "timeout_seconds": 1.5}`, `"timeout_seconds" must be an integer`},
		{"Bash", `{"command": "true", "timeout_seconds": "5"}`, `"timeout_seconds" must be an integer, not string`},
		{"Bash", `{"command": "true", "timeout_seconds": 0}`, `"timeout_seconds" must be at least 1`},
		{"Glob", `{}`, `missing required argument "pattern"`},
		{"Glob", `{"pattern": ["*"]}`, `"pattern" must be a string, not array`},
		{"Glob", `{"pattern": ""}`, `"pattern" is empty`},
		{"Read", `{"offset": 1}`, `missing required argument "path"`},
		{"Read", `{"path": ""}`, `"path" is empty`},
		{"Read", `{"path": "a.txt", "offset": 0}`, `"offset" must be at least 1`},
		{"Read", `{"path": "a.txt", "limit": -1}`, `"limit" must be at least 1`},
		{"Read", `{"path": "a.txt", "limit": "all"}`, `"limit" must be an integer, not string`},
		{"Write", `{}`, `missing required arguments "path", "content"`},
		{"Write", `{"path": "new.txt"}`, `missing required argument "content"`},
		{"Write", `{"path": "new.txt", "content": 5}`, `"content" must be a string, not number`},
		{"Write", `{"path": "", "content": "x"}`, `"path" is empty`},
		{"Edit", `{"path": "a.txt"}`, `missing required arguments "old_string", "new_string"`},
		{"Edit", `{"path": "a.txt", "old_string": "a", "new_string": "b", "replace_all": "yes"}`, `"replace_all" must be a boolean, not string`},
		{"Edit", `{"path": "a.txt", "old_string": "", "new_string": "b"}`, `"old_string" is empty`},
		{"Edit", `{"path": "a.txt", "old_string": "alpha", "new_string": "alpha"}`, "old_string and new_string are the same"},
		{"Edit", `{"path": "", "old_string": "a", "new_string": "b"}`, `"path" is empty`},
		{"Grep", `{}`, `missing required argument "pattern"`},
		{"Grep", `{"pattern": ""}`, `"pattern" is empty`},
		{"Grep", `{"pattern": "a", "-A": -1}`, `"-A" must not be negative`},
		{"Grep", `{"pattern": "a", "output_mode": "lines"}`, `"output_mode" is "lines"`},
		{"Grep", `{"pattern": "a", "-i": "yes"}`, `"-i" must be a boolean, not string`},
	}
	e := newEnv(t, tools.Config{})
	mkfile(t, e.path("a.txt"), "alpha\n")
	for _, tt := range tests {
		t.Run(tt.tool+" "+tt.args, func(t *testing.T) {
			res := e.call(t, tt.tool, tt.args)
			assert.True(t, res.IsError, "got %+v; want IsError with %q", res, tt.want)
			assert.Contains(t, res.Content, tt.want, "got %+v; want IsError with %q", res, tt.want)
		})
	}
	got := readFile(t, e.path("a.txt"))
	assert.Equal(t, "alpha\n", got, "a.txt = %q after failed calls; want it unchanged", got)
	_, err := os.Stat(e.path("new.txt"))
	assert.ErrorIs(t, err, os.ErrNotExist, "new.txt exists after failed Writes (stat)")
	assert.Empty(t, e.writes.got(), "OnWrite called after failed calls")
}

// A model that adds a field the tool does not know (many were trained on
// tools with a "description") must not lose the call over it.
func TestUnknownArgumentsAreIgnored(t *testing.T) {
	e := newEnv(t, tools.Config{})
	res := e.call(t, "Bash", m{"command": "echo hi", "description": "say hi"})
	assert.Empty(t, cmp.Diff("hi\n", res.Content), "content (-want +got)")
	assert.False(t, res.IsError, "IsError")
}

// A context already done is the one Go error, and the tool does nothing.
func TestDoneContextIsGoError(t *testing.T) {
	e := newEnv(t, tools.Config{})
	mkfile(t, e.path("a.txt"), "alpha\n")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	calls := []struct {
		tool string
		args m
	}{
		{"Bash", m{"command": "touch ran"}},
		{"Glob", m{"pattern": "*"}},
		{"Read", m{"path": "a.txt"}},
		{"Write", m{"path": "new.txt", "content": "x"}},
		{"Edit", m{"path": "a.txt", "old_string": "alpha", "new_string": "beta"}},
	}
	for _, c := range calls {
		t.Run(c.tool, func(t *testing.T) {
			res, err := e.callCtx(ctx, t, c.tool, c.args)
			assert.ErrorIs(t, err, context.Canceled, "got %+v; want a Go error wrapping context.Canceled", res)
		})
	}
	for _, name := range []string{"ran", "new.txt"} {
		_, err := os.Stat(e.path(name))
		assert.ErrorIs(t, err, os.ErrNotExist, "%s exists: a tool ran on a done context", name)
	}
	assert.Equal(t, "alpha\n", readFile(t, e.path("a.txt")), "a.txt; want it unchanged")
	got := e.writes.got()
	assert.Empty(t, got, "OnWrite called with %q", got)
}
