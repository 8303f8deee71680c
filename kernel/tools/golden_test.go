package tools_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/kernel/modeltext/modeltexttest"
	"github.com/helios-agents/helios/kernel/tools"
	"github.com/helios-agents/helios/sandbox"
	"github.com/helios-agents/helios/workfs"
)

// What the model reads of the builtin tools — each description and each
// schema — is checked against testdata/golden: a wording change is a
// reviewed diff (go test ./kernel/tools -run TestModelTextGolden -update).
// The sandbox is off here, so the text does not depend on the machine; its
// sentence is checked in sandbox.
func TestModelTextGolden(t *testing.T) {
	fsys, err := workfs.New(t.TempDir())
	require.NoError(t, err)
	defer fsys.Close()
	set, err := tools.New(tools.Config{FS: fsys, Shell: "sh", Sandbox: sandbox.Config{Mode: sandbox.Off}})
	require.NoError(t, err)
	texts := map[string]string{}
	for _, tl := range set.Tools() {
		texts[tl.Name] = tl.Description
		var b bytes.Buffer
		require.NoError(t, json.Indent(&b, tl.Schema, "", "  "), "%s: schema", tl.Name)
		texts[tl.Name+".schema"] = b.String()
	}
	modeltexttest.Check(t, texts)
}
