package unit_test

// Contract C23: every skill reachable at a bounded catalog cost, through the
// helios binary, helios mcp and a watched root. The search's own tests are in
// kernel/skills/search_test.go, the step loop's in kernel/catalogreach_test.go.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/assembly"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/session"
	"github.com/helios-agents/helios/kernel/skills/catalog"
	"github.com/helios-agents/helios/mcpserver"
	"github.com/helios-agents/helios/watch"
)

// reachHits returns the names a skill_search result lists, in order.
func reachHits(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if rest, ok := strings.CutPrefix(l, "- "); ok {
			name, _, _ := strings.Cut(rest, " (")
			out = append(out, name)
		}
	}
	return out
}

// C23 through helios mcp: skill_search is offered beside skill and finds a
// skill the description's budget left out, by words of its description.
func TestMCPSkillSearch(t *testing.T) {
	work := t.TempDir()
	user := filepath.Join(t.TempDir(), "skills")
	require.NoError(t, os.MkdirAll(user, 0o755))
	for i := range 40 {
		name := fmt.Sprintf("skill-%02d", i)
		writeFile(t, filepath.Join(user, name, "SKILL.md"), skillMD("name: "+name+"\ndescription: Does a careful thing number "+fmt.Sprint(i)+".", "Body of "+name+".\n"))
	}
	writeFile(t, filepath.Join(user, "zz-forms", "SKILL.md"), skillMD("name: zz-forms\ndescription: Fills in PDF forms.", "Body of the forms skill.\n"))
	cfg, err := json.Marshal(map[string]any{"skills": map[string]any{"userRoots": []string{user}, "catalog": map[string]any{"budget": 700}}})
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), assembly.ConfigFileName)
	require.NoError(t, os.WriteFile(path, cfg, 0o644))
	k, err := assembly.Load(context.Background(), path, assembly.Options{WorkDir: work})
	require.NoError(t, err)
	t.Cleanup(func() { k.Close() })

	cs, _ := mcpConnect(t, mcpNewServer(t, k), mcpProtocols[0])
	require.NotContains(t, mcpTool(t, cs, "skill").Description, "zz-forms", "the test needs the skill left out")
	assert.Contains(t, mcpTool(t, cs, "skill_search").Description, "a few words")
	text, isErr := mcpCall(t, cs, "skill_search", map[string]any{"query": "pdf forms"})
	require.False(t, isErr, text)
	assert.Equal(t, "zz-forms", reachHits(text)[0], text)
	text, isErr = mcpCall(t, cs, "skill_search", map[string]any{"query": strings.Repeat("x", 10240)})
	assert.True(t, isErr)
	assert.Contains(t, text, "over the limit of 500")
}

