package mcpserver

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/kernel/modeltext/modeltexttest"
	"github.com/helios-agents/helios/kernel/skills"
)

// What a client's model reads of this server — the tools' descriptions and
// schemas, the instructions — is checked against testdata/golden: a
// wording change is a reviewed diff (go test ./mcpserver -run
// TestModelTextGolden -update).
func TestModelTextGolden(t *testing.T) {
	ss := []skills.Skill{
		{Name: "pdf-forms", Description: "Fill in PDF forms.", Source: "project", BaseDir: "/p/pdf-forms"},
		{Name: "deploy", Description: "Deploy the service to kubernetes.", Source: "user", BaseDir: "/u/deploy"},
	}
	texts := map[string]string{
		"skill":            skillToolDescription(skills.Catalog{Skills: ss, Complete: true}, skills.Budget{}),
		"skill.incomplete": skillToolDescription(skills.Catalog{Skills: ss}, skills.Budget{}),
		"skill.omitted":    skillToolDescription(skills.Catalog{Skills: ss, Complete: true}, skills.Budget{Chars: 1}),
		"skill_search":     skills.SearchToolDescription(),
		"skill_resource":   resourceToolDescription,
		"instructions":     instructions,
	}
	for name, schema := range map[string]json.RawMessage{"skill": skillSchema(), "skill_search": searchSchema(), "skill_resource": resourceSchema()} {
		var b bytes.Buffer
		require.NoError(t, json.Indent(&b, schema, "", "  "), "%s: schema", name)
		texts[name+".schema"] = b.String()
	}
	modeltexttest.Check(t, texts)
}
