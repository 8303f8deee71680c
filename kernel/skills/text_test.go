package skills_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/modeltext/modeltexttest"
	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/kernel/skills/catalog"
)

// What the model reads of skills — the tools, the catalog message's frame,
// search answers, the load text — is checked against testdata/golden: a
// wording change is a reviewed diff (go test ./kernel/skills -run
// TestModelTextGolden -update).
func TestModelTextGolden(t *testing.T) {
	ss := []skills.Skill{
		{Name: "pdf-forms", Description: "Fill in PDF forms.", Source: "project", BaseDir: "/p/pdf-forms"},
		{Name: "deploy", Description: "Deploy the service to kubernetes.", Source: "user", BaseDir: "/u/deploy"},
	}
	texts := map[string]string{}
	add := func(prefix string, tools []contract.Tool) {
		for _, tl := range tools {
			var b bytes.Buffer
			require.NoError(t, json.Indent(&b, tl.Schema, "", "  "), "%s: schema", tl.Name)
			texts[prefix+tl.Name] = tl.Description
			texts[prefix+tl.Name+".schema"] = b.String()
		}
	}
	catalogTools, _ := skills.ToSkillTools(skills.Catalog{Skills: ss}, skills.ModeCatalog, skills.Budget{})
	add("catalog.", catalogTools)
	toolsMode, _ := skills.ToSkillTools(skills.Catalog{Skills: ss[:1]}, skills.ModeTools, skills.Budget{})
	add("tools.", toolsMode)
	texts["catalog.message"] = catalog.Render(ss, skills.Budget{}, catalog.MessageFrame()).Message
	texts["catalog.message.omitted"] = catalog.Render(ss, skills.Budget{Chars: 1}, catalog.MessageFrame()).Message
	texts["catalog.message.empty"] = catalog.Render(nil, skills.Budget{}, catalog.MessageFrame()).Message
	cat := skills.Catalog{Skills: ss, Complete: true}
	var err error
	texts["search.result"], err = skills.SearchText(cat, "fill pdf forms")
	require.NoError(t, err)
	texts["search.none"], err = skills.SearchText(cat, "quantum chemistry")
	require.NoError(t, err)
	loaded := skills.Skill{Name: "pdf-forms", BaseDir: "/home/me/my skills/pdf-forms", Load: func(context.Context) (skills.Content, error) {
		return skills.Content{Body: "# PDF forms\n\nRun scripts/fill.py.\n"}, nil
	}}
	texts["load"], err = skills.Load(context.Background(), loaded)
	require.NoError(t, err)
	modeltexttest.Check(t, texts)
}
