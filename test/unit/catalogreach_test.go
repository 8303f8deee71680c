package unit_test

// Contract C23: every skill reachable at a bounded catalog cost.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
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
	"github.com/helios-agents/helios/kernel/model/modeltest"
	"github.com/helios-agents/helios/kernel/model/openai"
	"github.com/helios-agents/helios/kernel/session"
	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/kernel/skills/catalog"
	"github.com/helios-agents/helios/mcpserver"
)

// reachSearch calls the skill_search tool of catalog mode over ss.
func reachSearch(t *testing.T, ss []skills.Skill, args string) contract.ToolResult {
	t.Helper()
	tools, _ := skills.Catalog{Skills: ss}.Tools(skills.ModeCatalog, skills.Budget{})
	i := slices.IndexFunc(tools, func(tl contract.Tool) bool { return tl.Name == skills.SearchToolName })
	require.GreaterOrEqual(t, i, 0, "catalog mode offers no %s tool", skills.SearchToolName)
	res, err := tools[i].Call(context.Background(), json.RawMessage(args))
	require.NoError(t, err, "a tool's failure is a result, never a Go error")
	return res
}

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

// C23 end to end: a skill the budget left out of the catalog is found by
// words of its description through skill_search and loaded by the skill
// tool, in one turn of the step loop.
func TestSkillSearchFindsOmittedSkillInTurn(t *testing.T) {
	root := t.TempDir()
	for i := range 40 {
		catWriteSkill(t, root, fmt.Sprintf("skill-%02d", i), "Does task "+fmt.Sprint(i)+".", "Body of skill "+fmt.Sprint(i)+".")
	}
	catWriteSkill(t, root, "zz-forms", "Fills in PDF forms and extracts the values of their fields.", "Body of the forms skill.")
	srv := modeltest.NewServer(t,
		modeltest.Call(skills.SearchToolName, `{"query":"fill a pdf form"}`),
		modeltest.Call(skills.SkillToolName, `{"name":"zz-forms"}`),
		modeltest.Say("done"))
	client, err := openai.New(openai.Config{BaseURL: srv.URL(), Model: "scripted", MaxRetries: -1})
	require.NoError(t, err)
	k, err := kernel.New(kernel.Config{WorkDir: t.TempDir(), UserSkillRoots: []string{root}, Store: session.NewMemoryStore(),
		Model: client, CatalogBudget: skills.Budget{Chars: 400}})
	require.NoError(t, err)
	defer k.Close()
	s, err := k.OpenSession(t.Context(), kernel.SessionConfig{})
	require.NoError(t, err)
	defer s.Close()
	_, err = s.Run(t.Context(), "fill the form in form.pdf")
	require.NoError(t, err)

	v := k.CatalogView(k.Catalog(t.Context()))
	require.Contains(t, v.Summary.Omitted, "zz-forms", "the test needs the skill left out of the catalog")
	assert.NotContains(t, v.Message, "zz-forms")
	assert.Contains(t, v.Message, "skill_search", "the catalog's note names the tool that finds the rest")
	var results []session.Event
	for i := range s.Log().Len() {
		if ev := s.Log().At(i); ev.Type == session.ToolResult {
			results = append(results, ev)
		}
	}
	require.Len(t, results, 2)
	assert.False(t, results[0].IsError, results[0].Text)
	hits := reachHits(results[0].Text)
	require.NotEmpty(t, hits, results[0].Text)
	assert.Equal(t, "zz-forms", hits[0], "the omitted skill is the best match: %s", results[0].Text)
	assert.Contains(t, results[0].Text, "- zz-forms (user): Fills in PDF forms and extracts the values of their fields.")
	assert.False(t, results[1].IsError, results[1].Text)
	assert.Contains(t, results[1].Text, "Body of the forms skill.")
}

