package tui

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/session"
)

// C24: the status line sums the tokens of the session's model requests and
// says how much of the input the prompt cache served; nothing is shown
// before the first request.
func TestStatusLineShowsUsage(t *testing.T) {
	m := newTestModel(t, Config{Kernel: newFakeKernel()})
	assert.NotContains(t, tuiScreen(m), "tokens", "usage shown before any request")
	m.Update(updateMsg(kernel.Update{Kind: kernel.UpdateUsage, Usage: session.Usage{Input: 10_000, Output: 300, CacheWrite: 9_000}}))
	m.Update(updateMsg(kernel.Update{Kind: kernel.UpdateUsage, Usage: session.Usage{Input: 10_400, Output: 950, CacheRead: 9_000, CacheWrite: 400}}))
	assert.Contains(t, tuiScreen(m), "tokens 20.4k in (44% cached) · 1.2k out")
}

func TestCompactCounts(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1.0k", 12_345: "12.3k", 4_560_000: "4.6M"} {
		assert.Equal(t, want, compact(n), "compact(%d)", n)
	}
}
