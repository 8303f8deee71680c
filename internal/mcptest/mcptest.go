// Package mcptest is a real MCP server for the tests of Helios's MCP client,
// built with the official go-sdk: tools with text, image, audio, link,
// error and structured results, tools that add and remove tools (so the
// server sends tools/list_changed), the Agent Skills extension
// (io.modelcontextprotocol/skills) with skills that can be added while it
// runs and one whose manifest lies about a file's digest, and, when it runs
// as its own process over stdio, tools that crash it, hang it, or write
// garbage on its stdout.
package mcptest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ExtensionID is the Agent Skills extension.
const ExtensionID = "io.modelcontextprotocol/skills"

// Server is the test server. It is safe for concurrent use.
type Server struct {
	mcp   *mcp.Server
	stdio bool      // runs as its own process: crash, freeze and garbage work
	out   io.Writer // its stdout, when stdio

	mu     sync.Mutex
	skills map[string]*skill
	order  []string
}

type skill struct {
	name, description string
	files             map[string]string // rel → content; SKILL.md among them
	lie               string            // a file whose listed digest is wrong
}

// Skill is one skill to serve.
type Skill struct {
	Name, Description, Body string
	// Files are its other files, by slash path relative to the skill.
	Files map[string]string
	// Lie names a file whose manifest digest is wrong (a tampered skill).
	Lie string
}

// New returns a server with its tools and, when withSkills, the skills
// extension (with no skills yet).
func New(withSkills bool) *Server {
	s := &Server{skills: map[string]*skill{}}
	caps := &mcp.ServerCapabilities{
		Tools:     &mcp.ToolCapabilities{ListChanged: true},
		Resources: &mcp.ResourceCapabilities{ListChanged: true},
	}
	if withSkills {
		caps.AddExtension(ExtensionID, nil)
	}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "mcptest", Version: "1.0.0"}, &mcp.ServerOptions{Capabilities: caps})
	s.addTools()
	if withSkills {
		must(mcp.AddReceivingCustomMethod(s.mcp, "skills/list", s.listSkills))
		must(mcp.AddReceivingCustomMethod(s.mcp, "skills/get", s.getSkill))
	}
	return s
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

// MCP returns the SDK server.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// HTTPHandler serves streamable HTTP.
func (s *Server) HTTPHandler() http.Handler {
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, nil)
}

// SSEHandler serves the HTTP+SSE transport of protocol 2024-11-05.
func (s *Server) SSEHandler() http.Handler {
	return mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return s.mcp }, nil)
}

// ServeStdio serves one session on stdin and stdout until stdin ends. Only
// then do the crash, freeze and garbage tools work.
func (s *Server) ServeStdio(ctx context.Context) error {
	w := &lockedWriter{w: os.Stdout}
	s.stdio, s.out = true, w
	return s.mcp.Run(ctx, &mcp.IOTransport{Reader: os.Stdin, Writer: w})
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return nil }

// Text is the arguments of the tools that take one string.
type Text struct {
	Text string `json:"text"`
}

// Size is the arguments of big.
type Size struct {
	Bytes int `json:"bytes"`
}

// Sum is the structured result of add.
type Sum struct {
	Sum int `json:"sum"`
}

// Pair is the arguments of add.
type Pair struct {
	A int `json:"a"`
	B int `json:"b"`
}

// tinyPNG is a 1×1 PNG.
var tinyPNG = []byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 0x0d, 'I', 'H', 'D', 'R', 0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0, 0x1f, 0x15, 0xc4, 0x89}

// FileText is n bytes of source-like text: lines with quotes, tabs and
// backslashes, which JSON escapes, so that the text written again as JSON
// is longer than the text.
func FileText(n int) string {
	const line = "\tfmt.Printf(\"%s\\n\", \"it's a \\\"quoted\\\" line\")\n"
	return strings.Repeat(line, n/len(line)+1)[:n]
}

func textResult(format string, a ...any) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf(format, a...)}}}
}

// addTools serves the test tools, in this order.
func (s *Server) addTools() {
	s.addAnswerTools()
	s.addChangeTools()
	s.addProcessTools()
	s.addNameTools()
}

