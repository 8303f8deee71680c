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
	}
	m := map[string]any{"kind": kinds[u.Kind]}
	if u.Kind == kernel.UpdateUsage {
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
		Short: "List saved sessions, most recent first",
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
				for _, in := range infos {
					fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", in.ID, in.Updated.Local().Format(time.DateTime), in.Events, clip(in.Title, 60))
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
				printEvents(cmd.OutOrStdout(), evs)
				if requests > 0 {
					fmt.Fprintln(cmd.OutOrStdout(), usageLine(total, requests))
				}
				return nil
			})
		},
	})
	return c
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
// events that carry one).
func sumUsage(evs []session.Event) (session.Usage, int) {
	var total session.Usage
	n := 0
	for _, ev := range evs {
		if ev.Type == session.Assistant && ev.Usage != (session.Usage{}) {
			total, n = total.Add(ev.Usage), n+1
		}
	}
	return total, n
}

func printEvents(w io.Writer, evs []session.Event) {
	for _, ev := range evs {
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
