package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/skills"
)

// watchJSON is one line of `skills watch --json`.
type watchJSON struct {
	Event    string             `json:"event"` // "catalog" for the first, "change" after
	Complete bool               `json:"complete"`
	Digest   string             `json:"digest"`
	Added    []string           `json:"added"`
	Removed  []string           `json:"removed"`
	Changed  []string           `json:"changed"`
	Skills   []skillJSON        `json:"skills"`
	Warnings []contract.Warning `json:"warnings"`
}

func skillsWatchCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "watch",
		Short: "Print the catalog, then each new complete catalog as skills change (Ctrl-C to stop)",
		Long: "Print the catalog, then every new complete catalog as skills are added, removed or changed on disk:\n" +
			"the added, removed and changed names and the catalog digest. Incomplete observations (an editor\n" +
			"half-way through a save, a watcher overflow) are never printed. With --json, one JSON object per line.",
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			g.watch = true
			g.logger = stderrLogger(cmd.ErrOrStderr())
			return g.withKernel(cmd, func(k *kernel.Kernel) error {
				return watchLoop(cmd.Context(), k.Skills(), cmd.OutOrStdout(), g.json)
			})
		},
	}
}

// watchLoop prints the catalog now and after every change signal, skipping
// incomplete snapshots and snapshots equal to the last one printed. An
// incomplete snapshot is taken again after a backoff (skills.RetryIncompleteMin
// to RetryIncompleteMax), change signal or not.
func watchLoop(ctx context.Context, reg *skills.Registry, w io.Writer, asJSON bool) error {
	changed := make(chan struct{}, 1)
	cancel := reg.OnChange(func() {
		select {
		case changed <- struct{}{}:
		default: // a signal is already pending; one snapshot covers both
		}
	})
	defer cancel()

	retry := time.NewTimer(time.Hour)
	retry.Stop()
	defer retry.Stop()
	backoff := skills.RetryIncompleteMin
	var last *skills.Catalog
	for {
		cat := reg.Snapshot(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if cat.Complete {
			retry.Stop()
			backoff = skills.RetryIncompleteMin
			if last == nil || cat.Digest() != last.Digest() {
				if err := printCatalogChange(w, last, cat, asJSON); err != nil {
					return err
				}
				last = &cat
			}
		} else {
			retry.Reset(backoff)
			backoff = min(2*backoff, skills.RetryIncompleteMax)
		}
		select {
		case <-ctx.Done():
			return nil // Ctrl-C: a clean exit
		case <-changed:
		case <-retry.C:
		}
	}
}

func printCatalogChange(w io.Writer, prev *skills.Catalog, cat skills.Catalog, asJSON bool) error {
	ev := watchJSON{Event: "catalog", Complete: cat.Complete, Digest: cat.Digest(),
		Added: []string{}, Removed: []string{}, Changed: []string{}, Skills: []skillJSON{}, Warnings: []contract.Warning{}}
	for _, s := range cat.Skills {
		ev.Skills = append(ev.Skills, toSkillJSON(s))
	}
	ev.Warnings = append(ev.Warnings, cat.Warnings...)
	if prev != nil {
		ev.Event = "change"
		ev.Added, ev.Removed, ev.Changed = diffCatalogs(*prev, cat)
	}
	if asJSON {
		return writeJSONLine(w, ev)
	}
	if prev == nil {
		printList(w, listJSON{Complete: cat.Complete, Skills: ev.Skills, Warnings: ev.Warnings}, listOptions{width: termWidth(w)})
		fmt.Fprintf(w, "digest %s — watching for changes (Ctrl-C to stop)\n", short(ev.Digest))
		return nil
	}
	fmt.Fprintf(w, "catalog changed: digest %s, %d skill(s)\n", short(ev.Digest), len(cat.Skills))
	for _, n := range ev.Added {
		fmt.Fprintf(w, "  + %s\n", n)
	}
	for _, n := range ev.Removed {
		fmt.Fprintf(w, "  - %s\n", n)
	}
	for _, n := range ev.Changed {
		fmt.Fprintf(w, "  ~ %s\n", n)
	}
	return nil
}

// diffCatalogs names the skills added, removed and changed (description,
// source, base dir or visibility), each sorted by code point.
func diffCatalogs(prev, cur skills.Catalog) (added, removed, changed []string) {
	old := map[string]skills.Skill{}
	for _, s := range prev.Skills {
		old[s.Name] = s
	}
	added, removed, changed = []string{}, []string{}, []string{}
	for _, s := range cur.Skills {
		o, ok := old[s.Name]
		switch {
		case !ok:
			added = append(added, s.Name)
		case o.Description != s.Description || o.Source != s.Source || o.BaseDir != s.BaseDir || o.DisableModelInvocation != s.DisableModelInvocation:
			changed = append(changed, s.Name)
		}
		delete(old, s.Name)
	}
	for n := range old {
		removed = append(removed, n)
	}
	slices.Sort(added)
	slices.Sort(removed)
	slices.Sort(changed)
	return added, removed, changed
}

func short(digest string) string { return digest[:min(12, len(digest))] }
