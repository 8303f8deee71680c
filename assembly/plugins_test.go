package assembly_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/assembly"
	"github.com/helios-agents/helios/plugins/host"
)

// The "plugins" key decodes strictly, and its mistakes name their JSON path.
func TestPluginConfig(t *testing.T) {
	cfg, err := assembly.ParseConfig("c.json", []byte(`{"plugins": [{"name": "n", "command": "bin/p", "args": ["-v"],
		"env": {"B": "2", "A": "1"}, "sha256": "ab", "startTimeout": "2s", "callTimeout": "500ms"}]}`))
	require.NoError(t, err)
	hcs, err := assembly.PluginHostConfigs(cfg, "/etc/helios", nil)
	require.NoError(t, err)
	want := host.Config{Name: "n", Command: "/etc/helios/bin/p", Args: []string{"-v"}, Env: []string{"A=1", "B=2"},
		SHA256: "ab", StartTimeout: 2 * time.Second, CallTimeout: 500 * time.Millisecond}
	assert.Empty(t, cmp.Diff([]host.Config{want}, hcs))
	for _, tt := range []struct{ config, want string }{
		{`{"plugins": [{"name": "n", "command": "p", "sha": "x"}]}`, "plugins[0].sha: unknown key"},
		{`{"plugins": [{"name": "n", "command": "p", "callTimeout": 5}]}`, "plugins[0].callTimeout: a duration must be a string"},
		{`{"plugins": [{"command": "p"}]}`, "plugins[0].name: missing"},
		{`{"plugins": [{"name": "n"}]}`, "plugins[0].command: missing"},
		{`{"plugins": [{"name": "n", "command": "p"}, {"name": "n", "command": "q"}]}`, `plugins[1].name: "n" is configured twice`},
	} {
		cfg, err := assembly.ParseConfig("c.json", []byte(tt.config))
		if err == nil {
			_, err = assembly.PluginHostConfigs(cfg, "/", nil)
		}
		assert.ErrorContains(t, err, tt.want, "%s", tt.config)
	}
}
