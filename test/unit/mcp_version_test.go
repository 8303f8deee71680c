package unit_test

import (
	"context"
	"debug/buildinfo"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// `helios --version` and the MCP server's serverInfo.version say the same
// thing, taken from the build (issue 22; the server used to say "dev"):
// the module version, else the commit of the checkout it was built from
// (with +dirty for uncommitted changes), else "(devel)" for a build
// without VCS information.
func TestVersionFromBuild(t *testing.T) {
	home := t.TempDir()
	r := helios(t, home, t.TempDir(), "--version")
	require.Equal(t, 0, r.code, r.stderr)
	v, ok := strings.CutPrefix(strings.TrimSuffix(r.stdout, "\n"), "helios version ")
	require.True(t, ok, "stdout: %q", r.stdout)

	bi, err := buildinfo.ReadFile(heliosBin())
	require.NoError(t, err)
	settings := map[string]string{}
	for _, s := range bi.Settings {
		settings[s.Key] = s.Value
	}
	switch rev := settings["vcs.revision"]; {
	case bi.Main.Version != "" && bi.Main.Version != "(devel)":
		assert.Equal(t, bi.Main.Version, v)
	case rev != "":
		assert.Contains(t, v, rev[:12])
		assert.Equal(t, settings["vcs.modified"] == "true", strings.HasSuffix(v, "+dirty"), v)
	default:
		assert.Equal(t, "(devel)", v)
	}

	cmd := exec.Command(heliosBin(), "--work-dir", t.TempDir(), "mcp")
	cmd.Env = append(os.Environ(), "HOME="+home)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	require.NoError(t, err)
	defer cs.Close()
	info := cs.InitializeResult().ServerInfo
	assert.Equal(t, "helios", info.Name)
	assert.Equal(t, v, info.Version)
}
