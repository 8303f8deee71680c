package testkit

import (
	"context"
	"testing"
	"time"

	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/skills"
)

// ForCatalog waits until the kernel's catalog satisfies ok, re-checking on
// each "skills changed" signal, and fails the test after the deadline.
func ForCatalog(t testing.TB, ctx context.Context, k *kernel.Kernel, deadline time.Duration, ok func(skills.Catalog) bool) {
	t.Helper()
	changed := make(chan struct{}, 1)
	stop := k.Skills().OnChange(func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	})
	defer stop()
	timeout := time.After(deadline)
	for !ok(k.Catalog(ctx)) {
		select {
		case <-changed:
		case <-timeout:
			t.Fatalf("the catalog never reached the expected state within %s; last: %+v", deadline, k.Catalog(ctx))
		}
	}
}
