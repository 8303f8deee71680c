//go:build unix

package mcpclient

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/runpin"
)

// Protects: M742 (an MCP server's executable not hashed). A stdio server
// whose executable lies in the work dir is pinned at trust: unchanged, it
// starts; replaced afterwards (the model planting its own), it does not
// start, its status and one warning name the file and `helios trust`, and
// the other server runs.
func TestServerExecutableChangedAfterTrustDoesNotStart(t *testing.T) {
	work := t.TempDir()
	good, bad := filepath.Join(work, "bin", "good"), filepath.Join(work, "bin", "bad")
	require.NoError(t, os.MkdirAll(filepath.Dir(good), 0o755))
	require.NoError(t, os.Symlink(os.Args[0], good))
	require.NoError(t, os.Symlink(os.Args[0], bad))
	g, b := stdioServer("good"), stdioServer("bad")
	g.Command, b.Command = good, bad
	sums := runpin.Record([]string{work}, append(g.Files(), b.Files()...))
	require.Len(t, sums, 2)

	planted := filepath.Join(work, "planted")
	require.NoError(t, os.Remove(bad))
	require.NoError(t, os.WriteFile(bad, []byte("#!/bin/sh\ntouch "+planted+"\n"), 0o755))
	ss, l := start(t, Config{Pins: runpin.New([]string{work}, sums)}, g, b)
	for _, s := range ss {
		require.NoError(t, s.Wait(ctxT(t)))
	}
	assert.Equal(t, StateReady, ss[0].Status().State, "the unchanged server runs")
	st := ss[1].Status()
	assert.Equal(t, StateDisabled, st.State)
	require.Error(t, st.Err)
	assert.Contains(t, st.Err.Error(), bad)
	assert.Contains(t, st.Err.Error(), "helios trust")
	assert.NoFileExists(t, planted, "the planted executable ran")
	assert.Equal(t, 1, l.count("mcp server is off"), l.String())
}
