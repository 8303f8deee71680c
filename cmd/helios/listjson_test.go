package main

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/kernel/contract"
)

// jsonStrings are strings every escape of encoding/json meets.
var jsonStrings = []string{
	"", "pdf", "Fill PDF forms. Use when asked to.", `say "hi" \ there`, "a\nb\rc\td\be\ff", "\x00\x01\x1f\x7f",
	"<b>&amp;</b>", "技能 мой-навык é", "line\u2028sep\u2029para", "\xff\xfe bad \xe6\x8a", "\ufffd", "\U0010FFFF",
	"/home/user/.helios/skills/pdf/SKILL.md", "tail\\",
}

// Protects: `skills list --json` writes exactly what encoding/json with
// writeJSON's settings writes, for empty and full lists, every field set or
// left out, and strings that need every kind of escape.
func TestListJSONMatchesEncodingJSON(t *testing.T) {
	var many []skillJSON
	var warnings []contract.Warning
	for i, s := range jsonStrings {
		many = append(many, skillJSON{Name: s, Description: jsonStrings[(i+1)%len(jsonStrings)], Source: "user", BaseDir: s, File: s, DisableModelInvocation: i%2 == 0})
		warnings = append(warnings, contract.Warning{Source: s, Path: jsonStrings[(i+2)%len(jsonStrings)], Message: jsonStrings[(i+3)%len(jsonStrings)]})
	}
	for name, l := range map[string]listJSON{
		"empty":      {Complete: true, Skills: []skillJSON{}, Warnings: []contract.Warning{}},
		"nil":        {},
		"incomplete": {Skills: many[:1], Warnings: []contract.Warning{{Source: "user", Path: "/x", Message: "broken <file> & \"more\""}}},
		"many":       {Complete: true, Skills: many, Warnings: []contract.Warning{{Source: "a"}, {Source: "b", Path: "\u2028", Message: "\x00"}}},
		"warnings":   {Complete: true, Skills: many[:2], Warnings: warnings},
		"no skills":  {Skills: []skillJSON{}, Warnings: warnings},
	} {
		t.Run(name, func(t *testing.T) {
			var want, got bytes.Buffer
			require.NoError(t, writeJSON(&want, l))
			require.NoError(t, writeListJSON(&got, l))
			assert.Equal(t, want.String(), got.String())
		})
	}
}

// FuzzAppendJSONString holds appendJSONString to encoding/json's bytes for
// any string, valid UTF-8 or not.
func FuzzAppendJSONString(f *testing.F) {
	for _, s := range jsonStrings {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		require.NoError(t, enc.Encode(s))
		assert.Equal(t, want.String(), string(appendJSONString(nil, s))+"\n", "%q", s)
	})
}
