package pluginprobe

import (
	"context"
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

	v, handled, err := hs[0].Handle(context.Background(), sdk.PrepareIn{})
	require.NoError(t, err)
	assert.True(t, handled)
	assert.Equal(t, "hi", v)

	require.NoError(t, d.SetStall(true))
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	_, _, err = hs[0].Handle(ctx, sdk.PrepareIn{})
	cancel()
	assert.Error(t, err, "a stalled handler answered")
	assert.Equal(t, 1, calls, "the stalled call never reached the plugin")

	pids, err := d.Calls("context:prepare")
	require.NoError(t, err)
	assert.Equal(t, []int{os.Getpid(), os.Getpid()}, pids)
	assert.Nil(t, Wrap(nil, d).(sdk.ToolProvider).Tools())
}
