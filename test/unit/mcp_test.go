package unit_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/assembly"
	"github.com/helios-agents/helios/internal/testkit"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/mcpserver"
)

// The MCP server (helios mcp) tested in process: the SDK's own client over
// in-memory transports, for both the handshake-era protocol most clients
// speak today (2025-11-25) and the stateless one (2026-07-28).

var mcpProtocols = []string{"2025-11-25", "2026-07-28"}

// Notification kinds the recorder counts.
const (
	ntTools     = "tools/list_changed"
	ntPrompts   = "prompts/list_changed"
	ntResources = "resources/list_changed"
	ntUpdated   = "resources/updated"
	// ntAck is the 2026-07-28 protocol's acknowledgement of a
	// subscriptions/listen: the SDK's client sends the listen (at Connect,
	// and for each Subscribe) without waiting for it.
	ntAck = "subscriptions/acknowledged"
)

// mcpNotes records the notifications a client received.
type mcpNotes struct {
	mu      sync.Mutex
	counts  map[string]int
	updated []string
	signal  chan struct{}
}

func newMCPNotes() *mcpNotes {
	return &mcpNotes{counts: map[string]int{}, signal: make(chan struct{}, 1)}
}

func (n *mcpNotes) add(kind, uri string) {
	n.mu.Lock()
	n.counts[kind]++
	if uri != "" {
		n.updated = append(n.updated, uri)
	}
	n.mu.Unlock()
	select {
	case n.signal <- struct{}{}:
	default:
	}
}

func (n *mcpNotes) count(kind string) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.counts[kind]
}

func (n *mcpNotes) updatedURIs() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.updated)
}

// reset forgets everything received so far.
func (n *mcpNotes) reset() {
	n.mu.Lock()
	n.counts = map[string]int{}
	n.updated = nil
	n.mu.Unlock()
}

// waitFor waits, notification by notification, until cond holds.
func (n *mcpNotes) waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(15 * time.Second)
	for !cond() {
		select {
		case <-n.signal:
		case <-deadline:
			n.mu.Lock()
			got := copyCounts(n.counts)
			n.mu.Unlock()
			t.Fatalf("timed out waiting for %s; notifications so far: %v", what, got)
		}
	}
}

func copyCounts(m map[string]int) map[string]int {
	out := map[string]int{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

// quiet lets a notification that should not come have its chance to
// arrive: the SDK sends list_changed 10ms after a change, so a wrong one
// lands well within this. It can only make a test pass that should fail,
// never the reverse.
func quiet() { time.Sleep(300 * time.Millisecond) }

func (n *mcpNotes) options() *mcp.ClientOptions {
	return &mcp.ClientOptions{
		ToolListChangedHandler:     func(context.Context, *mcp.ToolListChangedRequest) { n.add(ntTools, "") },
		PromptListChangedHandler:   func(context.Context, *mcp.PromptListChangedRequest) { n.add(ntPrompts, "") },
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { n.add(ntResources, "") },
		ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
			n.add(ntUpdated, r.Params.URI)
		},
	}
}

// countAcks counts the server's acknowledgements of subscriptions/listen.
func (n *mcpNotes) countAcks(client *mcp.Client) {
	client.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "notifications/"+ntAck {
				n.add(ntAck, "")
			}
			return next(ctx, method, req)
		}
	})
}

// subscribe subscribes to uri and waits until the server holds the
// subscription.
func (n *mcpNotes) subscribe(t testing.TB, cs *mcp.ClientSession, version, uri string) {
	t.Helper()
	acks := n.count(ntAck)
	require.NoError(t, cs.Subscribe(context.Background(), &mcp.SubscribeParams{URI: uri}))
	if version >= "2026-07-28" {
		n.waitFor(t, "the subscription to be acknowledged", func() bool { return n.count(ntAck) > acks })
	}
}

// mcpConnect serves srv to a new SDK client over in-memory transports.
func mcpConnect(t testing.TB, srv *mcpserver.Server, version string) (*mcp.ClientSession, *mcpNotes) {
	t.Helper()
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	require.NoError(t, err)
	notes := newMCPNotes()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, notes.options())
	mcpSkillMethods(t, client)
	notes.countAcks(client)
	cs, err := client.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	require.NoError(t, err)
	if version >= "2026-07-28" {
		notes.waitFor(t, "the listen for list_changed to be acknowledged", func() bool { return notes.count(ntAck) >= 1 })
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs, notes
}

