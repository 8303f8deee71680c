package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/helios-agents/helios/assembly"
	"github.com/helios-agents/helios/caps/cmdhooks"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/sanitize"
	"github.com/helios-agents/helios/kernel/session"
)

func runCmd(g *globals) *cobra.Command {
	var resume string
	var h headlessFlags
	c := &cobra.Command{
		Use:   "run [-p] [--resume ID] [--output-format text|json|stream-json] PROMPT | /COMMAND [ARGS...]",
		Short: "Run the agent on a prompt, streaming its answer and each tool call as it happens",
		Long: "Run the agent on a prompt in the work dir. The answer streams to stdout; each tool call and its\n" +
			"outcome is shown as it happens, and the tokens the turn used (read from and written to the\n" +
			"prompt cache included) at the end. The session is saved; --resume ID continues it.\n" +
			"/COMMAND ARGS sends the slash command's expansion (see helios commands list) as the prompt.\n" +
			"Needs model.name (and, unless model.provider is \"anthropic\", model.baseURL) in helios.config.json\n" +
			"and the API key in $HELIOS_API_KEY (or the variable model.apiKeyEnv names).\n" +
			"--output-format json|stream-json and --input-format stream-json write and read Claude Code's headless\n" +
			"events (claude -p), for scripts and CI; --json is Helios's own event shape.",
		Args: args(cobra.ArbitraryArgs),
		RunE: func(cmd *cobra.Command, a []string) error {
			if err := h.check(g, a); err != nil {
				return err
			}
			g.watch = true
			g.logger = stderrLogger(cmd.ErrOrStderr())
			c, err := g.readConfig()
			if err != nil {
				return err
			}
			if h.inputFormat == formatStreamJSON {
				return g.runHeadless(cmd, &h, c, resume, "")
			}
			prompt, allowed, slash, err := g.slashPrompt(cmd.Context(), a, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			if !slash {
				prompt = a[0]
			}
			if h.headless() {
				// A command's allowed-tools pre-approve calls for its turn.
				cmd.SetContext(kernel.WithPreapproved(cmd.Context(), allowed))
				return g.runHeadless(cmd, &h, c, resume, prompt)
			}
			return g.withKernel(cmd, func(k *kernel.Kernel) error {
				out := cmd.OutOrStdout()
				p := &progress{w: out, json: g.json, start: startJSON(c.cfg)}
				sc := kernel.SessionConfig{Resume: resume, MaxSteps: h.maxTurns, Observe: p.update}
				if g.askTTY && !h.print {
					// On a terminal an ask goes to the person; without one,
					// or with -p (as claude -p), it is denied, naming the
					// rule that asked.
					sc.Confirm = newTermAsker(cmd.ErrOrStderr(), os.Stdin).confirm
				}
				s, err := k.OpenSession(cmd.Context(), sc)
				if err != nil {
					return err
				}
				defer s.Close()
				// A command's allowed-tools pre-approve calls for its turn.
				_, err = s.Run(kernel.WithPreapproved(cmd.Context(), allowed), prompt)
				p.done(s.ID(), err)
				return err
			})
		},
	}
	c.Flags().StringVar(&resume, "resume", "", "continue the session with this ID")
	h.add(c)
	return c
}

// progress prints a session's updates as they happen.
type progress struct {
	w      io.Writer
	json   bool
	inText bool
	// start is --json's first event, written just before the first update.
	start map[string]any
	// usage sums the turn's model requests.
	usage    session.Usage
	requests int
}

func (p *progress) update(u kernel.Update) {
	if u.Kind == kernel.UpdateUsage {
		p.usage, p.requests = p.usage.Add(u.Usage), p.requests+1
	}
	if u.Kind == kernel.UpdateSubagent {
		p.usage = p.usage.Add(u.Usage) // a subagent's tokens count in the total
	}
	if p.json {
		p.started()
		_ = writeJSONLine(p.w, updateJSON(u))
		return
	}
	switch u.Kind {
	case kernel.UpdateText:
		p.inText = true
		fmt.Fprint(p.w, sanitize.Text(u.Text))
	case kernel.UpdateToolCall:
		p.endText()
		fmt.Fprintf(p.w, "→ %s %s\n", sanitize.Text(u.Call.Name), clip(string(u.Call.Arguments), 100))
	case kernel.UpdateToolResult:
		status := "ok"
		if u.IsError {
			status = "error"
		}
		lines := strings.Count(strings.TrimRight(u.Text, "\n"), "\n") + 1
		fmt.Fprintf(p.w, "  %s (%d line(s)): %s\n", status, lines, clip(u.Text, 100))
	case kernel.UpdateInjected:
		p.endText()
		fmt.Fprintf(p.w, "· %s\n", clip(u.Text, 100))
	case kernel.UpdateCompacted:
		p.endText()
		fmt.Fprintln(p.w, "· context compacted")
	case kernel.UpdateWarning:
		p.endText()
		fmt.Fprintf(p.w, "! %s\n", sanitize.Text(u.Text))
	}
}

// started writes the start event if it is not written yet.
func (p *progress) started() {
	if p.start != nil {
		_ = writeJSONLine(p.w, p.start)
		p.start = nil
	}
}

func (p *progress) endText() {
	if p.inText {
		fmt.Fprintln(p.w)
		p.inText = false
	}
}

func (p *progress) done(id string, err error) {
	if p.json {
		p.started()
		ev := map[string]any{"kind": "done", "session": id}
		if err != nil {
			ev["error"] = err.Error()
		}
		_ = writeJSONLine(p.w, ev)
		return
	}
	p.endText()
	if p.requests > 0 {
		fmt.Fprintf(p.w, "\n%s\n", usageLine(p.usage, p.requests))
	}
	fmt.Fprintf(p.w, "\nsession %s (helios run --resume %s \"...\" continues it)\n", id, id)
}

// usageLine says what n model requests used: "tokens: 12,345 in (10,000
// read from the prompt cache, 1,200 written to it), 345 out, 3 requests".
func usageLine(u session.Usage, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "tokens: %s in", thousands(u.Input))
	var cache []string
	if u.CacheRead > 0 {
		cache = append(cache, thousands(u.CacheRead)+" read from the prompt cache")
	}
	if u.CacheWrite > 0 {
		cache = append(cache, thousands(u.CacheWrite)+" written to it")
	}
	if len(cache) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(cache, ", "))
	}
	fmt.Fprintf(&b, ", %s out, %d request", thousands(u.Output), n)
	if n != 1 {
		b.WriteString("s")
	}
	return b.String()
}

