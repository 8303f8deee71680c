package unit_test

import (
	"context"

	"github.com/helios-agents/helios/kernel/skills"
)

// skEntry is one source of skills in merge order.
type skEntry struct {
	Source   string
	Provider skills.Provider
}

// skMerge merges the sources through the public path: a registry with each
// provider registered in order, snapshotted once.
func skMerge(ctx context.Context, entries []skEntry) skills.Catalog {
	r := skills.NewRegistry(skills.RegistryConfig{})
	for _, e := range entries {
		r.Register(e.Source, e.Provider)
	}
	return r.Snapshot(ctx)
}