// mcpSkillMethods lets client call the skills extension's methods.
func mcpSkillMethods(t testing.TB, client *mcp.Client) {
	t.Helper()
	require.NoError(t, mcp.AddSendingCustomMethod[*mcpserver.ListSkillsParams, *mcpserver.ListSkillsResult](client, "skills/list"))
	require.NoError(t, mcp.AddSendingCustomMethod[*mcpserver.GetSkillParams, *mcpserver.GetSkillResult](client, "skills/get"))
}

// mcpNewServer starts a server over k, closed with the test.
func mcpNewServer(t testing.TB, k mcpserver.Kernel) *mcpserver.Server {
	t.Helper()
	srv, err := mcpserver.New(mcpserver.Config{Kernel: k})
	require.NoError(t, err)
	t.Cleanup(func() { srv.Close() })
	return srv
}

// mcpWorld is a work dir with native watching, a project root and a user
// root, assembled as `helios mcp` assembles it.
type mcpWorld struct {
	work, project, user string
	k                   *kernel.Kernel
}

func newMCPWorld(t testing.TB, watchMode string) *mcpWorld {
	t.Helper()
	w := &mcpWorld{work: t.TempDir()}
	w.project = filepath.Join(w.work, ".helios", "skills")
	w.user = filepath.Join(t.TempDir(), "skills")
	require.NoError(t, os.MkdirAll(w.project, 0o755))
	require.NoError(t, os.MkdirAll(w.user, 0o755))
	cfg := map[string]any{"skills": map[string]any{"userRoots": []string{w.user}, "watch": map[string]any{"mode": watchMode}}}
	data, err := json.Marshal(cfg)
	require.NoError(t, err)
	path := filepath.Join(w.work, assembly.ConfigFileName)
	require.NoError(t, os.WriteFile(path, data, 0o644))
	w.k, err = assembly.Load(context.Background(), path, assembly.Options{WorkDir: w.work, Watch: true})
	require.NoError(t, err)
	t.Cleanup(func() { w.k.Close() })
	return w
}

// mcpPutSkill writes a skill folder elsewhere and renames it into root, so
// the watcher never sees it half written.
func mcpPutSkill(t testing.TB, root, folder, frontmatter, body string) string {
	t.Helper()
	tmp := filepath.Join(filepath.Dir(root), ".staging-"+folder)
	require.NoError(t, os.MkdirAll(tmp, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(tmp, "SKILL.md"), []byte(skillMD(frontmatter, body)), 0o644))
	dst := filepath.Join(root, folder)
	require.NoError(t, os.Rename(tmp, dst))
	return dst
}

// mcpReplace replaces a file in one rename.
func mcpReplace(t testing.TB, path, content string) {
	t.Helper()
	tmp := filepath.Join(filepath.Dir(path), ".tmp-"+filepath.Base(path))
	require.NoError(t, os.WriteFile(tmp, []byte(content), 0o644))
	require.NoError(t, os.Rename(tmp, path))
}

func mcpResourceURIs(t testing.TB, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListResources(context.Background(), nil)
	require.NoError(t, err)
	var out []string
	for _, r := range res.Resources {
		out = append(out, r.URI)
	}
	return out
}

func mcpPromptNames(t testing.TB, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListPrompts(context.Background(), nil)
	require.NoError(t, err)
	var out []string
	for _, p := range res.Prompts {
		out = append(out, p.Name)
	}
	return out
}

func mcpTool(t testing.TB, cs *mcp.ClientSession, name string) *mcp.Tool {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	for _, tl := range res.Tools {
		if tl.Name == name {
			return tl
		}
	}
	t.Fatalf("no tool %q", name)
	return nil
}

// mcpCall calls a tool and returns its text and whether it is an error.
func mcpCall(t testing.TB, cs *mcp.ClientSession, tool string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	require.NoError(t, err)
	require.Len(t, res.Content, 1)
	switch c := res.Content[0].(type) {
	case *mcp.TextContent:
		return c.Text, res.IsError
	case *mcp.EmbeddedResource:
		return string(c.Resource.Blob), res.IsError
	}
	t.Fatalf("unexpected content %T", res.Content[0])
	return "", false
}

