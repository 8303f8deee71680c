package assembly

import (
	"testing"

	"github.com/stretchr/testify/assert"
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
