package unit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/internal/testkit"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/mcpserver"
)

// Names are data (issue 22): `helios mcp` over the names published skills
// really use — spaces, parentheses, semicolons, "#", "%", unicode, upper
// case — listed, read, loaded, got as prompts, and added while serving.
// The SDK panics on a resource URI net/url refuses, so one such name used
// to end the server.

// mcpNamedSkill is a published-shape skill: its folder, its name and a
// supporting file with a hostile name of its own.
type mcpNamedSkill struct{ folder, name string }

var mcpPublishedShapes = []mcpNamedSkill{
	{"api-fuzzing", "API Fuzzing for Bug Bounty"},
	{"Cloud Security (AWS); v2", "Cloud Security (AWS); v2"},
	{"csharp", "C# 100% (.NET)"},
	{"données", "Données PDF 技能"},
	{"PDF", "PDF"},
	{"next", "Next.js"},
	{"café", "café"}, // follows the naming rules: skill://caf%C3%A9/…
}

const mcpHostileFile = "refs/notes (draft) #1; 100%.md"

// The folder is put in place whole, in one rename, as an install does: the
// server lists a skill's files when it publishes the catalog, which it does
// as soon as the SKILL.md appears, and files deeper in a skill are not
// watched (C4), so one written after its SKILL.md is listed only at the
// next list change (it is readable at once: docs/mcp.md). Writing the
// hostile file after the rename made "listed" a race with the publication
// (TestMCPPublishedNamesSubprocess failed 2 runs in 20).
func mcpWriteNamed(t *testing.T, root string, sk mcpNamedSkill) {
	t.Helper()
	desc, _ := json.Marshal("Does " + sk.name + " things.")
	nm, _ := json.Marshal(sk.name)
	tmp := filepath.Join(filepath.Dir(root), ".staging-"+sk.folder)
	writeFile(t, filepath.Join(tmp, "SKILL.md"), skillMD("name: "+string(nm)+"\ndescription: "+string(desc), "Body of "+sk.name+".\n"))
	writeFile(t, filepath.Join(tmp, filepath.FromSlash(mcpHostileFile)), "notes of "+sk.name+"\n")
	require.NoError(t, os.Rename(tmp, filepath.Join(root, sk.folder)))
}

// mcpListed returns the resources listed, by URI.
func mcpListed(t testing.TB, cs *mcp.ClientSession) map[string]*mcp.Resource {
	t.Helper()
	res, err := cs.ListResources(context.Background(), nil)
	require.NoError(t, err)
	out := map[string]*mcp.Resource{}
	for _, r := range res.Resources {
		out[r.URI] = r
	}
	return out
}

// mcpCheckNamed checks that every skill of shapes is served whole: its
// SKILL.md and its hostile file listed and readable by the URIs the server
// listed, skills/list and skills/get agreeing, the skill tool and the
// prompt loading it by name, and skill_resource reading the hostile file.
func mcpCheckNamed(t *testing.T, cs *mcp.ClientSession, shapes []mcpNamedSkill) {
	t.Helper()
	ctx := context.Background()
	listed := mcpListed(t, cs)
	entries := map[string]string{} // skills/list: name → SKILL.md URI
	for _, e := range mcpSkillsList(t, cs).Skills {
		entries[e.Frontmatter["name"].(string)] = e.URI
	}
	prompts := mcpPromptNames(t, cs)
	for _, sk := range shapes {
		uri, ok := entries[sk.name]
		if !assert.True(t, ok, "%q in skills/list (%v)", sk.name, entries) {
			continue
		}
		if assert.Contains(t, listed, uri, "the SKILL.md of %q in resources/list", sk.name) {
			assert.Equal(t, sk.name, listed[uri].Name)
		}
		rd, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if assert.NoError(t, err, uri) {
			assert.Contains(t, rd.Contents[0].Text, "Body of "+sk.name)
		}
		g, err := mcpSkillsGet(cs, uri)
		if assert.NoError(t, err, uri) {
			assert.Equal(t, uri, g.Skill.URI)
			var files []string
			for _, r := range g.Skill.Resources {
				files = append(files, r.URI)
			}
			require.Len(t, files, 2, "SKILL.md and the hostile file of %q", sk.name)
			assert.Contains(t, listed, files[1])
			rd, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: files[1]})
			if assert.NoError(t, err, files[1]) {
				assert.Equal(t, "notes of "+sk.name+"\n", rd.Contents[0].Text)
			}
		}
		text, isErr := mcpCall(t, cs, "skill", map[string]any{"name": sk.name})
		assert.False(t, isErr, text)
		assert.Contains(t, text, "Body of "+sk.name)
		text, isErr = mcpCall(t, cs, "skill_resource", map[string]any{"name": sk.name, "path": mcpHostileFile})
		assert.False(t, isErr, text)
		assert.Equal(t, "notes of "+sk.name+"\n", text)
		assert.Contains(t, prompts, sk.name)
		pr, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: sk.name})
		if assert.NoError(t, err, sk.name) {
			assert.Contains(t, pr.Messages[0].Content.(*mcp.TextContent).Text, "Body of "+sk.name)
		}
	}
}

