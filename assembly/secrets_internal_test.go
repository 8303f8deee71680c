package assembly

import (
	"testing"

	"github.com/helios-agents/helios/caps/cmdhooks"
	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/sandbox"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The secrets the config names are read from the variables it names: the
// model key, the database password, and an MCP server's bearer token, the
// variables its env and headers use, and a credential header's literal
// value; nothing else (an Accept header, a command) is taken for one.
func TestConfigSecrets(t *testing.T) {
	t.Setenv("HELIOS_API_KEY", "sk-model-key")
	t.Setenv("PGURL", "postgres://u:db-password@h/db")
	t.Setenv("GH_TOKEN", "gh-token-value")
	t.Setenv("NOTION_KEY", "notion-key-value")
	t.Setenv("BEARER", "bearer-value")
	cfg := Config{
		Sessions: SessionsConfig{Store: "postgres", Postgres: PostgresConfig{URLEnv: "PGURL"}},
		MCP: MCPConfig{Servers: map[string]MCPServerConfig{
			"gh":     {Command: "gh-mcp", Env: map[string]string{"GITHUB_TOKEN": "${GH_TOKEN}"}},
			"notion": {URL: "https://notion.example/mcp", Headers: map[string]string{"X-Api-Key": "${NOTION_KEY}", "Accept": "application/json"}},
			"http":   {URL: "https://x.example/mcp", BearerTokenEnv: "BEARER"},
			"lit":    {URL: "https://y.example/mcp", Headers: map[string]string{"Authorization": "Bearer literal-token"}},
		}},
	}
	got := configSecrets(cfg)
	assert.ElementsMatch(t, []string{"sk-model-key", "db-password", "gh-token-value", "notion-key-value", "bearer-value", "literal-token"}, got)
}

// The variables hooks never inherit are those the config reads a secret
// from: the model key's, the database URL's, an MCP server's bearer token
// and the variables its env and headers use.
func TestSecretEnvNames(t *testing.T) {
	key := "MY_MODEL_KEY"
	cfg := Config{
		Model:    ModelConfig{APIKeyEnv: &key},
		Sessions: SessionsConfig{Postgres: PostgresConfig{URLEnv: "PGURL"}},
		MCP: MCPConfig{Servers: map[string]MCPServerConfig{
			"gh":     {Command: "gh-mcp", Env: map[string]string{"GITHUB_TOKEN": "${GH_TOKEN}"}},
			"notion": {URL: "https://notion.example/mcp", Headers: map[string]string{"X-Api-Key": "${NOTION_KEY}", "Accept": "application/json"}},
			"http":   {URL: "https://x.example/mcp", BearerTokenEnv: "BEARER"},
		}},
	}
	assert.ElementsMatch(t, []string{"MY_MODEL_KEY", "PGURL", "GH_TOKEN", "NOTION_KEY", "BEARER"}, secretEnvNames(cfg))
}

// A session's CLAUDE_ENV_FILE lies beside its state, and never where the
// model's commands may write: a sessions.dir in the work dir means none,
// with a warning.
func TestEnvFiles(t *testing.T) {
	hooks := Config{Hooks: map[string][]cmdhooks.Group{"SessionStart": {{Hooks: []cmdhooks.Command{{Type: "command", Command: "true"}}}}}}
	work := t.TempDir()

	cfg := hooks
	cfg.Sessions.Dir = "/state/sessions"
	f := envFiles(cfg, work, work, sandbox.Config{}, Options{})
	require.NotNil(t, f)
	assert.Equal(t, "/state/sessions/env/s1.sh", f("s1"))
	assert.Empty(t, f("../s1"), "an id that is no file name")
	assert.Nil(t, envFiles(Config{}, work, work, sandbox.Config{}, Options{}), "no hooks, no env file")

	var warns []contract.Warning
	cfg.Sessions.Dir = "sessions" // in the work dir
	assert.Nil(t, envFiles(cfg, work, work, sandbox.Config{}, Options{OnWarning: func(w contract.Warning) { warns = append(warns, w) }}))
	require.Len(t, warns, 1)
	assert.Equal(t, "sessions.dir", warns[0].Path)
	assert.Contains(t, warns[0].Message, "which the model's commands may write")
}
