package main

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/skills"
)

// flakyCap is a capability whose next answers can be incomplete, as a
// folder vanishing mid-read makes a root's.
type flakyCap struct {
	mu         sync.Mutex
	set        skills.Set
	flaky      int
	invalidate func()
}

func (c *flakyCap) Name() string { return "flaky" }

func (c *flakyCap) Skills(context.Context) (skills.Set, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.flaky > 0 {
		c.flaky--
		return skills.Set{Incomplete: true}, nil
	}
	return c.set, nil
}

func (c *flakyCap) Watch(invalidate func(), _ <-chan struct{}) error {
	c.mu.Lock()
	c.invalidate = invalidate
	c.mu.Unlock()
	return nil
}

func flakySkill(name string) skills.Skill {
	return skills.Skill{Name: name, Description: "About " + name + ".",
		Load: func(context.Context) (skills.Content, error) { return skills.Content{Name: name}, nil }}
}

// syncBuffer is a bytes.Buffer the loop writes while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Protects: a change whose first reads are incomplete, and which no further
// signal follows, is still printed: the loop reads again (with backoff)
// until the catalog is complete — at start and after a change.
func TestWatchLoopRetriesIncompleteReads(t *testing.T) {
	c := &flakyCap{set: skills.Set{Skills: []skills.Skill{flakySkill("one")}}, flaky: 2}
	k, err := kernel.New(kernel.Config{WorkDir: t.TempDir(), UserSkillRoots: []string{}, Capabilities: []kernel.Capability{c}})
	require.NoError(t, err)
	t.Cleanup(func() { k.Close() })

	ctx, cancel := context.WithCancel(context.Background())
	var out syncBuffer
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

	c.mu.Lock()
	c.set, c.flaky = skills.Set{Skills: []skills.Skill{flakySkill("one"), flakySkill("two")}}, 2
	invalidate := c.invalidate
	c.mu.Unlock()
	invalidate() // one signal, then silence
	require.Eventually(t, func() bool { return lines() == 2 }, 10*time.Second, 10*time.Millisecond,
		"the change, once a read completes: %s", out.String())
	assert.Contains(t, out.String(), `"event":"change"`)
	assert.Contains(t, out.String(), `"added":["two"]`)
}
