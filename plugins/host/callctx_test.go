package host

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A call the watchdog cancelled never goes back to the pool: the next call
// would get a context that is done already and fail at once.
//
// sync.Pool hands back what the same P put last, so the test runs on one P:
// there a context that ended normally comes back (checked first, so that
// "not reused" cannot be the pool losing it), and so would a cancelled one.
// Under the race detector Put drops a quarter of what it is given, hence the
// tries.
func TestTimedOutCallContextIsNotReused(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var f inFlight
	reused := false
	for range 20 {
		cc := f.start(context.Background(), time.Minute)
		require.False(t, f.end(cc), "a call that ended in time reported a timeout")
		next := f.start(context.Background(), time.Minute)
		reused = next == cc
		f.end(next)
		if reused {
			break
		}
	}
	require.True(t, reused, "a context that ended normally never came back from the pool: this test cannot tell anything")

	cc := f.start(context.Background(), time.Millisecond)
	f.expire(time.Now().Add(time.Hour))
	require.ErrorIs(t, context.Cause(cc), errCallTimeout, "the watchdog did not cancel the call")
	require.True(t, f.end(cc), "end did not report the timeout")
	var held []*callCtx
	for range 8 {
		next := f.start(context.Background(), time.Minute)
		held = append(held, next)
		assert.NotSame(t, cc, next, "the cancelled context was reused")
		assert.NoError(t, next.Err(), "a new call starts done")
	}
	for _, next := range held {
		f.end(next)
	}
}
