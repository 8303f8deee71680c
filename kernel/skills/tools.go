package skills

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"text/template"

	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/sanitize"
	"github.com/helios-agents/helios/kernel/skills/internal/text"
)

// Mode selects how skills reach the model. The zero value is ModeCatalog.
type Mode int

const (
	// ModeCatalog offers one "skill" tool that takes a name; the names and
	// descriptions reach the model as an appended catalog message. The tool
	// list never changes, so earlier tokens stay cacheable.
	ModeCatalog Mode = iota
	// ModeTools offers one tool per skill, named by the skill and described
	// by its description. The tool list is the catalog.
	ModeTools
)

// String returns "catalog" or "tools".
func (m Mode) String() string {
	switch m {
	case ModeCatalog:
		return "catalog"
	case ModeTools:
		return "tools"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// toolNameRE is compiled on first use, not at start: its {1,64} makes it
// the costliest regexp of the binary to compile, and most commands never
// check a tool name.
var toolNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`) })

// ValidToolName reports whether name can be a tool name for model APIs
// (in tools mode a skill's name is its tool's). Exported for tools that
// write skills meant for tools mode.
func ValidToolName(name string) bool { return toolNameRE().MatchString(name) }

// SkillToolName is the name of the catalog-mode tool.
const SkillToolName = "skill"

// The skill tool's description describes skills by their role. It must not
// rely on a tool-name pattern: skill tools are named by their authors.
var (
	//go:embed skill_tool.md
	skillToolMD string
	//go:embed skill_tool_catalog.md
	skillToolCatalogMD string
	//go:embed load.md.tmpl
	loadMD string

	skillToolDescription = SkillToolDescription() + " " + strings.TrimRight(skillToolCatalogMD, "\n")
	loadTmpl             = sync.OnceValue(func() *template.Template { return template.Must(template.New("load").Parse(loadMD)) })
)

// SkillToolDescription is what the skill tool does, for a front end
// offering the same tool with its own list of skills (the MCP server).
func SkillToolDescription() string { return strings.TrimRight(skillToolMD, "\n") }

// SkillArgs are the skill tool's arguments, for a front end offering the
// same tool (the MCP server).
type SkillArgs struct {
	Name string `json:"name" jsonschema:"The skill's name, exactly as listed."`
}

// SearchArgs are the skill_search tool's arguments, for a front end
// offering the same tool (the MCP server).
type SearchArgs struct {
	Query string `json:"query" jsonschema:"A few words describing the task."`
}

// The skill_search tool's text lives in these files.
var (
	//go:embed skill_search.md
	searchToolMD string
	//go:embed skill_search_result.md
	searchResultMD string
	//go:embed skill_search_none.md
	searchNoneMD string

	searchToolDescription = strings.TrimRight(searchToolMD, "\n")
	searchResultHead      = strings.TrimRight(searchResultMD, "\n")
	searchNone            = strings.TrimRight(searchNoneMD, "\n")
)

// noArgsSchema is a tools-mode skill tool's: it takes no arguments. Derived
// once, as every tools-mode tool shares it.
var noArgsSchema = sync.OnceValue(func() json.RawMessage { return contract.SchemaFor[struct{}]() })

// ToSkillTools is the only place skills become what the model sees: the
// kernel offers the model the tools it returns for its catalog and budget.
// Skills with DisableModelInvocation are left out. In ModeCatalog it returns
// the skill tool, which loads every visible skill by its exact name, those
// the catalog budget omitted too, then the skill_search tool, which finds
// any of them by words of its name and description in c's index, built once
// per catalog (Catalog.Search). In ModeTools a skill whose name is not a
// valid tool name is left out with a warning, and the tools come in the
// catalog order b gives (Order), at most b.ToolsMax of them (ToolSkills;
// catalog.ViewOf reports what was omitted). A zero Budget bounds nothing.
func ToSkillTools(c Catalog, mode Mode, b Budget) ([]contract.Tool, []contract.Warning) {
	skills := c.Skills
	if mode == ModeCatalog {
		visible := make([]Skill, 0, len(skills))
		for _, s := range skills {
			if !s.DisableModelInvocation {
				visible = append(visible, s)
			}
		}
		return []contract.Tool{catalogTool(visible), searchTool(c)}, nil
	}
	var warns []contract.Warning
	for _, s := range skills {
		if !s.DisableModelInvocation && !ValidToolName(s.Name) {
			warns = append(warns, contract.Warning{Source: s.Source, Path: pathOf(s),
				Message: fmt.Sprintf("skill name %q is not a valid tool name (letters, digits, _ and -, at most 64); left out of tools mode", s.Name)})
		}
	}
	offered, _, _ := ToolSkills(skills, b)
	tools := make([]contract.Tool, 0, len(offered))
	for _, p := range offered {
		s := *p.Skill
		tools = append(tools, contract.Tool{
			Name:        s.Name,
			Description: toolDescription(s),
			Schema:      noArgsSchema(),
			Call: func(ctx context.Context, _ json.RawMessage) (contract.ToolResult, error) {
				return loadResult(ctx, s), nil
			},
		})
	}
	return tools, warns
}

func catalogTool(visible []Skill) contract.Tool {
	return contract.NewTool(SkillToolName, skillToolDescription, func(ctx context.Context, in SkillArgs) (contract.ToolResult, error) {
		if in.Name == "" {
			return contract.ErrorResult(`the skill tool takes {"name": "<skill name>"}`), nil
		}
		for _, s := range visible {
			if s.Name == in.Name {
				return loadResult(ctx, s), nil
			}
		}
		names := make([]string, len(visible))
		for i, s := range visible {
			names[i] = s.Name
		}
		if close := CloseMatches(in.Name, names); len(close) > 0 {
			return contract.ErrorResult("unknown skill %q; did you mean %s?", in.Name, strings.Join(close, ", ")), nil
		}
		return contract.ErrorResult("unknown skill %q; the available skills are listed in <available_skills>", in.Name), nil
	})
}

func searchTool(c Catalog) contract.Tool {
	return contract.NewTool(SearchToolName, searchToolDescription, func(_ context.Context, in SearchArgs) (contract.ToolResult, error) {
		text, err := SearchText(c, in.Query)
		if err != nil {
			return contract.ErrorResult("%v", err), nil
		}
		return contract.ToolResult{Content: text}, nil
	})
}

// SearchToolDescription is the skill_search tool's description, for a front
// end offering the same tool (the MCP server).
func SearchToolDescription() string { return searchToolDescription }

// SearchText is what the skill_search tool answers for query: the best
// DefaultSearchLimit skills, one "- name (source): description" line each
// (the description whole, whitespace collapsed), or a sentence saying none
// matched. A bad query (ErrBadQuery) is an error naming the limit.
// Exported so that a front end (the MCP server) answers with the same text.
func SearchText(c Catalog, query string) (string, error) {
	hits, err := c.Search(query, DefaultSearchLimit)
	if err != nil {
		return "", fmt.Errorf("skill_search: %w", err)
	}
	q := fmt.Sprintf("%q", text.Collapse(query))
	if len(hits) == 0 {
		return strings.ReplaceAll(searchNone, "{query}", q), nil
	}
	var b strings.Builder
	b.WriteString(strings.ReplaceAll(searchResultHead, "{query}", q))
	for _, h := range hits {
		fmt.Fprintf(&b, "\n- %s (%s): %s", h.Skill.Name, h.Skill.Source, text.Collapse(h.Skill.Description))
	}
	return b.String(), nil
}

// loadResult loads a skill for the model. A load that fails is a tool result
// the model can read, not a Go error.
func loadResult(ctx context.Context, s Skill) contract.ToolResult {
	text, err := Load(ctx, s)
	if err != nil {
		return contract.ErrorResult("%v", err)
	}
	return contract.ToolResult{Content: text}
}

// Load reads a skill now and renders the text the model receives.
func Load(ctx context.Context, s Skill) (string, error) {
	if s.Load == nil {
		return "", fmt.Errorf("load skill %q: it has no loader", s.Name)
	}
	c, err := s.Load(ctx)
	if err != nil {
		return "", fmt.Errorf("load skill %q: %w", s.Name, err)
	}
	return loadText(s.BaseDir, c.Body), nil
}

// loadText renders a loaded skill: the absolute base directory, the rule for
// resolving relative paths against it (a path alone is not enough: models then
// run scripts from the work dir and burn turns searching), then the body,
// its hidden characters made visible (package sanitize: a body is text from
// a file, like the description). The base directory stays exact: the model
// must be able to cd into it.
func loadText(baseDir, body string) string {
	var b strings.Builder
	_ = loadTmpl().Execute(&b, map[string]string{"BaseDir": baseDir, "Quoted": shellQuote(baseDir)})
	b.WriteString(sanitize.Text(strings.TrimLeft(body, "\n")))
	return b.String()
}

// shellQuote quotes a path for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// CloseMatches returns up to three names near want: sharing a prefix or
// within a small edit distance.
func CloseMatches(want string, names []string) []string {
	type scored struct {
		name string
		d    int
	}
	var cs []scored
	limit := max(2, len([]rune(want))/3)
	for _, n := range names {
		d := editDistance(want, n)
		if d <= limit || strings.HasPrefix(n, want) || strings.HasPrefix(want, n) {
			cs = append(cs, scored{n, d})
		}
	}
	slices.SortStableFunc(cs, func(a, b scored) int { return a.d - b.d })
	out := []string{}
	for i := 0; i < len(cs) && i < 3; i++ {
		out = append(out, cs[i].name)
	}
	return out
}

func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
