package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/helios-agents/helios/assembly"
	"github.com/helios-agents/helios/cmd/helios/internal/trust"
	"github.com/helios-agents/helios/kernel/sanitize"
)

func trustCmd(g *globals) *cobra.Command {
	var list, revoke bool
	c := &cobra.Command{
		Use:   "trust [DIR]",
		Short: "Trust the helios.config.json of a folder (default: the work dir), or list or revoke trusted ones",
		Long: "A helios.config.json found in the work dir is not applied until you trust it: it can start programs (plugins)\n" +
			"and send your API key to any server (model.baseURL), and the folder may be a repository someone else wrote.\n" +
			"helios trust records the SHA-256 of the file's current content in ~/.helios/trust.json; any edit makes it\n" +
			"untrusted again. It also records the SHA-256 of each script or executable its hooks, MCP servers and plugins\n" +
			"run from the work dir or a writable path: one that changes is not run (a warning names it) until you trust again. DIR may also name the config file itself. --config FILE is always applied, trusted or not.\n" +
			"--list shows the trusted files and whether each still matches; --revoke forgets one.",
		Args: args(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			if list && (revoke || len(a) > 0) {
				return usageError{errors.New("--list takes no folder and no --revoke")}
			}
			store, err := trust.DefaultStore()
			if err != nil {
				return err
			}
			if list {
				return listTrusted(cmd.OutOrStdout(), g, store)
			}
			path, err := g.trustTarget(a)
			if err != nil {
				return err
			}
			if revoke {
				was, err := store.Revoke(path)
				if err != nil {
					return err
				}
				if !was {
					fmt.Fprintf(cmd.OutOrStdout(), "%s was not trusted: nothing to revoke\n", path)
					return nil
				}
				fmt.Fprintf(cmd.OutOrStdout(), "revoked %s: Helios ignores it until you trust it again\n", path)
				return nil
			}
			e, err := store.Trust(path)
			if errors.Is(err, trust.ErrStore) {
				fmt.Fprintf(g.stderr, "helios: warning: %v: replaced by a new store\n", err)
			} else if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "trusted %s (sha256 %s)\nany edit makes it untrusted again; helios trust --revoke forgets it\n", e.Config, e.SHA256)
			for _, f := range slices.Sorted(maps.Keys(e.Runs)) {
				fmt.Fprintf(cmd.OutOrStdout(), "and what it runs from where the model writes: %s (sha256 %s); a change turns it off until you trust again\n", sanitize.Text(f), e.Runs[f])
			}
			return nil
		},
	}
	c.Flags().BoolVar(&list, "list", false, "list the trusted config files and whether each still matches its content")
	c.Flags().BoolVar(&revoke, "revoke", false, "forget the config file of DIR")
	return c
}

// trustTarget is the config file `helios trust` acts on: DIR's
// helios.config.json (DIR defaults to --work-dir, then the current
// directory), or DIR itself when it is a file.
func (g *globals) trustTarget(a []string) (string, error) {
	dir := g.workDir
	if len(a) > 0 {
		dir = a[0]
	}
	if dir == "" {
		var err error
		if dir, err = os.Getwd(); err != nil {
			return "", err
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if fi, err := os.Stat(abs); err == nil && !fi.IsDir() {
		return abs, nil
	}
	return filepath.Join(abs, assembly.ConfigFileName), nil
}

// trustedJSON is the `trust --list --json` contract.
type trustedJSON struct {
	Trusted []trustedEntryJSON `json:"trusted"`
}

type trustedEntryJSON struct {
	Config  string    `json:"config"`
	SHA256  string    `json:"sha256"`
	Trusted time.Time `json:"trusted"`
	// State is "trusted" (the file still has that content), "changed"
	// (it is untrusted now) or "missing".
	State string `json:"state"`
}

func listTrusted(w io.Writer, g *globals, store *trust.Store) error {
	entries, err := store.List()
	if err != nil {
		return err
	}
	out := trustedJSON{Trusted: []trustedEntryJSON{}}
	for _, e := range entries {
		state := "missing"
		if data, err := os.ReadFile(e.Config); err == nil {
			state = "changed"
			if s, _ := store.Check(e.Config, data); s == trust.Trusted {
				state = "trusted"
			}
		}
		out.Trusted = append(out.Trusted, trustedEntryJSON{Config: e.Config, SHA256: e.SHA256, Trusted: e.Trusted, State: state})
	}
	if g.json {
		return writeJSON(w, out)
	}
	if len(out.Trusted) == 0 {
		fmt.Fprintf(w, "no trusted config files (%s)\n", store.Path())
		return nil
	}
	var b bytes.Buffer
	for _, e := range out.Trusted {
		fmt.Fprintf(&b, "%-8s %s  (since %s)\n", e.State, e.Config, e.Trusted.Local().Format(time.DateTime))
	}
	_, err = w.Write(b.Bytes())
	return err
}
