package assembly

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/watch"
)

// Protects: the installed plugins' skill sources (one set of roots each) are
// watched beside skills.watch.projectWatchers: with 91 plugins and the
// default 32 they evicted one another at every catalog read, rescanning
// every plugin's skills and re-adding their watches before each request.
func TestWatcherHoldsPluginSourcesBesideProjectWatchers(t *testing.T) {
	w, err := newWatcher(WatchConfig{Mode: WatchPoll, ProjectWatchers: 1}, 2)
	require.NoError(t, err)
	t.Cleanup(func() { w.Close() })
	var subs []*watch.Subscription
	for range 3 {
		root := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(root, "x"), nil, 0o644))
		s, err := w.Watch([]string{root}, func(watch.Change) {})
		require.NoError(t, err)
		subs = append(subs, s)
	}
	for _, s := range subs {
		s.Touch()
	}
	for i, s := range subs {
		assert.True(t, s.Healthy(), "subscription %d evicted: 1 project set and 2 plugin sources fit", i)
	}

	// The default, 32, when projectWatchers is unset.
	w2, err := newWatcher(WatchConfig{Mode: WatchPoll}, 1)
	require.NoError(t, err)
	t.Cleanup(func() { w2.Close() })
	var subs2 []*watch.Subscription
	for range 33 {
		s, err := w2.Watch([]string{t.TempDir()}, func(watch.Change) {})
		require.NoError(t, err)
		subs2 = append(subs2, s)
	}
	for _, s := range subs2 {
		s.Touch()
	}
	for i, s := range subs2 {
		assert.True(t, s.Healthy(), "subscription %d evicted", i)
	}
}
