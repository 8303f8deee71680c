package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/helios-agents/helios/assembly"
	"github.com/helios-agents/helios/caps/permissions"
	"github.com/helios-agents/helios/kernel/sanitize"
)

// Exit codes of `helios permissions check` beyond exitOK (allow).
const (
	exitAsk  = 3
	exitDeny = 4
)

func permissionsCmd(g *globals) *cobra.Command {
	c := &cobra.Command{
		Use:   "permissions",
		Short: "Inspect the permission rules (allow, ask, deny) of the config and ~/.helios/settings.json",
		Args:  args(cobra.NoArgs),
		RunE:  groupHelp,
	}
	var preapproved []string
	check := &cobra.Command{
		Use:   "check CALL",
		Short: "Decide a tool call as a session would: exit 0 allow, 3 ask, 4 deny",
		Long: "CALL is Tool(argument), e.g. 'Bash(git push origin main)', 'Read(.env)', 'Skill(deploy)', " +
			"'mcp__github__create_issue', or a JSON tool call {\"tool\":\"Bash\",\"input\":{\"command\":\"...\"}}. " +
			"Prints the decision, the rule and the list that decided. Exit 0 allow, 3 ask, 4 deny.",
		Args: args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			call, err := parseCheckCall(a[0])
			if err != nil {
				return usageError{err}
			}
			set, err := g.permissionSet()
			if err != nil {
				return err
			}
			var pre []permissions.Rule
			for i, t := range preapproved {
				r, err := permissions.ParseRule(t)
				if err != nil {
					return usageError{fmt.Errorf("--allowed-tools #%d %q: %w", i+1, t, err)}
				}
				pre = append(pre, r)
			}
			d := set.Decide(call, pre)
			out := cmd.OutOrStdout()
			if g.json {
				err = writeJSON(out, map[string]any{
					"tool": call.Tool, "input": call.Input, "decision": d.Behavior,
					"rule": d.Rule, "list": d.List, "reason": d.Reason, "defaultMode": set.Mode(),
				})
			} else {
				err = printDecision(out, d)
			}
			if err != nil {
				return err
			}
			switch d.Behavior {
			case permissions.Ask:
				return exitError{exitAsk}
			case permissions.Deny:
				return exitError{exitDeny}
			}
			return nil
		},
	}
	check.Flags().StringArrayVar(&preapproved, "allowed-tools", nil, "a rule pre-approved as a loaded skill's allowed-tools would (repeatable)")
	c.AddCommand(check)
	return c
}

func printDecision(w io.Writer, d permissions.Decision) error {
	rule := d.Rule
	if rule == "" {
		rule = "(none)"
	}
	_, err := fmt.Fprintf(w, "decision  %s\nrule      %s\nlist      %s\nreason    %s\n",
		d.Behavior, sanitize.Text(rule), d.List, sanitize.Text(d.Reason))
	return err
}

// parseCheckCall reads a call written as Tool(argument), a bare tool name,
// or a JSON object {"tool": ..., "input": {...}}.
func parseCheckCall(s string) (permissions.Call, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "{") {
		var c struct {
			Tool  string          `json:"tool"`
			Input json.RawMessage `json:"input"`
		}
		dec := json.NewDecoder(strings.NewReader(s))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&c); err != nil {
			return permissions.Call{}, fmt.Errorf("the JSON tool call: %w", err)
		}
		if c.Tool == "" {
			return permissions.Call{}, errors.New("the JSON tool call: \"tool\" is missing")
		}
		if len(c.Input) == 0 {
			c.Input = json.RawMessage("{}")
		}
		return permissions.Call{Tool: c.Tool, Input: c.Input}, nil
	}
	tool, arg, has := strings.Cut(s, "(")
	if tool == "" {
		return permissions.Call{}, fmt.Errorf("%q: no tool name", s)
	}
	if !has {
		return permissions.Call{Tool: tool, Input: json.RawMessage("{}")}, nil
	}
	if !strings.HasSuffix(arg, ")") {
		return permissions.Call{}, fmt.Errorf("%q: '(' is never closed", s)
	}
	arg = strings.TrimSuffix(arg, ")")
	key := map[string]string{"Bash": "command", "Read": "path", "Write": "path", "Edit": "path", "Glob": "pattern", "Grep": "path", "Skill": "name", "skill": "name"}[tool]
	if key == "" {
		return permissions.Call{}, fmt.Errorf("%q: Tool(argument) is for Bash, Read, Write, Edit, Glob, Grep and Skill; give other calls as JSON", s)
	}
	if tool == "Skill" {
		tool = "skill"
	}
	in, err := json.Marshal(map[string]string{key: arg})
	return permissions.Call{Tool: tool, Input: in}, err
}

// permissionSet compiles the config's permissions over the user's
// (~/.helios/settings.json) through the assembly's one reader, anchored as
// a session anchors them: "./x" at each file's folder, tool paths at the
// work dir.
func (g *globals) permissionSet() (*permissions.Set, error) {
	c, err := g.readConfig()
	if err != nil {
		return nil, err
	}
	work := c.workDir
	if work == "" && c.cfg.WorkDir != "" {
		work = c.cfg.WorkDir
		if !filepath.IsAbs(work) {
			work = filepath.Join(c.base, work)
		}
	}
	if work == "" {
		if work, err = os.Getwd(); err != nil {
			return nil, err
		}
	}
	base := c.base
	if base == "" {
		base = work
	}
	return assembly.CompilePermissions(c.cfg, base, work)
}
