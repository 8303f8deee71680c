package trust_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/assembly"
	"github.com/helios-agents/helios/cmd/helios/internal/trust"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/contract"
)

// Protects: M745 (the trust records no digests), M746 (the recorded
// digests not passed on). `helios trust` records the SHA-256 of the hook
// script the work dir's config runs from the work dir; a script rewritten
// after the trust (and before Helios starts) does not run: the session
// start hook is off with one warning naming the file and `helios trust`.
func TestTrustRecordsWhatTheConfigRuns(t *testing.T) {
	work, state := t.TempDir(), t.TempDir()
	t.Setenv("HOME", state)
	work, err := filepath.EvalSymlinks(work)
	require.NoError(t, err)
	guard := filepath.Join(work, ".claude", "hooks", "start.sh")
	require.NoError(t, os.MkdirAll(filepath.Dir(guard), 0o755))
	v1 := "#!/bin/sh\ncat >/dev/null\necho v1 >> \"$CLAUDE_PROJECT_DIR/ran\"\n"
	require.NoError(t, os.WriteFile(guard, []byte(v1), 0o755))
	cfgPath := filepath.Join(work, assembly.ConfigFileName)
	require.NoError(t, os.WriteFile(cfgPath, []byte(`{
  "skills": {"userRoots": [], "projectRoots": []},
  "model": {"baseURL": "http://127.0.0.1:9", "name": "none", "apiKeyEnv": ""},
  "sessions": {"dir": "`+filepath.Join(state, "sessions")+`"},
  "tools": {"sandbox": {"mode": "off"}},
  "hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/start.sh"}]}]}
}`), 0o600))
	store := trust.NewStore(filepath.Join(state, "trust.json"))
	e, err := store.Trust(cfgPath)
	require.NoError(t, err)
	sum := sha256.Sum256([]byte(v1))
	assert.Equal(t, map[string]string{guard: hex.EncodeToString(sum[:])}, e.Runs)

	open := func() (ran string, warns []string) {
		t.Helper()
		found, err := trust.ReadWorkDir(work, store)
		require.NoError(t, err)
		require.Equal(t, cfgPath, found.Path)
		var mu sync.Mutex
		k, err := assembly.Build(t.Context(), found.Config, assembly.Options{BaseDir: found.Base, WorkDir: work, Trusted: found.Runs,
			OnWarning: func(w contract.Warning) { mu.Lock(); warns = append(warns, w.Message); mu.Unlock() }})
		require.NoError(t, err)
		defer k.Close()
		s, err := k.OpenSession(t.Context(), kernel.SessionConfig{})
		require.NoError(t, err)
		require.NoError(t, s.Close())
		b, _ := os.ReadFile(filepath.Join(work, "ran"))
		return string(b), warns
	}
	ran, warns := open()
	assert.Equal(t, "v1\n", ran, "the trusted script runs")
	assert.Empty(t, warns)

	require.NoError(t, os.WriteFile(guard, []byte(strings.ReplaceAll(v1, "v1", "v2")), 0o755))
	ran, warns = open()
	assert.Equal(t, "v1\n", ran, "the script rewritten after the trust ran")
	require.Len(t, warns, 1)
	assert.Contains(t, warns[0], guard)
	assert.Contains(t, warns[0], "helios trust")
}