// addAnswerTools serves tools that answer in each shape a server can:
// text, annotations, mixed content, errors, structured content, hidden
// characters.
func (s *Server) addAnswerTools() {
	yes, no := true, false
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "echo", Description: "Say the text back.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *mcp.CallToolRequest, in Text) (*mcp.CallToolResult, any, error) {
			return textResult("echo: %s", in.Text), nil, nil
		})
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "delete_everything", Description: "Pretend to delete everything.", Annotations: &mcp.ToolAnnotations{DestructiveHint: &yes, OpenWorldHint: &no}},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return textResult("deleted nothing"), nil, nil
		})
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "image", Description: "Return a tiny image."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.TextContent{Text: "here is a picture"},
				&mcp.ImageContent{Data: tinyPNG, MIMEType: "image/png"},
				&mcp.AudioContent{Data: []byte("RIFF0000WAVE"), MIMEType: "audio/wav"},
				&mcp.ResourceLink{URI: "file:///tmp/picture.png", Name: "picture", MIMEType: "image/png"},
			}}, nil, nil
		})
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "fail", Description: "Fail with the text as the error."},
		func(_ context.Context, _ *mcp.CallToolRequest, in Text) (*mcp.CallToolResult, any, error) {
			r := textResult("failed: %s", in.Text)
			r.IsError = true
			return r, nil, nil
		})
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "add", Description: "Add two numbers; the sum is structured content."},
		func(_ context.Context, _ *mcp.CallToolRequest, in Pair) (*mcp.CallToolResult, Sum, error) {
			return nil, Sum{Sum: in.A + in.B}, nil
		})
	s.mcp.AddTool(&mcp.Tool{Name: "structured_only", Description: "Structured content and no text.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{}, StructuredContent: map[string]any{"answer": 42}}, nil
		})
	// As @modelcontextprotocol/server-filesystem's read_text_file answers:
	// the file's text, and the same text again as structured content
	// ({"content": text}) for clients that read that instead.
	s.mcp.AddTool(&mcp.Tool{Name: "read_text_file", Description: "Return a text file of that many bytes, as text and as structured content.", InputSchema: json.RawMessage(`{"type":"object","properties":{"bytes":{"type":"integer"}}}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in Size
			if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
				return nil, err
			}
			text := FileText(in.Bytes)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: map[string]any{"content": text}}, nil
		})
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "protocol_error", Description: "Answer with a JSON-RPC error."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return nil, nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "no such widget"}
		})
	// A careless or hostile server: hidden characters (a bidi override and
	// Unicode TAG characters, "ASCII smuggling") in a description and in
	// every answer.
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "hidden", Description: "Look\u202eup\U000E0069\U000E0067\U000E006E a word."},
		func(_ context.Context, _ *mcp.CallToolRequest, in Text) (*mcp.CallToolResult, any, error) {
			return textResult("found\x1b[2J %s\u200b", in.Text), nil, nil
		})
}

// addChangeTools serves tools that change what the server offers while it
// runs: tools and skills.
func (s *Server) addChangeTools() {
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "add_tool", Description: "Add a tool named text that echoes."},
		func(_ context.Context, _ *mcp.CallToolRequest, in Text) (*mcp.CallToolResult, any, error) {
			name := in.Text
			mcp.AddTool(s.mcp, &mcp.Tool{Name: name, Description: "Added at run time."},
				func(_ context.Context, _ *mcp.CallToolRequest, in Text) (*mcp.CallToolResult, any, error) {
					return textResult("%s: %s", name, in.Text), nil, nil
				})
			return textResult("added %s", name), nil, nil
		})
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "remove_tool", Description: "Remove the tool named text."},
		func(_ context.Context, _ *mcp.CallToolRequest, in Text) (*mcp.CallToolResult, any, error) {
			s.mcp.RemoveTools(in.Text)
			return textResult("removed %s", in.Text), nil, nil
		})
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "add_skill", Description: "Serve a new skill named text."},
		func(_ context.Context, _ *mcp.CallToolRequest, in Text) (*mcp.CallToolResult, any, error) {
			s.AddSkill(Skill{Name: in.Text, Description: "Added while running: " + in.Text + ".", Body: "Instructions of " + in.Text + ".\n"})
			return textResult("serving skill %s", in.Text), nil, nil
		})
}

// addProcessTools serves tools that show or misbehave as a process: its
// environment, the request's _meta, big or slow answers, children, a
// crash, a hang, garbage on the wire.
func (s *Server) addProcessTools() {
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "env", Description: "List the server's environment."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			env := os.Environ()
			slices.Sort(env)
			return textResult("%s", strings.Join(env, "\n")), nil, nil
		})
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "meta", Description: "Return the request's _meta."},
		func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			data, _ := json.Marshal(req.Params.Meta)
			return textResult("%s", data), nil, nil
		})
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "big", Description: "Return a text of that many bytes."},
		func(_ context.Context, _ *mcp.CallToolRequest, in Size) (*mcp.CallToolResult, any, error) {
			return textResult("%s", strings.Repeat("x", in.Bytes)), nil, nil
		})
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "sleep", Description: "Sleep that many milliseconds (bytes), then answer."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in Size) (*mcp.CallToolResult, any, error) {
			select {
			case <-time.After(time.Duration(in.Bytes) * time.Millisecond):
			case <-ctx.Done():
			}
			return textResult("slept"), nil, nil
		})
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "spawn", Description: "Start a long sleep tagged with the text, in the background (stdio only)."},
		func(_ context.Context, _ *mcp.CallToolRequest, in Text) (*mcp.CallToolResult, any, error) {
			if !s.stdio {
				return textResult("not a process of its own"), nil, nil
			}
			cmd := exec.Command("sh", "-c", "sleep 3600; : "+in.Text)
			if err := cmd.Start(); err != nil {
				return nil, nil, err
			}
			go cmd.Wait()
			return textResult("%d", cmd.Process.Pid), nil, nil
		})
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "crash", Description: "Exit at once (stdio only)."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			if s.stdio {
				fmt.Fprintln(os.Stderr, "mcptest: crashing as asked")
				os.Exit(3)
			}
			return textResult("not a process of its own"), nil, nil
		})
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "freeze", Description: "Stop writing anything, answers and pings alike, for good (stdio only): a hung server."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			if w, ok := s.out.(*lockedWriter); ok && s.stdio {
				w.mu.Lock() // never unlocked: every later write blocks
			}
			return textResult("thawed"), nil, nil
		})
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "garbage", Description: "Write a line that is not JSON, then never answer (stdio only)."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			if s.stdio {
				fmt.Fprintln(s.out, "this is not JSON-RPC {")
				<-ctx.Done()
			}
			return textResult("no garbage"), nil, nil
		})
}

// addNameTools serves two tools whose names sanitize alike, and one too
// long for a tool name as it is.
func (s *Server) addNameTools() {
	for _, n := range []string{"dotted.name", "dotted_name", strings.Repeat("long", 20)} {
		mcp.AddTool(s.mcp, &mcp.Tool{Name: n, Description: "Named " + n + "."},
			func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
				return textResult("%s answered", n), nil, nil
			})
	}
}

// The wire types of the skills extension.
type (
	skillResource struct {
		URI    string `json:"uri"`
		Digest string `json:"digest"`
		Size   int64  `json:"size"`
	}
	skillEntry struct {
		URI         string          `json:"uri"`
		Frontmatter map[string]any  `json:"frontmatter"`
		Resources   []skillResource `json:"resources"`
	}
	listParams struct {
		mcp.ParamsBase
		Cursor string `json:"cursor,omitempty"`
	}
	listResult struct {
		mcp.ResultBase
		Skills []skillEntry `json:"skills"`
	}
	getParams struct {
		mcp.ParamsBase
		URI string `json:"uri"`
	}
	getResult struct {
		mcp.ResultBase
		Skill skillEntry `json:"skill"`
	}
)

// AddSkill serves a skill (or replaces one of that name): each file a
// resource, the skill in skills/list. The SDK announces the new resources
// with resources/list_changed.
func (s *Server) AddSkill(sk Skill) {
	files := map[string]string{"SKILL.md": "---\nname: " + sk.Name + "\ndescription: " + sk.Description + "\n---\n" + sk.Body}
	for k, v := range sk.Files {
		files[k] = v
	}
	s.mu.Lock()
	if _, ok := s.skills[sk.Name]; !ok {
		s.order = append(s.order, sk.Name)
	}
	s.skills[sk.Name] = &skill{name: sk.Name, description: sk.Description, files: files, lie: sk.Lie}
	s.mu.Unlock()
	for rel, content := range files {
		uri := uriOf(sk.Name, rel)
		s.mcp.AddResource(&mcp.Resource{URI: uri, Name: rel, MIMEType: "text/markdown"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, Text: content}}}, nil
		})
	}
}

// RemoveSkill stops serving a skill.
func (s *Server) RemoveSkill(name string) {
	s.mu.Lock()
	sk := s.skills[name]
	delete(s.skills, name)
	s.order = slices.DeleteFunc(s.order, func(n string) bool { return n == name })
	s.mu.Unlock()
	if sk != nil {
		var uris []string
		for rel := range sk.files {
			uris = append(uris, uriOf(name, rel))
		}
		s.mcp.RemoveResources(uris...)
	}
}

func uriOf(name, rel string) string { return "skill://" + name + "/" + rel }

func (s *Server) entry(sk *skill) skillEntry {
	e := skillEntry{URI: uriOf(sk.name, "SKILL.md"), Frontmatter: map[string]any{"name": sk.name, "description": sk.description}}
	rels := make([]string, 0, len(sk.files))
	for rel := range sk.files {
		rels = append(rels, rel)
	}
	slices.Sort(rels)
	for _, rel := range rels {
		content := sk.files[rel]
		sum := sha256.Sum256([]byte(content))
		if rel == sk.lie {
			sum = sha256.Sum256([]byte(content + " as it was signed"))
		}
		e.Resources = append(e.Resources, skillResource{URI: uriOf(sk.name, rel), Digest: "sha256:" + hex.EncodeToString(sum[:]), Size: int64(len(content))})
	}
	return e
}

func (s *Server) listSkills(context.Context, *mcp.ServerSession, *listParams) (*listResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	res := &listResult{Skills: []skillEntry{}}
	for _, n := range s.order {
		res.Skills = append(res.Skills, s.entry(s.skills[n]))
	}
	return res, nil
}

func (s *Server) getSkill(_ context.Context, _ *mcp.ServerSession, p *getParams) (*getResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, n := range s.order {
		if uriOf(n, "SKILL.md") == p.URI {
			return &getResult{Skill: s.entry(s.skills[n])}, nil
		}
	}
	return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "no skill at " + p.URI}
}

// AddDemoSkills serves the skills the tests share: "demo", with a script
// and a reference beside its SKILL.md, and "tampered", whose manifest gives
// its reference a digest its content does not have.
func (s *Server) AddDemoSkills() {
	s.AddSkill(Skill{Name: "demo", Description: "Demonstrate a skill served over MCP.",
		Body:  "Run scripts/hello.sh, then read references/GUIDE.md.\n",
		Files: map[string]string{"scripts/hello.sh": "#!/bin/sh\necho hello from demo\n", "references/GUIDE.md": "# Guide\nBe kind.\n"}})
	s.AddSkill(Skill{Name: "tampered", Description: "A skill whose reference changed after it was listed.",
		Body:  "Read references/GUIDE.md.\n",
		Files: map[string]string{"references/GUIDE.md": "# Guide\nSomething else now.\n"}, Lie: "references/GUIDE.md"})
}

// Main serves the test server over stdio, with the demo skills unless
// MCPTEST_SKILLS is "0" (then without the extension); a test binary calls
// it from TestMain when MCPTEST_SERVE is "stdio".
func Main() int {
	s := New(os.Getenv("MCPTEST_SKILLS") != "0")
	if os.Getenv("MCPTEST_SKILLS") != "0" {
		s.AddDemoSkills()
	}
	if os.Getenv("MCPTEST_BANNER") != "" {
		fmt.Println(os.Getenv("MCPTEST_BANNER")) // a server that prints before it speaks
	}
	if err := s.ServeStdio(context.Background()); err != nil && err != io.EOF && !strings.Contains(err.Error(), "closed") {
		fmt.Fprintln(os.Stderr, "mcptest:", err)
		return 1
	}
	return 0
}
