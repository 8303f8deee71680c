//go:build linux

package cmdhooks_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/caps/cmdhooks"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/tools"
	"github.com/helios-agents/helios/sandbox"
	"github.com/helios-agents/helios/workfs"
)

// Protects (C21 "not confined"): a command hook is the person's code from
// a trusted config, so it runs unconfined even while the model's commands
// are confined (workspace-write, network off): it writes outside the work
// dir and listens on TCP at 127.0.0.1. The same probe run by the model's
// Bash in the same work dir can do neither, which proves the sandbox is on.
func TestHooksAreNotConfined(t *testing.T) {
	work, outside := t.TempDir(), t.TempDir()
	exe, err := os.Executable()
	require.NoError(t, err)

	fsys, err := workfs.New(work)
	require.NoError(t, err)
	t.Cleanup(func() { fsys.Close() })
	set, err := tools.New(tools.Config{FS: fsys, Sandbox: sandbox.Config{Mode: sandbox.WorkspaceWrite, Network: false}})
	require.NoError(t, err)
	t.Cleanup(func() { set.Close() })
	require.Equal(t, sandbox.WorkspaceWrite, set.Sandbox().Mode())
	args, err := json.Marshal(map[string]string{"command": quoteSh(exe) + " " + probeArg + " " + quoteSh(filepath.Join(outside, "from-bash"))})
	require.NoError(t, err)
	res, err := set.Tools()[0].Call(contract.WithSessionID(context.Background(), "s1"), args)
	require.NoError(t, err)
	require.True(t, res.IsError, "the confined probe reached outside: %s", res.Content)
	require.Contains(t, res.Content, "write:", "a confined command wrote outside the work dir")
	require.Contains(t, res.Content, "listen:", "a confined command listened with the network off")
	require.NoFileExists(t, filepath.Join(outside, "from-bash"))

	report := filepath.Join(outside, "hook.out")
	command := quoteSh(exe) + " " + probeArg + " " + quoteSh(filepath.Join(outside, "from-hook")) + " > " + quoteSh(report) + " 2>&1"
	var warnings []contract.Warning
	ms := newHooks(t, `{"SessionEnd": [{"hooks": [{"type": "command", "command": `+jsonString(command)+`}]}]}`, cmdhooks.Config{
		WorkDir: work, OnWarning: func(w contract.Warning) { warnings = append(warnings, w) },
	})
	require.Len(t, ms, 1)
	_, err = ms[0].Handler(context.Background(), kernel.SessionEndIn{SessionID: "s1"})
	require.NoError(t, err)
	out := readFile(t, report)
	assert.Contains(t, out, "wrote "+filepath.Join(outside, "from-hook"), "the hook could not write outside the work dir")
	assert.Contains(t, out, "listened on 127.0.0.1:", "the hook could not listen on TCP")
	assert.NotContains(t, out, "write:")
	assert.NotContains(t, out, "listen:")
	assert.FileExists(t, filepath.Join(outside, "from-hook"))
	assert.Empty(t, warnings, "the hook failed")
}

// quoteSh quotes s for sh.
func quoteSh(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