// mcpSkillsList calls the extension's skills/list.
func mcpSkillsList(t testing.TB, cs *mcp.ClientSession) *mcpserver.ListSkillsResult {
	t.Helper()
	res, err := mcp.CallCustomMethod[*mcpserver.ListSkillsParams, *mcpserver.ListSkillsResult](context.Background(), cs, "skills/list", &mcpserver.ListSkillsParams{})
	require.NoError(t, err)
	return res
}

func mcpSkillsGet(cs *mcp.ClientSession, uri string) (*mcpserver.GetSkillResult, error) {
	return mcp.CallCustomMethod[*mcpserver.GetSkillParams, *mcpserver.GetSkillResult](context.Background(), cs, "skills/get", &mcpserver.GetSkillParams{URI: uri})
}

func sha(data []byte) string {
	s := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(s[:])
}

func rpcCode(err error) int64 {
	var we *jsonrpc.Error
	if errors.As(err, &we) {
		return we.Code
	}
	return 0
}

// Capabilities are declared explicitly even when the catalog is empty at
// start: tools, resources (subscribe) and prompts with listChanged, and the
// skills extension.
func TestMCPCapabilitiesDeclaredOnEmptyStart(t *testing.T) {
	for _, v := range mcpProtocols {
		t.Run(v, func(t *testing.T) {
			w := newMCPWorld(t, "native")
			srv := mcpNewServer(t, w.k)
			cs, _ := mcpConnect(t, srv, v)
			caps := cs.InitializeResult().Capabilities
			require.NotNil(t, caps)
			if assert.NotNil(t, caps.Tools) {
				assert.True(t, caps.Tools.ListChanged)
			}
			if assert.NotNil(t, caps.Resources) {
				assert.True(t, caps.Resources.ListChanged)
				assert.True(t, caps.Resources.Subscribe)
			}
			if assert.NotNil(t, caps.Prompts) {
				assert.True(t, caps.Prompts.ListChanged)
			}
			assert.Contains(t, caps.Extensions, mcpserver.ExtensionID)
			assert.Empty(t, mcpPromptNames(t, cs))
			assert.Empty(t, mcpSkillsList(t, cs).Skills)
		})
	}
}