// In process: every published shape is served whole, at start and when
// added while serving, and the URIs are the documented ones.
func TestMCPPublishedNames(t *testing.T) {
	w := newMCPWorld(t, "native")
	for _, sk := range mcpPublishedShapes[:4] {
		mcpWriteNamed(t, w.project, sk)
	}
	srv := mcpNewServer(t, w.k)
	cs, notes := mcpConnect(t, srv, "2025-11-25")
	mcpCheckNamed(t, cs, mcpPublishedShapes[:4])
	listed := mcpListed(t, cs)
	assert.Contains(t, listed, "skill:///API%20Fuzzing%20for%20Bug%20Bounty/SKILL.md")
	assert.Contains(t, listed, "skill:///API%20Fuzzing%20for%20Bug%20Bounty/refs/notes%20%28draft%29%20%231%3B%20100%25.md")

	// Added while serving: announced, then served like the others.
	for _, sk := range mcpPublishedShapes[4:] {
		mcpWriteNamed(t, w.project, sk)
	}
	notes.waitFor(t, "list_changed for the skills added while serving", func() bool {
		return notes.count(ntResources) >= 1 && notes.count(ntPrompts) >= 1 &&
			len(mcpPromptNames(t, cs)) == len(mcpPublishedShapes)
	})
	mcpCheckNamed(t, cs, mcpPublishedShapes)
	listed = mcpListed(t, cs)
	assert.Contains(t, listed, "skill:///PDF/SKILL.md", "upper case is not an authority: hosts are case-insensitive")
	assert.Contains(t, listed, "skill://caf%C3%A9/SKILL.md", "a name following the rules is the authority")
}

// rawNameKernel is a kernel whose catalog names one skill with raw bytes
// that are not UTF-8, as an embedder's own catalog may (the kernel's own
// escapes such a name: see TestMCPNonUTF8FolderPublishedEscaped).
type rawNameKernel struct {
	*kernel.Kernel
	escaped, raw string
}

func (k rawNameKernel) Catalog(ctx context.Context) skills.Catalog {
	cat := k.Kernel.Catalog(ctx)
	cat.Skills = slices.Clone(cat.Skills)
	for i := range cat.Skills {
		if cat.Skills[i].Name == k.escaped {
			cat.Skills[i].Name = k.raw
		}
	}
	return cat
}