// C23: the ranking. Name words weigh more than description words, a rarer
// word more than a common one, plurals find singulars, ties come by name,
// skills hidden from the model never appear, a skill matching no word never
// appears, and at most 10 come back.
func TestSkillSearchRanking(t *testing.T) {
	ss := []skills.Skill{
		budSkill("deploy", skills.SourceProject, "Ships the service to production."),
		budSkill("release-notes", skills.SourceUser, "Writes the notes for a deploy of the service."),
		budSkill("k8s", skills.CapabilitySource("c"), "Deploys containers to Kubernetes clusters."),
		budSkill("secret-deploy", skills.SourceUser, "Deploys things nobody may see."),
		budSkill("pdf", skills.SourceUser, "Reads PDF documents."),
		budSkill("docx", skills.SourceUser, "Reads Word documents."),
		budSkill("技能", skills.SourceUser, "日本語の文書を翻訳する。"),
		budSkill("review", skills.SourceUser, "Looks over a change and comments on it before it merges, line by line and in detail."),
		budSkill("checklist", skills.SourceUser, "A review checklist."),
	}
	ss[3].DisableModelInvocation = true
	for i := range 15 {
		ss = append(ss, budSkill(fmt.Sprintf("note-%02d", i), skills.SourceUser, "Takes a note."))
	}
	cat := skills.Catalog{Skills: ss, Complete: true}
	names := func(q string) []string {
		hits, err := cat.Search(q, 0)
		require.NoError(t, err, q)
		var out []string
		for _, h := range hits {
			out = append(out, h.Skill.Name)
		}
		return out
	}
	tests := []struct {
		query string
		want  []string
	}{
		{"deploy", []string{"deploy", "k8s", "release-notes"}}, // name first; "deploys" is "deploy"
		{"kubernetes clusters", []string{"k8s"}},               // description words
		{"review", []string{"review", "checklist"}},            // a word of the name outweighs a shorter description
		{"documents", []string{"docx", "pdf"}},                 // a tie comes by name
		{"PDF documents", []string{"pdf", "docx"}},             // case folded; the rarer word decides
		{"翻訳", []string{"技能"}},                                 // unspaced scripts match by character
		{"nothing-matches-this", nil},                          // no word in common: nothing
		{"note", []string{"release-notes", "note-00", "note-01", "note-02", "note-03", "note-04", "note-05", "note-06", "note-07", "note-08"}}, // at most 10
	}
	for _, tt := range tests {
		got := names(tt.query)
		if tt.query == "note" {
			assert.Len(t, got, skills.DefaultSearchLimit)
			assert.Subset(t, got, []string{"note-00", "note-01"}, "note")
			continue
		}
		assert.Equal(t, tt.want, got, "query %q", tt.query)
	}
	for _, q := range []string{"deploy", "nobody may see", "secret-deploy"} {
		assert.NotContains(t, names(q), "secret-deploy", "query %q: a skill hidden from the model is found", q)
	}

	// Deterministic: any order of the same skills gives the same answer.
	r := rand.New(rand.NewPCG(26, 1))
	want := names("deploy the service notes")
	for range 20 {
		perm := slices.Clone(ss)
		r.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		hits, err := skills.Catalog{Skills: perm}.Search("deploy the service notes", 0)
		require.NoError(t, err)
		var got []string
		for _, h := range hits {
			got = append(got, h.Skill.Name)
		}
		assert.Equal(t, want, got)
	}

	// The tool's text: one line per hit with source and whole description.
	res := reachSearch(t, ss, `{"query":"kubernetes"}`)
	assert.False(t, res.IsError)
	assert.Contains(t, res.Content, "- k8s (capability:c): Deploys containers to Kubernetes clusters.")
	none := reachSearch(t, ss, `{"query":"zebra"}`)
	assert.False(t, none.IsError, "no match is an answer, not a failure")
	assert.Contains(t, none.Content, `No skill matches "zebra"`)
}