// The catalog as served: every file of every skill as a skill:// resource;
// skills/list with the verbatim frontmatter and a manifest of digests and
// sizes; skills/get; the skill tool's text exactly as `helios skills load`
// prints it; prompts for every skill, those hidden from the model included.
func TestMCPServesCatalog(t *testing.T) {
	w := newMCPWorld(t, "native")
	pdf := filepath.Join(w.project, "pdf")
	writeFile(t, filepath.Join(pdf, "SKILL.md"), skillMD("name: pdf\ndescription: Fill PDF forms.\nlicense: MIT\nmetadata:\n  owner: docs\n  since: 2024-05-01\nallowed-tools: Bash Read", "Read references/FORMS.md, then run scripts/fill.sh.\n"))
	writeFile(t, filepath.Join(pdf, "references", "FORMS.md"), "# Forms\n")
	writeFile(t, filepath.Join(pdf, "scripts", "fill.sh"), "#!/bin/sh\necho fill\n")
	require.NoError(t, os.WriteFile(filepath.Join(pdf, "logo.bin"), []byte{0x89, 'P', 0, 0xff}, 0o644))
	writeFile(t, filepath.Join(pdf, ".git", "HEAD"), "ref: x\n") // hidden: not served
	writeFile(t, filepath.Join(w.project, "notes.md"), skillMD("name: notes\ndescription: Take notes.", "Flat skill body.\n"))
	writeFile(t, filepath.Join(w.user, "deploy", "SKILL.md"), skillMD("name: deploy\ndescription: Deploy by hand.\ndisable-model-invocation: true", "Only people deploy.\n"))

	srv := mcpNewServer(t, w.k)
	cs, _ := mcpConnect(t, srv, "2025-11-25")
	ctx := context.Background()

	assert.ElementsMatch(t, []string{
		"skill://deploy/SKILL.md",
		"skill://notes/SKILL.md",
		"skill://pdf/SKILL.md", "skill://pdf/logo.bin", "skill://pdf/references/FORMS.md", "skill://pdf/scripts/fill.sh",
	}, mcpResourceURIs(t, cs))

	rd, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "skill://pdf/SKILL.md"})
	require.NoError(t, err)
	raw, _ := os.ReadFile(filepath.Join(pdf, "SKILL.md"))
	assert.Equal(t, string(raw), rd.Contents[0].Text)
	assert.Equal(t, "text/markdown", rd.Contents[0].MIMEType)
	rd, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "skill://pdf/logo.bin"})
	require.NoError(t, err)
	assert.Equal(t, []byte{0x89, 'P', 0, 0xff}, rd.Contents[0].Blob)

	// skills/list: frontmatter verbatim, manifest with digests and sizes.
	list := mcpSkillsList(t, cs)
	assert.Equal(t, "complete", list.ResultType)
	var entry *mcpserver.SkillEntry
	for i := range list.Skills {
		if list.Skills[i].URI == "skill://pdf/SKILL.md" {
			entry = &list.Skills[i]
		}
	}
	require.NotNil(t, entry, "pdf in skills/list")
	assert.Equal(t, map[string]any{"name": "pdf", "description": "Fill PDF forms.", "license": "MIT",
		"metadata": map[string]any{"owner": "docs", "since": "2024-05-01"}, "allowed-tools": "Bash Read"}, entry.Frontmatter)
	var got []mcpserver.SkillResource
	got = append(got, entry.Resources...)
	want := []mcpserver.SkillResource{}
	for _, rel := range []string{"SKILL.md", "logo.bin", "references/FORMS.md", "scripts/fill.sh"} {
		data, err := os.ReadFile(filepath.Join(pdf, filepath.FromSlash(rel)))
		require.NoError(t, err)
		want = append(want, mcpserver.SkillResource{URI: "skill://pdf/" + rel, Digest: sha(data), Size: int64(len(data))})
	}
	assert.Equal(t, want, got)
	assert.Len(t, list.Skills, 3)

	g, err := mcpSkillsGet(cs, "skill://notes/SKILL.md")
	require.NoError(t, err)
	flat, _ := os.ReadFile(filepath.Join(w.project, "notes.md"))
	assert.Equal(t, []mcpserver.SkillResource{{URI: "skill://notes/SKILL.md", Digest: sha(flat), Size: int64(len(flat))}}, g.Skill.Resources)
	_, err = mcpSkillsGet(cs, "skill://nope/SKILL.md")
	assert.Equal(t, int64(jsonrpc.CodeInvalidParams), rpcCode(err), "unknown skill: %v", err)

	// The skill tool: exactly the load text; its description carries the
	// catalog the model may see, without the hidden skill.
	want1, err := w.k.LoadSkill(ctx, "pdf")
	require.NoError(t, err)
	if !strings.HasSuffix(want1, "\n") {
		want1 += "\n"
	}
	text, isErr := mcpCall(t, cs, "skill", map[string]any{"name": "pdf"})
	assert.False(t, isErr)
	assert.Equal(t, want1, text)
	desc := mcpTool(t, cs, "skill").Description
	assert.Contains(t, desc, "- pdf: Fill PDF forms.")
	assert.Contains(t, desc, "- notes: Take notes.")
	assert.NotContains(t, desc, "deploy")
	text, isErr = mcpCall(t, cs, "skill", map[string]any{"name": "deploy"})
	assert.True(t, isErr, "a hidden skill is not the model's to load: %s", text)
	text, isErr = mcpCall(t, cs, "skill", map[string]any{"name": "pfd"})
	assert.True(t, isErr)
	assert.Contains(t, text, "did you mean pdf")
	assert.Contains(t, text, "may have changed")
	text, isErr = mcpCall(t, cs, "skill", map[string]any{})
	assert.True(t, isErr, "missing name: %s", text)

	text, isErr = mcpCall(t, cs, "skill_resource", map[string]any{"name": "pdf", "path": "references/FORMS.md"})
	assert.False(t, isErr)
	assert.Equal(t, "# Forms\n", text)
	text, isErr = mcpCall(t, cs, "skill_resource", map[string]any{"name": "pdf", "path": "logo.bin"})
	assert.False(t, isErr)
	assert.Equal(t, string([]byte{0x89, 'P', 0, 0xff}), text)

	// Prompts: one per skill a person may invoke, the hidden one included.
	assert.ElementsMatch(t, []string{"deploy", "notes", "pdf"}, mcpPromptNames(t, cs))
	pr, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "deploy"})
	require.NoError(t, err)
	wantDeploy, err := w.k.LoadSkill(ctx, "deploy")
	require.NoError(t, err)
	require.Len(t, pr.Messages, 1)
	assert.Equal(t, strings.TrimSuffix(wantDeploy, "\n")+"\n", pr.Messages[0].Content.(*mcp.TextContent).Text)
}