// thousands writes n with commas between groups of three digits.
func thousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		return "-" + s
	}
	return s
}

// startJSON is run --json's first event: what of the config is ignored,
// which the warnings on stderr also say.
func startJSON(cfg assembly.Config) map[string]any {
	warnings := []string{}
	for _, w := range assembly.HookWarnings(cfg) {
		warnings = append(warnings, w.Message)
	}
	return map[string]any{
		"kind":             "start",
		"hookEventsNotRun": append([]string{}, cmdhooks.Unknown(cfg.Hooks)...),
		"warnings":         warnings,
	}
}

func updateJSON(u kernel.Update) map[string]any {
	kinds := map[kernel.UpdateKind]string{
		kernel.UpdateText: "text", kernel.UpdateToolCall: "tool_call", kernel.UpdateToolResult: "tool_result",
		kernel.UpdateInjected: "injected", kernel.UpdateCompacted: "compacted", kernel.UpdateWarning: "warning", kernel.UpdateUsage: "usage",
		kernel.UpdateSubagent: "subagent",
	}
	m := map[string]any{"kind": kinds[u.Kind]}
	if u.Kind == kernel.UpdateUsage || (u.Kind == kernel.UpdateSubagent && u.Usage != (session.Usage{})) {
		m["usage"] = u.Usage
	}
	if u.Text != "" {
		m["text"] = u.Text
	}
	if u.Call.Name != "" {
		m["tool"] = u.Call.Name
		m["id"] = u.Call.ID
		m["input"] = string(u.Call.Arguments)
	}
	if u.Kind == kernel.UpdateToolResult {
		m["isError"] = u.IsError
		if p := u.Permission; p.Behavior != "" {
			m["permission"] = map[string]string{"decision": p.Behavior, "rule": p.Rule, "list": p.List, "reason": p.Reason}
		}
	}
	return m
}

