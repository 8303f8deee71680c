package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestContextJSON(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	require.NoError(t, os.Mkdir(filepath.Join(work, ".git"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(work, "AGENTS.md"), []byte("Use tabs.\n@missing.md\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(work, "CLAUDE.local.md"), []byte("bin\x00ary"), 0o644))

	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"--work-dir", work, "context", "--json"}, &out, &errOut)
	require.Equal(t, 0, code, errOut.String())

	var got struct {
		Files []struct {
			Path  string `json:"path"`
			Bytes int    `json:"bytes"`
			State string `json:"state"`
		} `json:"files"`
		Message  string `json:"message"`
		Warnings []struct {
			Source  string `json:"source"`
			Path    string `json:"path"`
			Message string `json:"message"`
		} `json:"warnings"`
	}
	dec := json.NewDecoder(&out)
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(&got))
	require.Len(t, got.Files, 3)
	assert.Equal(t, "AGENTS.md", got.Files[0].Path)
	assert.Equal(t, "included", got.Files[0].State)
	assert.Equal(t, len("Use tabs.\n@missing.md\n"), got.Files[0].Bytes)
	assert.Equal(t, "missing.md", got.Files[1].Path, "a refused import is listed")
	assert.Equal(t, "refused", got.Files[1].State)
	assert.Equal(t, "CLAUDE.local.md", got.Files[2].Path)
	assert.Equal(t, "refused", got.Files[2].State)
	assert.Contains(t, got.Message, "Use tabs.")
	require.Len(t, got.Warnings, 2)
	assert.Equal(t, "AGENTS.md:2", got.Warnings[0].Path)
	assert.Contains(t, got.Warnings[0].Message, "no such file")
	assert.Contains(t, got.Warnings[1].Message, "binary")
}

func TestContextOff(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	work := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(work, "AGENTS.md"), []byte("Use tabs.\n"), 0o644))
	cfg := filepath.Join(t.TempDir(), "helios.config.json")
	require.NoError(t, os.WriteFile(cfg, []byte(`{"instructions": {"enabled": false}}`), 0o644))

	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"--work-dir", work, "--config", cfg, "context"}, &out, &errOut)
	require.Equal(t, 0, code, errOut.String())
	assert.Equal(t, "Project instructions are off (instructions.enabled: false).\n", out.String())
}