// Reads never leave a skill's folder: "..", an absolute path, a symlinked
// file or folder pointing outside, a sibling skill — each is refused, by
// resources/read and by the skill_resource tool alike, and the manifest
// leaves the escaping links out with a warning.
func TestMCPResourceEscapesRefused(t *testing.T) {
	w := newMCPWorld(t, "native")
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.txt")
	writeFile(t, secret, "TOP SECRET\n")
	x := filepath.Join(w.project, "x")
	writeFile(t, filepath.Join(x, "SKILL.md"), skillMD("name: x\ndescription: X.", "x body\n"))
	require.NoError(t, os.Symlink(secret, filepath.Join(x, "leak.md")))
	require.NoError(t, os.Symlink(outside, filepath.Join(x, "refs")))
	writeFile(t, filepath.Join(w.project, "y", "SKILL.md"), skillMD("name: y\ndescription: Y.", "y body\n"))

	srv := mcpNewServer(t, w.k)
	cs, _ := mcpConnect(t, srv, "2025-11-25")
	ctx := context.Background()

	for _, c := range []struct{ uri, path string }{
		{"skill://x/../../etc/passwd", "../../etc/passwd"},
		{"skill://x/%2e%2e/%2e%2e/etc/passwd", "../../../etc/passwd"},
		{"skill://x//etc/passwd", "/etc/passwd"},
		{"skill://x/" + strings.TrimPrefix(secret, "/"), secret},
		{"skill://x/leak.md", "leak.md"},
		{"skill://x/refs/secret.txt", "refs/secret.txt"},
		{"skill://x/../y/SKILL.md", "../y/SKILL.md"},
	} {
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: c.uri})
		if assert.Error(t, err, "read %s: %+v", c.uri, res) {
			assert.NotContains(t, err.Error(), "TOP SECRET")
		}
		text, isErr := mcpCall(t, cs, "skill_resource", map[string]any{"name": "x", "path": c.path})
		assert.True(t, isErr, "skill_resource %s: %s", c.path, text)
		assert.NotContains(t, text, "TOP SECRET")
		assert.NotContains(t, text, "y body")
	}

	assert.ElementsMatch(t, []string{"skill://x/SKILL.md", "skill://y/SKILL.md"}, mcpResourceURIs(t, cs))
	list := mcpSkillsList(t, cs)
	for _, s := range list.Skills {
		if s.URI == "skill://x/SKILL.md" {
			require.Len(t, s.Resources, 1)
		}
	}
	warns, _ := json.Marshal(list.Meta[mcpserver.WarningsMeta])
	assert.Contains(t, string(warns), "leak.md")
	assert.Contains(t, string(warns), "refs")
}

// Each new complete catalog sends resources/list_changed and
// prompts/list_changed, and tools/list_changed when the skill tool's
// description changed: a skill added, renamed and deleted on disk, seen by
// the native watcher.
func TestMCPListChangedOnDiskChanges(t *testing.T) {
	for _, v := range mcpProtocols {
		t.Run(v, func(t *testing.T) {
			w := newMCPWorld(t, "native")
			mcpPutSkill(t, w.project, "alpha", "name: alpha\ndescription: First.", "alpha body\n")
			srv := mcpNewServer(t, w.k)
			cs, notes := mcpConnect(t, srv, v)
			all := func(n int) func() bool {
				return func() bool {
					return notes.count(ntResources) >= n && notes.count(ntPrompts) >= n && notes.count(ntTools) >= n
				}
			}
			has := func(names ...string) func() bool {
				return func() bool {
					got := mcpPromptNames(t, cs)
					slices.Sort(got)
					return slices.Equal(got, names)
				}
			}

			mcpPutSkill(t, w.project, "beta", "name: beta\ndescription: Second.", "beta body\n")
			notes.waitFor(t, "list_changed after an add", all(1))
			notes.waitFor(t, "beta listed", has("alpha", "beta"))
			assert.Contains(t, mcpResourceURIs(t, cs), "skill://beta/SKILL.md")
			assert.Contains(t, mcpTool(t, cs, "skill").Description, "- beta: Second.")

			notes.reset()
			require.NoError(t, os.Rename(filepath.Join(w.project, "beta"), filepath.Join(w.project, "gamma")))
			mcpReplace(t, filepath.Join(w.project, "gamma", "SKILL.md"), skillMD("name: gamma\ndescription: Second.", "beta body\n"))
			notes.waitFor(t, "list_changed after a rename", all(1))
			notes.waitFor(t, "gamma listed instead of beta", has("alpha", "gamma"))
			assert.NotContains(t, mcpResourceURIs(t, cs), "skill://beta/SKILL.md")

			notes.reset()
			require.NoError(t, os.RemoveAll(filepath.Join(w.project, "gamma")))
			notes.waitFor(t, "list_changed after a delete", all(1))
			notes.waitFor(t, "gamma gone", has("alpha"))
			assert.Equal(t, []string{"skill://alpha/SKILL.md"}, mcpResourceURIs(t, cs))
			assert.NotContains(t, mcpTool(t, cs, "skill").Description, "gamma")
		})
	}
}