func sessionsCmd(g *globals) *cobra.Command {
	c := &cobra.Command{
		Use:   "sessions",
		Short: "List and show saved sessions",
		Args:  args(cobra.NoArgs),
		RunE:  groupHelp,
	}
	c.AddCommand(&cobra.Command{
		Use:   "list",
		Short: "List saved sessions, most recent first, each subagent's under its parent",
		Args:  args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return g.withKernel(cmd, func(k *kernel.Kernel) error {
				infos, err := k.SessionStore().List(cmd.Context())
				if err != nil {
					return err
				}
				if infos == nil {
					infos = []session.Info{}
				}
				if g.json {
					return writeJSON(cmd.OutOrStdout(), struct {
						Sessions []session.Info `json:"sessions"`
					}{infos})
				}
				if len(infos) == 0 {
					fmt.Fprintln(cmd.OutOrStdout(), "No sessions.")
					return nil
				}
				tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "ID\tUPDATED\tEVENTS\tTITLE")
				for _, r := range sessionRows(infos) {
					id, title := r.ID, clip(r.Title, 60)
					if r.depth > 0 {
						id = strings.Repeat("  ", r.depth-1) + "└ " + id
					} else if r.Parent != "" {
						title = "(child of " + r.Parent + ") " + title
					}
					fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", id, r.Updated.Local().Format(time.DateTime), r.Events, title)
				}
				return tw.Flush()
			})
		},
	}, &cobra.Command{
		Use:   "show ID",
		Short: "Print a session's events and the tokens its model requests used",
		Args:  args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			return g.withKernel(cmd, func(k *kernel.Kernel) error {
				evs, err := readSession(cmd.Context(), k.SessionStore(), a[0])
				if err != nil {
					return err
				}
				total, requests := sumUsage(evs)
				if g.json {
					return writeJSON(cmd.OutOrStdout(), struct {
						ID       string          `json:"id"`
						Events   []session.Event `json:"events"`
						Usage    session.Usage   `json:"usage"`
						Requests int             `json:"requests"`
					}{a[0], evs, total, requests})
				}
				printEvents(cmd.OutOrStdout(), evs, func(id string) ([]session.Event, error) {
					return readSession(cmd.Context(), k.SessionStore(), id)
				}, 0)
				if requests > 0 {
					fmt.Fprintln(cmd.OutOrStdout(), usageLine(total, requests))
				}
				return nil
			})
		},
	})
	return c
}

// sessionRow is a session of `sessions list` and how deep it is in the
// tree of subagent sessions.
type sessionRow struct {
	session.Info
	depth int
}

// sessionRows orders infos (most recent first) as a tree: each child
// session right under its parent, its own children under it. A child whose
// parent is not listed stays at the top (the list says whose child it is).
func sessionRows(infos []session.Info) []sessionRow {
	listed := make(map[string]bool, len(infos))
	children := map[string][]session.Info{}
	for _, in := range infos {
		listed[in.ID] = true
	}
	var rows []sessionRow
	var add func(in session.Info, depth int)
	add = func(in session.Info, depth int) {
		rows = append(rows, sessionRow{in, depth})
		for _, c := range children[in.ID] {
			add(c, depth+1)
		}
	}
	for _, in := range infos {
		if in.Parent != "" && in.Parent != in.ID && listed[in.Parent] {
			children[in.Parent] = append(children[in.Parent], in)
		}
	}
	for _, in := range infos {
		if !(in.Parent != "" && in.Parent != in.ID && listed[in.Parent]) {
			add(in, 0)
		}
	}
	if len(rows) < len(infos) { // parents naming each other: a broken store
		shown := make(map[string]bool, len(rows))
		for _, r := range rows {
			shown[r.ID] = true
		}
		for _, in := range infos {
			if !shown[in.ID] {
				rows = append(rows, sessionRow{in, 0})
			}
		}
	}
	return rows
}