// C23: `helios skills catalog --json` says why each listed skill is there,
// recency read from the configured JSONL session store.
func TestCatalogRecentCLI(t *testing.T) {
	dir, work := t.TempDir(), t.TempDir()
	root := filepath.Join(dir, "skills")
	for i := range 20 {
		catWriteSkill(t, root, fmt.Sprintf("skill-%02d", i), "Does task "+fmt.Sprint(i)+" when the user asks for it.", "body")
	}
	catWriteSkill(t, filepath.Join(work, ".helios", "skills"), "proj", "A project skill.", "body")
	sessions := filepath.Join(dir, "sessions")
	st, err := session.NewJSONLStore(session.JSONLConfig{Dir: sessions})
	require.NoError(t, err)
	l, err := st.Create(t.Context())
	require.NoError(t, err)
	_, err = l.Append(t.Context(),
		session.Event{Type: session.ToolUse, ToolUseID: "c1", ToolName: "skill", Input: json.RawMessage(`{"name":"skill-17"}`)},
		session.Event{Type: session.ToolResult, ToolUseID: "c1", ToolName: "skill", Text: "Body", Meta: map[string]string{kernel.LoadedSkillKey: "skill-17", kernel.WorkDirKey: work}})
	require.NoError(t, err)
	require.NoError(t, l.Close())
	cfg := filepath.Join(dir, "cfg.json")
	writeFile(t, cfg, `{"skills":{"userRoots":["`+root+`"],"catalog":{"budget":300,"pinned":["skill-03"]}},"sessions":{"dir":"`+sessions+`"}}`)

	r := helios(t, t.TempDir(), work, "--json", "--config", cfg, "--work-dir", work, "skills", "catalog")
	require.Equal(t, 0, r.code, r.stderr)
	var got struct {
		Message string           `json:"message"`
		Listed  []catalog.Listed `json:"listed"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &got), r.stdout)
	require.GreaterOrEqual(t, len(got.Listed), 4, r.stdout)
	assert.Equal(t, []catalog.Listed{{Name: "skill-03", Why: "pinned"}, {Name: "proj", Why: "project"}, {Name: "skill-17", Why: "recent"}, {Name: "skill-00", Why: "name"}}, got.Listed[:4])
	assert.Contains(t, got.Message, "- skill-17")
}

// C23: the roots people already have. With no config, ~/.claude/skills and
// <work dir>/.claude/skills are read after Helios's own roots (a name in
// both loses to Helios's with a warning naming both), and `skills list`
// shows each skill with its source and folder.
func TestClaudeSkillRootsByDefault(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	catWriteSkill(t, filepath.Join(home, ".claude", "skills"), "from-claude-home", "A skill Claude Code users keep at home.", "body")
	catWriteSkill(t, filepath.Join(work, ".claude", "skills"), "from-claude-work", "A skill Claude Code users keep in the project.", "body")
	catWriteSkill(t, filepath.Join(home, ".claude", "skills"), "shared", "The Claude Code copy.", "body")
	catWriteSkill(t, filepath.Join(home, ".helios", "skills"), "shared", "The Helios copy.", "body")

	r := helios(t, home, work, "--json", "skills", "list")
	require.Equal(t, 0, r.code, r.stderr)
	var got struct {
		Skills []struct {
			Name, Description, Source, BaseDir string
		} `json:"skills"`
		Warnings []contract.Warning `json:"warnings"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &got), r.stdout)
	bySkill := map[string]string{}
	for _, s := range got.Skills {
		bySkill[s.Name] = s.Source + " " + s.BaseDir + " " + s.Description
	}
	assert.Equal(t, "user "+filepath.Join(home, ".claude", "skills", "from-claude-home")+" A skill Claude Code users keep at home.", bySkill["from-claude-home"])
	assert.Equal(t, "project "+filepath.Join(work, ".claude", "skills", "from-claude-work")+" A skill Claude Code users keep in the project.", bySkill["from-claude-work"])
	assert.Equal(t, "user "+filepath.Join(home, ".helios", "skills", "shared")+" The Helios copy.", bySkill["shared"], "Helios's own root wins")
	found := false
	for _, w := range got.Warnings {
		found = found || strings.Contains(w.Message, `"shared"`) && strings.Contains(w.Message, filepath.Join(".claude", "skills", "shared"))
	}
	assert.True(t, found, "a warning names the shadowed .claude copy: %v", got.Warnings)
}