// A body-only edit sends resources/updated to the subscribers of that
// resource and no list_changed; the subscribers of another file hear
// nothing.
func TestMCPBodyEditNotifiesSubscribersOnly(t *testing.T) {
	for _, v := range mcpProtocols {
		t.Run(v, func(t *testing.T) {
			w := newMCPWorld(t, "native")
			a := mcpPutSkill(t, w.project, "alpha", "name: alpha\ndescription: First.", "old body\n")
			mcpPutSkill(t, w.project, "beta", "name: beta\ndescription: Second.", "beta body\n")
			srv := mcpNewServer(t, w.k)
			cs, notes := mcpConnect(t, srv, v)
			other, otherNotes := mcpConnect(t, srv, v)
			ctx := context.Background()
			notes.subscribe(t, cs, v, "skill://alpha/SKILL.md")
			otherNotes.subscribe(t, other, v, "skill://beta/SKILL.md")

			mcpReplace(t, filepath.Join(a, "SKILL.md"), skillMD("name: alpha\ndescription: First.", "new body\n"))
			notes.waitFor(t, "resources/updated for alpha", func() bool { return notes.count(ntUpdated) >= 1 })
			quiet()
			assert.Equal(t, []string{"skill://alpha/SKILL.md"}, notes.updatedURIs())
			assert.Zero(t, notes.count(ntResources)+notes.count(ntPrompts)+notes.count(ntTools), "no list_changed on a body edit")
			assert.Zero(t, otherNotes.count(ntUpdated)+otherNotes.count(ntResources), "beta's subscriber hears nothing")

			rd, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "skill://alpha/SKILL.md"})
			require.NoError(t, err)
			assert.Contains(t, rd.Contents[0].Text, "new body")
		})
	}
}

func newMCPCapKernel(t testing.TB, c *testkit.Capability) *kernel.Kernel {
	t.Helper()
	k, err := kernel.New(kernel.Config{WorkDir: t.TempDir(), UserSkillRoots: []string{}, Capabilities: []kernel.Capability{c}})
	require.NoError(t, err)
	t.Cleanup(func() { k.Close() })
	return k
}

// An incomplete observation sends nothing: the lists keep the last
// complete catalog. The next complete one is announced as usual.
func TestMCPIncompleteCatalogSendsNothing(t *testing.T) {
	c := testkit.NewCapability("testcap", 0, testkit.Skill("one", "1"), testkit.Skill("two", "2"))
	k := newMCPCapKernel(t, c)
	srv := mcpNewServer(t, k)
	cs, notes := mcpConnect(t, srv, "2025-11-25")

	c.Answer(0, skills.Set{Skills: []skills.Skill{testkit.Skill("one", "1")}, Incomplete: true}) // "two" missing from a half-observed answer
	quiet()
	assert.Zero(t, notes.count(ntResources)+notes.count(ntPrompts)+notes.count(ntTools), "nothing for an incomplete catalog")
	assert.ElementsMatch(t, []string{"one", "two"}, mcpPromptNames(t, cs))

	c.Answer(0, skills.Set{Skills: []skills.Skill{testkit.Skill("one", "1"), testkit.Skill("three", "3")}})
	notes.waitFor(t, "list_changed for the next complete catalog", func() bool {
		return notes.count(ntResources) >= 1 && notes.count(ntPrompts) >= 1
	})
	assert.ElementsMatch(t, []string{"one", "three"}, mcpPromptNames(t, cs))
	// A skill with no file is served as a SKILL.md rendered from the catalog.
	rd, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "skill://three/SKILL.md"})
	require.NoError(t, err)
	assert.Equal(t, "---\nname: three\ndescription: About three.\n---\n3", rd.Contents[0].Text)
}