// C23 bad input: an empty query, one without a word, one of 10 KB, a
// missing or mistyped argument: a short error result naming the limit or
// the shape, never a Go error.
func TestSkillSearchBadInput(t *testing.T) {
	ss := []skills.Skill{budSkill("deploy", skills.SourceProject, "Ships the service.")}
	tests := []struct {
		name, args, want string
	}{
		{"empty", `{"query":""}`, "the query is empty"},
		{"blank", `{"query":"  \t\n"}`, "the query is empty"},
		{"no word", `{"query":"?!- …"}`, "holds no word"},
		{"10 KB", `{"query":"` + strings.Repeat("deploy ", 1463) + `"}`, "10,241 characters is over the limit of 500"},
		{"missing", `{}`, `takes {"query"`},
		{"not a string", `{"query":3}`, `takes {"query"`},
		{"not JSON", `deploy`, `takes {"query"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := reachSearch(t, ss, tt.args)
			assert.True(t, res.IsError, "%s: %s", tt.name, res.Content)
			assert.Contains(t, res.Content, tt.want)
			assert.Less(t, len(res.Content), 200, "the error is short")
		})
	}
	_, err := skills.Catalog{Skills: ss}.Search(strings.Repeat("x", skills.MaxSearchQuery+1), 0)
	assert.ErrorIs(t, err, skills.ErrBadQuery)
	_, err = skills.Catalog{Skills: ss}.Search(strings.Repeat("x", skills.MaxSearchQuery), 0)
	assert.NoError(t, err, "a query at the limit is accepted")
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

// reachKernel is a kernel over root's 40 skills (skill-00 … skill-39, in
// name order, so the budget of 400 characters omits the last ones) with a
// scripted model and the given store.
func reachKernel(t *testing.T, root, work string, store session.Store, logs *budLogs, script ...modeltest.Step) *kernel.Kernel {
	t.Helper()
	srv := modeltest.NewServer(t, script...)
	client, err := openai.New(openai.Config{BaseURL: srv.URL(), Model: "scripted", MaxRetries: -1})
	require.NoError(t, err)
	cfg := kernel.Config{WorkDir: work, UserSkillRoots: []string{root}, Store: store, Model: client, CatalogBudget: skills.Budget{Chars: 400}}
	if logs != nil {
		cfg.Logger = slog.New(logs)
	}
	k, err := kernel.New(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { k.Close() })
	return k
}

func reachRoot(t *testing.T) string {
	root := t.TempDir()
	for i := range 40 {
		catWriteSkill(t, root, fmt.Sprintf("skill-%02d", i), "Does task "+fmt.Sprint(i)+".", "Body of skill "+fmt.Sprint(i)+".")
	}
	return root
}

// reachTurn runs one turn of a new session and returns its first catalog
// message.
func reachTurn(t *testing.T, k *kernel.Kernel) string {
	t.Helper()
	s, err := k.OpenSession(t.Context(), kernel.SessionConfig{})
	require.NoError(t, err)
	defer s.Close()
	_, err = s.Run(t.Context(), "go")
	require.NoError(t, err)
	for i := range s.Log().Len() {
		if ev := s.Log().At(i); ev.Type == session.Injected && ev.Provenance == catalog.Provenance {
			return ev.Text
		}
	}
	t.Fatal("no catalog message")
	return ""
}

// C23: after a skill is loaded, the next session in the same work dir lists
// it (after pinned and project skills, before the rest, most recent first),
// even when the budget left it out before; a session in another work dir
// sharing the store does not.
func TestCatalogRecentLoadsListedNextSession(t *testing.T) {
	root, work := reachRoot(t), t.TempDir()
	store := session.NewMemoryStore()
	k := reachKernel(t, root, work, store, nil,
		modeltest.Call("skill", `{"name":"skill-39"}`),
		modeltest.Call("skill", `{"name":"skill-38"}`),
		modeltest.Call("skill", `{"name":"no-such-skill"}`),
		modeltest.Say("done"),
		modeltest.Say("done again"))
	first := reachTurn(t, k)
	require.NotContains(t, first, "skill-39", "the test needs the skill omitted at first")

	next := reachTurn(t, k)
	assert.Contains(t, next, "<available_skills>\n- skill-38\n- skill-39\n- skill-00\n", "the recent loads come first, most recent first:\n%s", next)
	assert.NotContains(t, next, "no-such-skill", "a failed load is not remembered")

	v := k.CatalogViewNow(t.Context(), k.Catalog(t.Context()))
	require.GreaterOrEqual(t, len(v.Summary.Listed), 3)
	assert.Equal(t, []catalog.Listed{{Name: "skill-38", Why: "recent"}, {Name: "skill-39", Why: "recent"}, {Name: "skill-00", Why: "name"}}, v.Summary.Listed[:3])

	other := reachKernel(t, root, t.TempDir(), store, nil, modeltest.Say("elsewhere"))
	elsewhere := reachTurn(t, other)
	assert.NotContains(t, elsewhere, "skill-39", "a load in another work dir changes nothing here")
}

// reachBrokenStore is a store whose sessions cannot be listed.
type reachBrokenStore struct{ session.Store }

func (reachBrokenStore) List(context.Context) ([]session.Info, error) {
	return nil, errors.New("list sessions: disk on fire")
}

// C23 bad input: a store that cannot be read for recency leaves the
// catalog in name order, with one warning however many sessions open.
func TestCatalogRecentUnreadableStore(t *testing.T) {
	root, logs := reachRoot(t), &budLogs{}
	k := reachKernel(t, root, t.TempDir(), reachBrokenStore{session.NewMemoryStore()}, logs, modeltest.Say("one"), modeltest.Say("two"))
	byName := k.CatalogView(k.Catalog(t.Context())).Message
	assert.Equal(t, byName, reachTurn(t, k))
	assert.Equal(t, byName, reachTurn(t, k))
	assert.Equal(t, 1, logs.count("falls back to name order"), "one warning: %v", logs.recs)
	assert.Equal(t, 1, logs.count("disk on fire"), "the warning says why: %v", logs.recs)
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
	defer k.Skills().OnChange(func() {
		mu.Lock()
		signals++
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
	got := signals
	mu.Unlock()
	// The leading edge, then one batch per coalescing window at most: the
	// window is 50 ms, and a batch is cut at 10 windows however long the
	// burst goes on.
	bound := 3 + int(took/(500*time.Millisecond))
	t.Logf("1,000 renames in %s: %d change signals (bound %d)", took, got, bound)
	assert.LessOrEqual(t, got, bound, "a burst yields a handful of catalogs")
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
	cat := w.k.CatalogView(w.k.Catalog(t.Context()))
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