// A skill that cannot be published costs only itself: a skill whose name
// is not UTF-8 is left out of every list with a warning naming it; the
// other skills are served.
func TestMCPUnpublishableSkillCostsOnlyItself(t *testing.T) {
	w := newMCPWorld(t, "native")
	bad := string([]byte{'b', 'a', 'd', 0xff})
	writeFile(t, filepath.Join(w.project, bad, "SKILL.md"), skillMD("description: No name, and a folder that is not UTF-8.", "bad body\n"))
	mcpWriteNamed(t, w.project, mcpPublishedShapes[0])
	logs := &testkit.SyncBuffer{}
	srv, err := mcpserver.New(mcpserver.Config{Kernel: rawNameKernel{w.k, `bad\xff`, bad}, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	require.NoError(t, err)
	t.Cleanup(func() { srv.Close() })
	cs, _ := mcpConnect(t, srv, "2025-11-25")

	require.Len(t, w.k.Catalog(context.Background()).Skills, 2, "the catalog holds both")
	mcpCheckNamed(t, cs, mcpPublishedShapes[:1])
	assert.Len(t, mcpPromptNames(t, cs), 1)
	assert.Len(t, mcpListed(t, cs), 2, "the good skill's two files only")
	list := mcpSkillsList(t, cs)
	assert.Len(t, list.Skills, 1)
	warns, _ := json.Marshal(list.Meta[mcpserver.WarningsMeta])
	assert.Contains(t, string(warns), `bad\\xff`, "the warning names the skill, escaped")
	assert.Contains(t, string(warns), "not valid UTF-8")
	assert.Contains(t, logs.String(), `bad\\xff`)
	_, err = mcpSkillsGet(cs, "skill:///bad%FF/SKILL.md")
	assert.Error(t, err)
}

// The kernel's catalog makes a folder name that is not UTF-8 visible as an
// escape (C19: names are sanitized once, for every front end), so the skill
// is served under that name, bytes and all.
func TestMCPNonUTF8FolderPublishedEscaped(t *testing.T) {
	w := newMCPWorld(t, "native")
	bad := string([]byte{'b', 'a', 'd', 0xff})
	writeFile(t, filepath.Join(w.project, bad, "SKILL.md"), skillMD("description: No name, and a folder that is not UTF-8.", "bad body\n"))
	cs, _ := mcpConnect(t, mcpNewServer(t, w.k), "2025-11-25")
	assert.Contains(t, mcpListed(t, cs), "skill:///bad%5Cxff/SKILL.md")
	got, err := mcpSkillsGet(cs, "skill:///bad%5Cxff/SKILL.md")
	require.NoError(t, err)
	assert.Contains(t, fmt.Sprint(got.Skill), `bad\xff`)
}

// `helios mcp` itself, as a client starts it: the published shapes at
// start and one added while serving, over stdio; the process stays up and
// never panics.
func TestMCPPublishedNamesSubprocess(t *testing.T) {
	work, home := t.TempDir(), t.TempDir()
	root := filepath.Join(work, ".helios", "skills")
	require.NoError(t, os.MkdirAll(root, 0o755))
	for _, sk := range mcpPublishedShapes[:3] {
		mcpWriteNamed(t, root, sk)
	}
	cmd := exec.Command(heliosBin(), "--work-dir", work, "mcp")
	cmd.Env = append(os.Environ(), "HOME="+home)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	notes := newMCPNotes()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, notes.options())
	mcpSkillMethods(t, client)
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	require.NoError(t, err, "stderr:\n%s", stderr.String())
	mcpCheckNamed(t, cs, mcpPublishedShapes[:3])

	added := mcpNamedSkill{"added", "Added While Serving (v2); #1"}
	mcpWriteNamed(t, root, added)
	notes.waitFor(t, "the skill added while serving", func() bool { return slices.Contains(mcpPromptNames(t, cs), added.name) })
	mcpCheckNamed(t, cs, append(slices.Clone(mcpPublishedShapes[:3]), added))

	require.NoError(t, cs.Close(), "stderr:\n%s", stderr.String())
	assert.Equal(t, 0, cmd.ProcessState.ExitCode(), "stderr:\n%s", stderr.String())
	assert.NotContains(t, stderr.String(), "panic")
}

// A file name is data in a warning too: one that cannot be served (a
// dangling link) and holds a newline and a terminal escape is named quoted,
// escapes spelled out, in skills/list's warnings, and never reaches the
// log raw. (The reason that follows is the file system's error, which
// repeats the path: the text sanitizer of issue 22's other half cleans
// every warning where they are all emitted, Server.warn and setWarnings.)
func TestMCPWarningsQuoteFileNames(t *testing.T) {
	w := newMCPWorld(t, "native")
	dir := mcpPutSkill(t, w.project, "links", "name: links\ndescription: A dangling link with a hostile name.", "body\n")
	hostile := "gone\n\x1b[2Jfile.md"
	require.NoError(t, os.Symlink(filepath.Join(dir, "missing"), filepath.Join(dir, hostile)))
	logs := &testkit.SyncBuffer{}
	srv, err := mcpserver.New(mcpserver.Config{Kernel: w.k, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	require.NoError(t, err)
	t.Cleanup(func() { srv.Close() })
	cs, _ := mcpConnect(t, srv, "2025-11-25")

	list := mcpSkillsList(t, cs)
	warns, ok := list.Meta[mcpserver.WarningsMeta].([]any)
	require.True(t, ok, "warnings: %v", list.Meta)
	joined := fmt.Sprint(warns...)
	assert.True(t, strings.HasPrefix(joined, `skill "links": "gone\n\x1b[2Jfile.md" left out: `), "quoted, escapes spelled out: %q", joined)
	assert.Contains(t, logs.String(), `\"gone\\n\\x1b[2Jfile.md\"`)
	assert.NotContains(t, logs.String(), "\x1b")
}

// resources/list holds a skill's files as they were when its catalog was
// published; files deeper in a skill are not watched (C4). A file added to
// a published skill is served at once all the same — skills/get,
// resources/read and skill_resource look at the folder at each call — and
// is listed at the next list change (docs/mcp.md).
func TestMCPFileAddedAfterPublishIsServedAtOnce(t *testing.T) {
	w := newMCPWorld(t, "native")
	dir := mcpPutSkill(t, w.project, "late", "name: late\ndescription: Gets a file after it is published.", "Body of late.\n")
	cs, notes := mcpConnect(t, mcpNewServer(t, w.k), "2025-11-25")
	skillURI := "skill://late/SKILL.md"
	require.Contains(t, mcpListed(t, cs), skillURI, "published at start")

	writeFile(t, filepath.Join(dir, "refs", "added.md"), "added later\n")
	g, err := mcpSkillsGet(cs, skillURI)
	require.NoError(t, err)
	var fileURI string
	for _, r := range g.Skill.Resources {
		if strings.HasSuffix(r.URI, "/refs/added.md") {
			fileURI = r.URI
		}
	}
	require.NotEmpty(t, fileURI, "skills/get lists the file added after the publication: %+v", g.Skill.Resources)
	rd, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: fileURI})
	if assert.NoError(t, err, "resources/read of a file added after the publication") {
		assert.Equal(t, "added later\n", rd.Contents[0].Text)
	}
	text, isErr := mcpCall(t, cs, "skill_resource", map[string]any{"name": "late", "path": "refs/added.md"})
	assert.False(t, isErr, text)
	assert.Equal(t, "added later\n", text)

	// The next list change lists it.
	mcpPutSkill(t, w.project, "other", "name: other\ndescription: Makes the list change.", "Body of other.\n")
	notes.waitFor(t, "the list change for another skill", func() bool { return slices.Contains(mcpPromptNames(t, cs), "other") })
	assert.Contains(t, mcpListed(t, cs), fileURI, "listed at the next list change")
}