// An incomplete read that no further change follows (a folder vanishing
// while it was read) is read again until complete, and then announced.
func TestMCPIncompleteReadIsRetried(t *testing.T) {
	c := testkit.NewCapability("testcap", 0, testkit.Skill("one", "1"))
	k := newMCPCapKernel(t, c)
	srv := mcpNewServer(t, k)
	cs, notes := mcpConnect(t, srv, "2025-11-25")

	c.Answer(2, skills.Set{Skills: []skills.Skill{testkit.Skill("one", "1"), testkit.Skill("two", "2")}}) // one signal, then silence
	notes.waitFor(t, "the change announced once the read completes", func() bool {
		return notes.count(ntResources) >= 1 && notes.count(ntPrompts) >= 1
	})
	assert.ElementsMatch(t, []string{"one", "two"}, mcpPromptNames(t, cs))
}

// A start on an incomplete read serves what it saw, then reads again until
// the catalog is complete and announces it.
func TestMCPIncompleteStartIsCompleted(t *testing.T) {
	c := testkit.NewCapability("testcap", 1, testkit.Skill("one", "1"))
	srv := mcpNewServer(t, newMCPCapKernel(t, c))
	cs, notes := mcpConnect(t, srv, "2025-11-25")
	notes.waitFor(t, "the complete catalog", func() bool { return slices.Contains(mcpPromptNames(t, cs), "one") })
}

// The agent's own Write tool refreshes the catalog at once (with no
// watcher at all here), and the server announces it.
func TestMCPListChangedAfterWriteTool(t *testing.T) {
	w := newMCPWorld(t, "off")
	srv := mcpNewServer(t, w.k)
	cs, notes := mcpConnect(t, srv, "2025-11-25")
	ctx := context.Background()
	tools, _ := w.k.Tools(ctx, w.k.Catalog(ctx), w.k.CatalogBudget())
	var write func(context.Context, json.RawMessage) (string, bool)
	for _, tl := range tools {
		if tl.Name == "Write" {
			write = func(ctx context.Context, args json.RawMessage) (string, bool) {
				r, err := tl.Call(ctx, args)
				require.NoError(t, err)
				return r.Content, r.IsError
			}
		}
	}
	require.NotNil(t, write, "the Write tool")
	args, _ := json.Marshal(map[string]string{"path": ".helios/skills/fresh/SKILL.md", "content": skillMD("name: fresh\ndescription: Written by the agent.", "body\n")})
	out, isErr := write(ctx, args)
	require.False(t, isErr, out)
	notes.waitFor(t, "list_changed after Write", func() bool {
		return notes.count(ntResources) >= 1 && notes.count(ntPrompts) >= 1 && notes.count(ntTools) >= 1
	})
	assert.Equal(t, []string{"fresh"}, mcpPromptNames(t, cs))
}

// A skill whose files cannot all be read is served with what can be, and
// a warning names what was left out.
func TestMCPUnreadableFilesServedWithWarning(t *testing.T) {
	w := newMCPWorld(t, "native")
	d := filepath.Join(w.project, "partial")
	writeFile(t, filepath.Join(d, "SKILL.md"), skillMD("name: partial\ndescription: Partly readable.", "body\n"))
	writeFile(t, filepath.Join(d, "ok.md"), "fine\n")
	require.NoError(t, os.Symlink(filepath.Join(d, "missing.md"), filepath.Join(d, "dangling.md")))
	require.NoError(t, os.Symlink("loop.md", filepath.Join(d, "loop.md")))

	srv := mcpNewServer(t, w.k)
	cs, _ := mcpConnect(t, srv, "2025-11-25")
	list := mcpSkillsList(t, cs)
	require.Len(t, list.Skills, 1)
	var uris []string
	for _, r := range list.Skills[0].Resources {
		uris = append(uris, r.URI)
	}
	assert.Equal(t, []string{"skill://partial/SKILL.md", "skill://partial/ok.md"}, uris)
	warns, _ := json.Marshal(list.Meta[mcpserver.WarningsMeta])
	assert.Contains(t, string(warns), "dangling.md")
	assert.Contains(t, string(warns), "loop.md")
	text, isErr := mcpCall(t, cs, "skill", map[string]any{"name": "partial"})
	assert.False(t, isErr, text)
}

