package assembly_test

// A session without a model (DESIGN.md C8): the kernel refuses it at
// OpenSession, and an assembled kernel says which config key or variable
// to set.

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/helios-agents/helios/assembly"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/session"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Protects: a session without a model fails at OpenSession with a message
// saying what to set: the config keys when "model" is missing or partial,
// the variable when the API key variable is unset; nothing is created.
func TestAgentNoModel(t *testing.T) {
	t.Run("kernel without a model", func(t *testing.T) {
		k, err := kernel.New(kernel.Config{WorkDir: t.TempDir(), UserSkillRoots: []string{}, Store: session.NewMemoryStore()})
		require.NoError(t, err)
		defer k.Close()
		_, err = k.OpenSession(t.Context(), kernel.SessionConfig{})
		assert.ErrorIs(t, err, kernel.ErrNoModel, "OpenSession")
	})

	tests := []struct {
		name    string
		model   string // the "model" key's JSON, "" for none
		env     map[string]string
		want    []string
		wantErr error
	}{
		{"no model key", "", nil, []string{`"model"`, "baseURL", "helios.config.json"}, nil},
		{"no baseURL", `{"name": "m"}`, nil, []string{"model.baseURL", "helios.config.json"}, nil},
		{"no name", `{"baseURL": "http://127.0.0.1:9/v1"}`, nil, []string{"model.name", "helios.config.json"}, nil},
		{"named key variable unset", `{"baseURL": "http://127.0.0.1:9/v1", "name": "m", "apiKeyEnv": "AG_TEST_UNSET_KEY"}`,
			map[string]string{"AG_TEST_UNSET_KEY": ""}, []string{"AG_TEST_UNSET_KEY", "model.apiKeyEnv"}, assembly.ErrNoAPIKey},
		{"default key variable unset", `{"baseURL": "http://127.0.0.1:9/v1", "name": "m"}`,
			map[string]string{assembly.DefaultAPIKeyEnv: ""}, []string{assembly.DefaultAPIKeyEnv}, assembly.ErrNoAPIKey},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			dir := t.TempDir()
			sessions := filepath.Join(dir, "sessions")
			cfg := `{"workDir": ".", "skills": {"userRoots": []}, "sessions": {"dir": "` + sessions + `"}`
			if tt.model != "" {
				cfg += `, "model": ` + tt.model
			}
			cfgPath := filepath.Join(dir, "helios.config.json")
			nmWriteFile(t, cfgPath, cfg+"}")
			k, err := assembly.Load(t.Context(), cfgPath, assembly.Options{})
			require.NoError(t, err, "assembly.Load (a missing model is not an assembly error)")
			defer k.Close()
			s, err := k.OpenSession(t.Context(), kernel.SessionConfig{})
			if err == nil {
				s.Close()
			}
			require.Error(t, err, "OpenSession succeeded without a usable model")
			for _, want := range tt.want {
				assert.Contains(t, err.Error(), want, "error %q does not mention %q", err, want)
			}
			if tt.wantErr != nil {
				assert.ErrorIs(t, err, tt.wantErr)
			}
			_, err = os.Stat(sessions)
			assert.ErrorIs(t, err, os.ErrNotExist, "sessions dir exists after a failed OpenSession")
		})
	}
}

// nmWriteFile creates path (and its parents) with content.
func nmWriteFile(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}
