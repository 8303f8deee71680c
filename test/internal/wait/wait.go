// Package wait holds test helpers that wait on the kernel's signals with a
// deadline instead of sleeping. Its one helper now lives in
// internal/testkit, the home of the kits tests beside their packages use.
package wait

import (
	"context"
	"testing"
	"time"

	"github.com/helios-agents/helios/internal/testkit"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/skills"
)

// ForCatalog is testkit.ForCatalog.
func ForCatalog(t testing.TB, ctx context.Context, k *kernel.Kernel, deadline time.Duration, ok func(skills.Catalog) bool) {
	t.Helper()
	testkit.ForCatalog(t, ctx, k, deadline, ok)
}
