package main

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPermissionsCheck(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	cfg := filepath.Join(dir, "helios.config.json")
	writeFile(t, cfg, `{"permissions": {"deny": ["Bash(rm:*)"], "ask": ["Bash(git push:*)"], "allow": ["Bash(git status:*)"]}}`)
	writeFile(t, filepath.Join(home, ".helios", "settings.json"), `{"model": "x", "permissions": {"deny": ["Read(./secret)"]}}`)

	r := helios(t, home, dir, "--config", cfg, "permissions", "check", "Bash(git status && rm -rf /)")
	assert.Equal(t, exitDeny, r.code, r.stderr)
	assert.Contains(t, r.stdout, "decision  deny")
	assert.Contains(t, r.stdout, "rule      Bash(rm:*)")
	assert.Contains(t, r.stdout, "list      deny")

	r = helios(t, home, dir, "--config", cfg, "permissions", "check", "Bash(git push origin main)")
	assert.Equal(t, exitAsk, r.code, r.stderr)

	r = helios(t, home, dir, "--config", cfg, "--json", "permissions", "check", `{"tool":"Bash","input":{"command":"git status"}}`)
	require.Equal(t, exitOK, r.code, r.stderr)
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &got))
	assert.Equal(t, "allow", got["decision"])
	assert.Equal(t, "Bash(git status:*)", got["rule"])
	assert.Equal(t, "allow", got["list"])

	// The user's rules apply, "./" anchored at ~/.helios.
	r = helios(t, home, dir, "--config", cfg, "permissions", "check", "Read("+filepath.Join(home, ".helios", "secret")+")")
	assert.Equal(t, exitDeny, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "settings.json")
	// Grep(path) is a Grep of that path, which Read rules cover.
	r = helios(t, home, dir, "--config", cfg, "permissions", "check", "Grep("+filepath.Join(home, ".helios", "secret")+")")
	assert.Equal(t, exitDeny, r.code, r.stdout+r.stderr)

	r = helios(t, home, dir, "--config", cfg, "permissions", "check", "--allowed-tools", "Bash(git push:*)", "Bash(git push)")
	assert.Equal(t, exitOK, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "allowed-tools")

	r = helios(t, home, dir, "--config", cfg, "permissions", "check", "Bash(ls")
	assert.Equal(t, exitUsage, r.code)
}

func TestPermissionsCheckBadRuleNamesPath(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	cfg := filepath.Join(dir, "helios.config.json")
	writeFile(t, cfg, `{"permissions": {"allow": ["Bash(ls:*)", "Bash(rm"]}}`)
	r := helios(t, home, dir, "--config", cfg, "permissions", "check", "Bash(ls)")
	assert.NotEqual(t, exitOK, r.code)
	assert.Contains(t, r.stderr, `permissions.allow[1] "Bash(rm": column 5`)
}
