package pluginprobe

import (
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/plugins/sdk"
)

type plugin struct{ calls *int }

func (p plugin) Hooks() []sdk.Hook {
	return []sdk.Hook{
		sdk.ContextPrepare("", func(context.Context, sdk.PrepareIn) (string, bool, error) { *p.calls++; return "hi", true, nil }),
	}
}

// The wrapper traces calls, holds a stalled prepare handler until its call
// is cancelled, and otherwise hands the call to the plugin.
func TestWrap(t *testing.T) {
	d := Dir(t.TempDir())
	calls := 0
	hs := Wrap(plugin{&calls}, d).(sdk.HookProvider).Hooks()
	require.Len(t, hs, 1)

	v, handled, err := hs[0].Handle(context.Background(), json.RawMessage(`{}`))
	require.NoError(t, err)
	assert.True(t, handled)
	assert.Equal(t, "hi", v)

	require.NotNil(t, hs[0].Typed, "the native entry point")
	v, handled, err = hs[0].Typed(context.Background(), sdk.PrepareIn{})
	require.NoError(t, err)
	assert.True(t, handled)
	assert.Equal(t, "hi", v)

	require.NoError(t, d.SetStall(true))
	for _, call := range []func(context.Context) error{
		func(ctx context.Context) error { _, _, err := hs[0].Handle(ctx, json.RawMessage(`{}`)); return err },
		func(ctx context.Context) error { _, _, err := hs[0].Typed(ctx, sdk.PrepareIn{}); return err },
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		assert.Error(t, call(ctx), "a stalled handler answered")
		cancel()
	}
	assert.Equal(t, 2, calls, "the stalled calls never reached the plugin")

	pids, err := d.Calls("context:prepare")
	require.NoError(t, err)
	assert.Equal(t, []int{os.Getpid(), os.Getpid(), os.Getpid(), os.Getpid()}, pids)
	assert.Nil(t, Wrap(nil, d).(sdk.ToolProvider).Tools())
}
