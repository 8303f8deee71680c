package main

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/helios-agents/helios/plugins/sdk"
)

// tagRules are the Bash commands guard-tags refuses: release notes are
// written against published tags, and these rewrite history under them.
var tagRules = []struct {
	re   *regexp.Regexp
	what string
}{
	{regexp.MustCompile(`\bgit\s+tag\s+(?:[^;&|]*\s)?(?:-d|--delete)\b`), "deletes a tag"},
	{regexp.MustCompile(`\bgit\s+push\b[^;&|]*(?:\s--delete\b|\s-d\b|\s:refs/tags/)`), "deletes a remote ref"},
	{regexp.MustCompile(`\bgit\s+push\b[^;&|]*\s(?:--force\b|-f\b|--force-with-lease\b)[^;&|]*\s--tags\b`), "force-pushes tags"},
	{regexp.MustCompile(`\bgit\s+push\b[^;&|]*\s--tags\b[^;&|]*\s(?:--force\b|-f\b|--force-with-lease\b)`), "force-pushes tags"},
}

// guardTags denies Bash commands that delete or force-push tags, and passes
// on everything else.
func (p *releaseNotes) guardTags(_ context.Context, in sdk.ToolBeforeIn) (sdk.ToolDecision, bool, error) {
	if in.Call.Name != "Bash" {
		return sdk.ToolDecision{}, false, nil
	}
	var args struct {
		Command string `json:"command"`
	}
	if err := json.Unmarshal(in.Call.Arguments, &args); err != nil {
		return sdk.ToolDecision{}, false, nil // the Bash tool reports bad arguments itself
	}
	for _, r := range tagRules {
		if r.re.MatchString(args.Command) {
			return sdk.ToolDecision{
				Deny:   true,
				Reason: fmt.Sprintf("release-notes refuses a command that %s: published tags are what release notes are written against. Ask the user to run it by hand if they really mean to.", r.what),
			}, true, nil
		}
	}
	return sdk.ToolDecision{}, false, nil
}

// sections are the headings of a draft, in order, by conventional-commit type.
var sections = []struct{ types, title string }{
	{"feat", "Features"},
	{"fix", "Fixes"},
	{"perf", "Performance"},
	{"docs", "Documentation"},
	{"", "Other changes"},
}

var conventional = regexp.MustCompile(`^([a-z]+)(?:\([^)]*\))?!?:\s*(.+)$`)

// formatArgs are release_notes_format's arguments: the struct is the schema
// the model sees.
type formatArgs struct {
	Version string `json:"version" jsonschema:"The version being released, e.g. v1.5.0."`
	Log     string `json:"log" jsonschema:"The whole output of scripts/collect.sh."`
}

func formatTool() sdk.Tool {
	return sdk.NewTool("release_notes_format",
		"Format the output of the release-notes skill's collect.sh as a Markdown draft of release notes, grouped by conventional-commit type (feat, fix, perf, docs, other).",
		func(_ context.Context, in formatArgs) (sdk.ToolResult, error) {
			if strings.TrimSpace(in.Version) == "" {
				return sdk.ErrorResult("release_notes_format: version is missing"), nil
			}
			return sdk.ToolResult{Content: formatNotes(in.Version, in.Log)}, nil
		})
}

// formatNotes groups "<hash> <subject>" lines under headings.
func formatNotes(version, log string) string {
	groups := map[string][]string{}
	since, n := "", 0
	for line := range strings.Lines(log) {
		line = strings.TrimSpace(line)
		if s, ok := strings.CutPrefix(line, "since: "); ok {
			since = s
			continue
		}
		hash, subject, ok := strings.Cut(line, " ")
		if !ok || subject == "" {
			continue
		}
		key, text := "", subject
		if m := conventional.FindStringSubmatch(subject); m != nil {
			for _, s := range sections {
				if s.types == m[1] {
					key, text = m[1], m[2]
				}
			}
		}
		groups[key] = append(groups[key], fmt.Sprintf("- %s (%s)", text, hash))
		n++
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n", version)
	if since != "" {
		fmt.Fprintf(&b, "\n%d changes since %s.\n", n, since)
	}
	for _, s := range sections {
		if items := groups[s.types]; len(items) > 0 {
			fmt.Fprintf(&b, "\n## %s\n\n%s\n", s.title, strings.Join(items, "\n"))
		}
	}
	return b.String()
}
