package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/internal/testkit"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/skills"
)

// Protects: a change whose first reads are incomplete, and which no further
// signal follows, is still printed: the loop reads again (with backoff)
// until the catalog is complete — at start and after a change.
func TestWatchLoopRetriesIncompleteReads(t *testing.T) {
	c := testkit.NewCapability("flaky", 2, testkit.Skill("one", ""))
	k, err := kernel.New(kernel.Config{WorkDir: t.TempDir(), UserSkillRoots: []string{}, Capabilities: []kernel.Capability{c}})
	require.NoError(t, err)
	t.Cleanup(func() { k.Close() })

	ctx, cancel := context.WithCancel(context.Background())
	var out testkit.SyncBuffer
	done := make(chan error, 1)
	go func() { done <- watchLoop(ctx, k.Skills(), &out, true) }()
	t.Cleanup(func() {
		cancel()
		assert.NoError(t, <-done)
	})
	lines := func() int { return strings.Count(out.String(), "\n") }
	require.Eventually(t, func() bool { return lines() == 1 }, 10*time.Second, 10*time.Millisecond,
		"the first complete catalog, after two incomplete reads at start")
	assert.Contains(t, out.String(), `"event":"catalog"`)

	c.Answer(2, skills.Set{Skills: []skills.Skill{testkit.Skill("one", ""), testkit.Skill("two", "")}}) // one signal, then silence
	require.Eventually(t, func() bool { return lines() == 2 }, 10*time.Second, 10*time.Millisecond,
		"the change, once a read completes: %s", out.String())
	assert.Contains(t, out.String(), `"event":"change"`)
	assert.Contains(t, out.String(), `"added":["two"]`)
}