// readSession reads a session's events, without locking it when the store
// can (so `sessions show` works while `helios run` is appending to it).
func readSession(ctx context.Context, store session.Store, id string) ([]session.Event, error) {
	if r, ok := store.(session.Reader); ok {
		return r.Read(ctx, id)
	}
	log, err := store.Open(ctx, id)
	if err != nil {
		return nil, err
	}
	defer log.Close()
	evs := make([]session.Event, 0, log.Len())
	for i := range log.Len() {
		evs = append(evs, log.At(i))
	}
	return evs, nil
}

// sumUsage adds up the usage of a session's model requests (its assistant
// events that carry one) and of its subagents (on their Agent results);
// requests counts the session's own.
func sumUsage(evs []session.Event) (session.Usage, int) {
	var total session.Usage
	n := 0
	for _, ev := range evs {
		switch {
		case ev.Type == session.Assistant && ev.Usage != (session.Usage{}):
			total, n = total.Add(ev.Usage), n+1
		case ev.Type == session.ToolResult:
			total = total.Add(ev.Usage)
		}
	}
	return total, n
}

// maxTreeDepth bounds how deep `sessions show` follows subagents' sessions.
const maxTreeDepth = 4

// printEvents prints a session's events; a subagent's session (named on its
// Agent result) follows that result, indented, read with child.
func printEvents(w io.Writer, evs []session.Event, child func(id string) ([]session.Event, error), depth int) {
	pad := strings.Repeat("      ", depth)
	for _, ev := range evs {
		fmt.Fprint(w, pad)
		if p := ev.Meta[kernel.MetaParentSession]; p != "" && ev.Type == session.User {
			fmt.Fprintf(w, "     (subagent session of %s, call [%s])\n%s", p, clip(ev.Meta[kernel.MetaParentToolUse], 64), pad)
		}
		printEvent(w, ev)
		id := ev.Meta[kernel.MetaSubagentSession]
		if id == "" || ev.Type != session.ToolResult {
			continue
		}
		fmt.Fprintf(w, "%s     └ subagent %s: session %s\n", pad, clip(ev.Meta[kernel.MetaSubagentType], 64), clip(id, 64))
		if depth+1 >= maxTreeDepth || child == nil {
			continue
		}
		sub, err := child(id)
		if err != nil {
			fmt.Fprintf(w, "%s       (cannot read it: %v)\n", pad, err)
			continue
		}
		printEvents(w, sub, child, depth+1)
	}
}

func printEvent(w io.Writer, ev session.Event) {
	{
		switch ev.Type {
		case session.ToolUse:
			fmt.Fprintf(w, "%4d %-11s %s %s [%s]\n", ev.Seq, ev.Type, clip(ev.ToolName, 64), clip(string(ev.Input), 120), clip(ev.ToolUseID, 64))
		case session.ToolResult:
			mark := ""
			if ev.IsError {
				mark = " (error)"
			}
			fmt.Fprintf(w, "%4d %-11s [%s]%s %s\n", ev.Seq, ev.Type, clip(ev.ToolUseID, 64), mark, clip(ev.Text, 120))
		case session.Injected:
			fmt.Fprintf(w, "%4d %-11s (%s) %s\n", ev.Seq, ev.Type, clip(ev.Provenance, 64), clip(ev.Text, 120))
		case session.Compaction:
			fmt.Fprintf(w, "%4d %-11s hides %d..%d: %s\n", ev.Seq, ev.Type, ev.From, ev.To, clip(ev.Text, 120))
		case session.Assistant:
			u := ""
			if ev.Usage != (session.Usage{}) {
				u = fmt.Sprintf(" [%s in, %s cached, %s out]", thousands(ev.Usage.Input), thousands(ev.Usage.CacheRead), thousands(ev.Usage.Output))
			}
			fmt.Fprintf(w, "%4d %-11s %s%s\n", ev.Seq, ev.Type, clip(ev.Text, 120), u)
		default:
			fmt.Fprintf(w, "%4d %-11s %s\n", ev.Seq, clip(string(ev.Type), 20), clip(ev.Text, 120))
		}
	}
}
