package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// writeReport prints the table in catalogue order, the excerpts of the rows
// that were not caught, and the summary line, which is always last.
func writeReport(w io.Writer, outcomes []outcome) (passed, failed int) {
	if len(outcomes) == 0 {
		fmt.Fprintln(w, "no mutations selected")
	} else {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tVERDICT\tTIME\tCAUGHT BY / REASON\tBREAKS")
		for _, o := range outcomes {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", o.entry.ID, o.verdict, secs(o.elapsed), oneCell(o.detail), oneCell(o.entry.Breaks))
		}
		tw.Flush()
	}
	for _, o := range outcomes {
		if o.verdict == caught {
			passed++
			continue
		}
		failed++
		fmt.Fprintf(w, "\n--- %s %s: %s\n", o.entry.ID, o.verdict, o.detail)
		writeExcerpt(w, o.excerpt)
	}
	fmt.Fprintf(w, "\nmutate: %d passed, %d failed\n", passed, failed)
	return passed, failed
}

// writeList prints what -list shows: the canary, then the selected entries.
func writeList(w io.Writer, canary *entry, entries []*entry) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tFILE\tBREAKS")
	fmt.Fprintf(tw, "%s (canary)\t%s\t%s\n", canary.ID, canary.File, oneCell(canary.Breaks))
	for _, e := range entries {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", e.ID, e.File, oneCell(e.Breaks))
	}
	tw.Flush()
}

func writeExcerpt(w io.Writer, lines []string) {
	for _, l := range lines {
		fmt.Fprintf(w, "    %s\n", l)
	}
}

// secs formats a run's duration; "-" for an entry that did not run.
func secs(d time.Duration) string {
	if d == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1fs", d.Seconds())
}

// oneCell keeps text from breaking the table's columns.
func oneCell(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