// C23: a burst of 1,000 renames into a watched root (a checkout) yields a
// handful of change signals, never an incomplete catalog, and the last
// catalog holds every skill; the first change after a quiet window is not
// held back for the burst window (the leading edge).
func TestChangeBurstFewCatalogs(t *testing.T) {
	k, root := reachWatchedKernel(t)
	staging, names := reachStage(t, root, "burst", 1000)
	var mu sync.Mutex
	var signals, incomplete int
	var lastSignal time.Time
	defer k.Skills().OnChange(func() {
		mu.Lock()
		signals++
		lastSignal = time.Now()
		mu.Unlock()
	})()
	start := time.Now()
	for _, name := range names {
		require.NoError(t, os.Rename(filepath.Join(staging, name), filepath.Join(root, name)))
	}
	took := time.Since(start)
	deadline := time.Now().Add(30 * time.Second)
	for {
		cat := k.Catalog(t.Context())
		if !cat.Complete {
			incomplete++
		}
		if len(cat.Skills) == len(names) || time.Now().After(deadline) {
			require.Len(t, cat.Skills, len(names), "every renamed skill is published")
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond) // any trailing batch
	mu.Lock()
	got, span := signals, lastSignal.Sub(start)
	mu.Unlock()
	// The watcher takes at most one batch per coalescing window (50 ms):
	// a leading edge comes a window after the last batch, any other batch a
	// window after its first event. So from the first rename to the last
	// signal there fit at most 1 + span/window signals: on a quiet machine
	// (60 ms of renames, the trailing batch 50 ms later) that is 3. The
	// count alone is not bounded: a watcher descheduled for two windows
	// under load sees a quiet window (events are stamped when read), and a
	// quiet window ends a burst (C23's leading edge), so a stall adds a
	// trailing batch and a leading edge; the window between signals holds.
	bound := 1 + int(span/watch.DefaultCoalesce)
	t.Logf("1,000 renames in %s: %d change signals, the last %s after the first rename (bound %d)", took, got, span, bound)
	assert.LessOrEqual(t, got, bound, "a burst yields at most one catalog per coalescing window")
	assert.Positive(t, got)
	assert.Zero(t, incomplete, "no catalog read during the burst was incomplete")
}

// C23 through helios mcp: the initialize instructions carry the budgeted
// catalog (bounded by skills.catalog.budget, and current for a client that
// initializes after a change); the skill tool's description stays within
// 4,096 characters with the sentence about the omitted skills and
// skill_search first, even when the catalog budget allows more.
func TestMCPInstructionsAndDescriptionBound(t *testing.T) {
	w := newMCPWorld(t, "native")
	for i := range 600 {
		name := fmt.Sprintf("skill-%03d", i)
		writeFile(t, filepath.Join(w.user, name, "SKILL.md"), skillMD("name: "+name+"\ndescription: "+strings.Repeat("Does a careful thing. ", 4), "body"))
	}
	srv := mcpNewServer(t, w.k)
	budget := w.k.CatalogBudget().Chars
	require.Equal(t, 10240, budget, "the default budget")

	cs, _ := mcpConnect(t, srv, mcpProtocols[0])
	instr := cs.InitializeResult().Instructions
	assert.Contains(t, instr, "<available_skills>\n- skill-000", "the instructions list the catalog")
	assert.Contains(t, instr, "skill_search", "the instructions name skill_search")
	cat := w.k.CatalogView(w.k.Catalog(t.Context()), w.k.CatalogBudget())
	assert.True(t, strings.HasSuffix(instr, cat.Message), "the instructions end with the kernel's budgeted catalog message")
	assert.LessOrEqual(t, utf8.RuneCountInString(instr), budget+1000, "the instructions are bounded by the catalog budget")

	desc := mcpTool(t, cs, "skill").Description
	assert.LessOrEqual(t, utf8.RuneCountInString(desc), mcpserver.MaxToolDescription)
	first, _, _ := strings.Cut(desc, "\n")
	assert.Regexp(t, `^\d+ more skills are not listed below.*skill_search.*loads any skill by its exact name\.$`, first, "the omitted sentence comes first")
	assert.Contains(t, desc, "- skill-000", "the description still lists what fits")

	// A new skill: a client initializing after the change gets it.
	mcpPutSkill(t, w.user, "aaa-new", "name: aaa-new\ndescription: Arrived after the first client.", "body")
	require.Eventually(t, func() bool {
		c2, _ := mcpConnect(t, srv, mcpProtocols[0])
		return strings.Contains(c2.InitializeResult().Instructions, "- aaa-new")
	}, 10*time.Second, 50*time.Millisecond, "a re-initializing client gets the current catalog")
}