// A skill past 512 files or 16 MiB is still served, without what does not
// fit, and a warning names what was left out.
func TestMCPSkillLimits(t *testing.T) {
	w := newMCPWorld(t, "native")
	many := filepath.Join(w.project, "many")
	writeFile(t, filepath.Join(many, "SKILL.md"), skillMD("name: many\ndescription: Many files.", "body\n"))
	for i := range mcpserver.MaxFiles {
		writeFile(t, filepath.Join(many, "f", strings.Repeat("0", 3-len(itoa(i)))+itoa(i)+".txt"), "x")
	}
	big := filepath.Join(w.project, "big")
	writeFile(t, filepath.Join(big, "SKILL.md"), skillMD("name: big\ndescription: Big files.", "body\n"))
	for _, n := range []string{"a.bin", "b.bin"} {
		f, err := os.Create(filepath.Join(big, n))
		require.NoError(t, err)
		require.NoError(t, f.Truncate(9<<20)) // sparse: 9 MiB of zeros each
		require.NoError(t, f.Close())
	}

	srv := mcpNewServer(t, w.k)
	cs, _ := mcpConnect(t, srv, "2025-11-25")
	list := mcpSkillsList(t, cs)
	byURI := map[string]mcpserver.SkillEntry{}
	for _, s := range list.Skills {
		byURI[s.URI] = s
	}
	m := byURI["skill://many/SKILL.md"]
	require.Len(t, m.Resources, mcpserver.MaxFiles, "SKILL.md and 511 files")
	assert.Equal(t, "skill://many/SKILL.md", m.Resources[0].URI)
	b := byURI["skill://big/SKILL.md"]
	var total int64
	for _, r := range b.Resources {
		total += r.Size
	}
	assert.LessOrEqual(t, total, int64(mcpserver.MaxBytes))
	assert.Len(t, b.Resources, 2, "SKILL.md and a.bin; b.bin does not fit")
	warns, _ := json.Marshal(list.Meta[mcpserver.WarningsMeta])
	assert.Contains(t, string(warns), "f/511.txt")
	assert.Contains(t, string(warns), "b.bin")
	// Left out of the manifest, still readable by URI.
	assert.Contains(t, mcpResourceURIs(t, cs), "skill://big/a.bin")
	assert.NotContains(t, mcpResourceURIs(t, cs), "skill://big/b.bin")
}

func itoa(i int) string { return strconv.Itoa(i) }

// A client that disconnects mid-call costs nothing: the call's context is
// cancelled, the server keeps serving other clients.
func TestMCPClientDisconnectMidCall(t *testing.T) {
	started, cancelled := make(chan struct{}), make(chan struct{})
	slow := skills.Skill{Name: "slow", Description: "Slow to load.", Load: func(ctx context.Context) (skills.Content, error) {
		close(started)
		<-ctx.Done()
		close(cancelled)
		return skills.Content{}, ctx.Err()
	}}
	c := testkit.NewCapability("testcap", 0, slow, testkit.Skill("quick", "quick body"))
	srv := mcpNewServer(t, newMCPCapKernel(t, c))

	// The client's end of a pipe is closed under it: a connection dropped,
	// not a graceful close (which would wait for the call).
	serverEnd, clientEnd := net.Pipe()
	ss, err := srv.MCP().Connect(context.Background(), mcpserver.NewStdioTransport(serverEnd, serverEnd), nil)
	require.NoError(t, err)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "leaver", Version: "1"}, nil).Connect(context.Background(),
		&mcp.IOTransport{Reader: clientEnd, Writer: clientEnd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	require.NoError(t, err)
	callDone := make(chan struct{})
	go func() {
		defer close(callDone)
		cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "skill", Arguments: map[string]any{"name": "slow"}})
	}()
	<-started
	require.NoError(t, clientEnd.Close())
	select {
	case <-cancelled:
	case <-time.After(10 * time.Second):
		t.Fatal("the load of a departed client was never cancelled")
	}
	<-callDone
	ss.Wait() // the server's session ended with the connection
	ss.Wait()

	cs2, _ := mcpConnect(t, srv, "2025-11-25")
	text, isErr := mcpCall(t, cs2, "skill", map[string]any{"name": "quick"})
	assert.False(t, isErr)
	assert.Contains(t, text, "quick body")
}
