package mcpserver

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"text/template"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/kernel/skills/catalog"
	"github.com/helios-agents/helios/kernel/skills/skillfs"
)

// ExtensionID is the Agent Skills extension the server declares.
const ExtensionID = "io.modelcontextprotocol/skills"

// Tool names.
const (
	SkillToolName    = skills.SkillToolName  // "skill"
	SearchToolName   = skills.SearchToolName // "skill_search"
	ResourceToolName = "skill_resource"
)

var (
	//go:embed skill_tool.md.tmpl
	skillToolText string
	skillToolTmpl = sync.OnceValue(func() *template.Template { return template.Must(template.New("skill tool").Parse(skillToolText)) })

	//go:embed skill_resource_tool.md
	resourceToolDescription string

	//go:embed instructions.md
	instructionsMD string
	instructions   = strings.TrimRight(instructionsMD, "\n")

	//go:embed skill_tool_note.md
	skillToolNoteMD string
	skillToolNote   = strings.TrimRight(skillToolNoteMD, "\n")
)

// MaxToolDescription bounds the skill tool's description, in characters:
// Claude Code cuts MCP tool descriptions at 4,096 characters, so the
// catalog in it is budgeted to fit, whatever skills.catalog.budget allows.
const MaxToolDescription = 4096

// Kernel is what the server needs of a kernel: its merged catalog, read at
// call time, and its registry's bare "skills changed" signal.
// *kernel.Kernel satisfies it.
type Kernel interface {
	Catalog(ctx context.Context) skills.Catalog
	Skills() *skills.Registry
	// CatalogBudget bounds the catalog in the skill tool's description, as
	// it bounds the kernel's catalog message.
	CatalogBudget() skills.Budget
	// SkillLimits bounds what the server reads and re-encodes of a
	// frontmatter, as it bounds discovery.
	SkillLimits() skillfs.Limits
}

// Config configures a Server.
type Config struct {
	// Kernel serves the catalog. Required.
	Kernel Kernel
	// Name and Version identify the server to clients. Empty: "helios" and
	// "dev".
	Name, Version string
	// Logger receives warnings (files left out of a skill, reads refused).
	// Nil discards. It must not write to stdout when serving stdio.
	Logger *slog.Logger
}

// Server is an MCP server over a kernel's live skill catalog. It is safe for
// concurrent use by any number of sessions.
type Server struct {
	k      Kernel
	logger *slog.Logger
	mcp    *mcp.Server

	mu        sync.Mutex
	published string   // digest of the catalog the lists describe
	toolDesc  string   // the skill tool's current description
	instr     string   // the instructions a client initializing now gets
	uris      []string // the resources registered with the SDK
	prompts   []string // the prompts registered with the SDK
	subs      map[string]*subscription

	warnMu sync.Mutex
	warned map[string]bool // warnings already logged: each is logged once

	changed chan struct{}
	cancel  context.CancelFunc
	stop    func() // unregisters the change listener
	done    chan struct{}
	closed  sync.Once
}

// subscription is one subscribed resource: how many subscribe calls hold it
// and the digest of its content when last seen, so that only a real change
// of that file is announced.
type subscription struct {
	refs   int
	digest string
}

// New builds the server, publishes the current catalog and starts following
// the kernel's changes. Close stops following.
func New(cfg Config) (*Server, error) {
	if cfg.Kernel == nil {
		return nil, errors.New("new mcp server: no kernel")
	}
	s := &Server{k: cfg.Kernel, logger: cfg.Logger, subs: map[string]*subscription{}, warned: map[string]bool{},
		changed: make(chan struct{}, 1), done: make(chan struct{})}
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	impl := &mcp.Implementation{Name: or(cfg.Name, "helios"), Version: or(cfg.Version, "dev")}
	s.mcp = mcp.NewServer(impl, &mcp.ServerOptions{
		Logger: s.logger,
		// Declared explicitly: the SDK would infer them from what was added
		// before a client connects, and an empty catalog at start would then
		// announce no prompts or resources, ever.
		Capabilities:       capabilities(),
		SubscribeHandler:   s.subscribe,
		UnsubscribeHandler: s.unsubscribe,
		Instructions:       instructions,
	})
	// A client initializing gets the catalog as it is then: the SDK's
	// instructions are fixed at construction, so the result is completed
	// here.
	s.mcp.AddReceivingMiddleware(s.currentInstructions)
	s.mcp.AddTool(&mcp.Tool{Name: SearchToolName, Description: skills.SearchToolDescription(), InputSchema: searchSchema()}, s.callSearch)
	s.mcp.AddTool(&mcp.Tool{Name: ResourceToolName, Description: resourceToolDescription, InputSchema: resourceSchema()}, s.callResource)
	s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{
		Name:        "skill-file",
		URITemplate: Scheme + "://{name}/{+path}",
		Description: "A file of a skill, by the skill's name and the file's path relative to the skill's folder.",
	}, s.readResource)
	if err := addSkillMethods(s); err != nil {
		return nil, fmt.Errorf("new mcp server: %w", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	// The first catalog is published even when incomplete: it is the start,
	// not a change, and an empty list would serve nobody. From then on only
	// complete catalogs are published.
	first := s.k.Catalog(ctx)
	s.publish(ctx, first)
	s.stop = s.k.Skills().OnChange(func() {
		select {
		case s.changed <- struct{}{}:
		default: // a signal is pending; one snapshot covers both
		}
	})
	if !first.Complete {
		select { // read again until complete, change or not
		case s.changed <- struct{}{}:
		default:
		}
	}
	go s.follow(ctx)
	return s, nil
}

// capabilities is what the server declares whatever its catalog holds.
func capabilities() *mcp.ServerCapabilities {
	c := &mcp.ServerCapabilities{
		Tools:     &mcp.ToolCapabilities{ListChanged: true},
		Resources: &mcp.ResourceCapabilities{Subscribe: true, ListChanged: true},
		Prompts:   &mcp.PromptCapabilities{ListChanged: true},
	}
	c.AddExtension(ExtensionID, nil)
	return c
}

// MCP returns the SDK server, to run on a transport or behind an HTTP
// handler.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Run serves one session on t until the client leaves or ctx ends.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	return s.mcp.Run(ctx, t)
}

// Close stops following the kernel. Sessions still running keep resolving
// names against the kernel until they end.
func (s *Server) Close() error {
	s.closed.Do(func() {
		s.stop()
		s.cancel()
		<-s.done
	})
	return nil
}

// follow publishes each new complete catalog and tells subscribers about
// the files that changed, until ctx ends.
func (s *Server) follow(ctx context.Context) {
	defer close(s.done)
	retry := time.NewTimer(time.Hour)
	retry.Stop()
	defer retry.Stop()
	backoff := skills.RetryIncompleteMin
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.changed:
		case <-retry.C:
		}
		cat := s.k.Catalog(ctx)
		if ctx.Err() != nil {
			return
		}
		if !cat.Complete {
			// A half-observed catalog is never announced; look again soon.
			retry.Reset(backoff)
			backoff = min(2*backoff, skills.RetryIncompleteMax)
			continue
		}
		retry.Stop()
		backoff = skills.RetryIncompleteMin
		s.publish(ctx, cat)
		s.notifyUpdated(ctx, cat)
	}
}

// publish brings the SDK's lists in line with cat when its summaries differ
// from the last published ones. The SDK announces each list it touches
// (debounced into one notification per list), so a new catalog costs one
// resources/list_changed, one prompts/list_changed, and one
// tools/list_changed only when the skill tool's description changed. A
// body-only edit leaves the summaries, and so the lists, alone.
func (s *Server) publish(ctx context.Context, cat skills.Catalog) {
	s.mu.Lock()
	defer s.mu.Unlock()
	digest := cat.Digest()
	if s.uris != nil && digest == s.published {
		return
	}
	s.published = digest

	s.instr = serverInstructions(cat, s.k.CatalogBudget())
	if desc := skillToolDescription(cat, s.k.CatalogBudget()); desc != s.toolDesc {
		s.toolDesc = desc
		s.mcp.AddTool(&mcp.Tool{Name: SkillToolName, Description: desc, InputSchema: skillSchema()}, s.callSkill)
	}

	var resources []*mcp.Resource
	var published []skills.Skill
	for _, sk := range cat.Skills {
		if err := publishable(sk); err != nil {
			s.warn([]string{err.Error()}) // this skill only: the others are served
			continue
		}
		published = append(published, sk)
		files, warns := manifest(ctx, sk, false)
		s.warn(warns)
		for _, f := range files {
			// fileURI builds only URIs net/url accepts (FuzzSkillURI): the
			// SDK panics on any other.
			r := &mcp.Resource{URI: fileURI(sk.Name, f.Rel), Name: f.Rel, MIMEType: mimeType(f.Rel, nil)}
			if f.Rel == SkillFile {
				r.Name, r.Title, r.Description = sk.Name, sk.Name, sk.Description
			}
			resources = append(resources, r)
		}
	}
	keep := map[string]bool{}
	for _, r := range resources {
		keep[r.URI] = true
	}
	s.mcp.RemoveResources(notIn(s.uris, keep)...)
	s.uris = []string{}
	for _, r := range resources {
		s.mcp.AddResource(r, s.readResource)
		s.uris = append(s.uris, r.URI)
	}

	names := map[string]bool{}
	for _, sk := range published {
		names[sk.Name] = true
	}
	s.mcp.RemovePrompts(notIn(s.prompts, names)...)
	s.prompts = s.prompts[:0]
	for _, sk := range published {
		// One prompt per skill a person may invoke: all of them, those
		// hidden from the model included.
		s.mcp.AddPrompt(&mcp.Prompt{Name: sk.Name, Title: sk.Name, Description: sk.Description}, s.getPrompt)
		s.prompts = append(s.prompts, sk.Name)
	}
}

// publishable says whether sk can be named over MCP at all. A name is data,
// escaped wherever it goes (fileURI), but JSON strings are Unicode: a name
// that is not valid UTF-8 (a folder's raw bytes, standing in for a missing
// name) would reach the client altered and never resolve back. Such a skill
// is left out of every list, with a warning naming it; the others are
// served.
func publishable(sk skills.Skill) error {
	if !utf8.ValidString(sk.Name) {
		return fmt.Errorf("skill %q from %q left out: its name is not valid UTF-8, which JSON-RPC cannot carry (give it a name in its frontmatter)", sk.Name, sk.Origin())
	}
	return nil
}

// currentInstructions is a receiving middleware: it gives an initialize
// (or discover) result the instructions of the catalog published last.
func (s *Server) currentInstructions(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if err != nil {
			return res, err
		}
		switch r := res.(type) {
		case *mcp.InitializeResult:
			s.mu.Lock()
			r.Instructions = s.instr
			s.mu.Unlock()
		case *mcp.DiscoverResult:
			s.mu.Lock()
			r.Instructions = s.instr
			s.mu.Unlock()
		}
		return res, err
	}
}

// serverInstructions is what a client initializing gets as instructions:
// the server's role, then the catalog message the kernel's model would get
// (the same budget and rule, so bounded by skills.catalog.budget). MCP
// clients that hide tools behind a search (Claude Code) still show them.
func serverInstructions(cat skills.Catalog, budget skills.Budget) string {
	return instructions + "\n\n" + catalog.Render(cat.Skills, budget, catalog.MessageFrame()).Message
}

// skillToolDescription is the skill tool's description: when skills are
// left out, first the sentence saying how many and that skill_search finds
// them (a client cutting the description keeps it); then the tool's role
// and the catalog the model may see, held to the kernel's catalog budget,
// and never over MaxToolDescription, by the same rule as the catalog
// message (catalog.Render).
func skillToolDescription(cat skills.Catalog, budget skills.Budget) string {
	var head strings.Builder
	if err := skillToolTmpl().Execute(&head, struct {
		Load     string
		Complete bool
	}{skills.SkillToolDescription(), cat.Complete}); err != nil {
		panic(err) // the template is embedded and its data fixed
	}
	frame := catalog.MessageFrame()
	frame.Head = head.String()
	frame.Tail = "</available_skills>"
	frame.Empty = head.String() + "</available_skills>"
	frame.Note = func(omitted int) string {
		return strings.ReplaceAll(skillToolNote, "{omitted}", strconv.Itoa(omitted)) + "\n\n"
	}
	frame.NoteFirst = true
	if budget.Chars <= 0 || budget.Chars > MaxToolDescription {
		budget.Chars = MaxToolDescription
	}
	return catalog.Render(cat.Skills, budget, frame).Message
}

// subscribe records the digest of a resource's content, so a later change
// signal can tell whether that file changed.
func (s *Server) subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
	uri := req.Params.URI
	d := s.contentDigest(ctx, s.k.Catalog(ctx), uri)
	s.mu.Lock()
	defer s.mu.Unlock()
	sub := s.subs[uri]
	if sub == nil {
		sub = &subscription{digest: d}
		s.subs[uri] = sub
	}
	sub.refs++
	return nil
}

func (s *Server) unsubscribe(_ context.Context, req *mcp.UnsubscribeRequest) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sub := s.subs[req.Params.URI]; sub != nil {
		if sub.refs--; sub.refs <= 0 {
			delete(s.subs, req.Params.URI)
		}
	}
	return nil
}

// notifyUpdated sends resources/updated for each subscribed resource whose
// content changed since it was last seen; the SDK delivers it to that
// resource's subscribers only.
func (s *Server) notifyUpdated(ctx context.Context, cat skills.Catalog) {
	s.mu.Lock()
	uris := make([]string, 0, len(s.subs))
	for u := range s.subs {
		uris = append(uris, u)
	}
	s.mu.Unlock()
	for _, u := range uris {
		d := s.contentDigest(ctx, cat, u)
		s.mu.Lock()
		sub := s.subs[u]
		changed := sub != nil && sub.digest != d
		if changed {
			sub.digest = d
		}
		s.mu.Unlock()
		if changed {
			if err := s.mcp.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: u}); err != nil {
				s.logger.Warn("notify resources/updated", slog.String("uri", u), slog.Any("error", err))
			}
		}
	}
}

// contentDigest is the digest of what uri serves now, "" when it serves
// nothing.
func (s *Server) contentDigest(ctx context.Context, cat skills.Catalog, uri string) string {
	name, rel, err := parseURI(uri)
	if err != nil {
		return ""
	}
	sk, ok := cat.Lookup(name)
	if !ok {
		return ""
	}
	data, err := readSkillFile(ctx, sk, rel)
	if err != nil {
		return ""
	}
	return digest(data)
}

// readResource serves resources/read of a skill file, resolved against the
// live catalog and read through the guard.
func (s *Server) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	name, rel, err := parseURI(uri)
	if err != nil {
		return nil, invalidParams("%v", err)
	}
	sk, ok := s.k.Catalog(ctx).Lookup(name)
	if !ok {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	data, err := readSkillFile(ctx, sk, rel)
	if err != nil {
		s.logger.Warn("refuse resource read", slog.String("uri", uri), slog.Any("error", err))
		return nil, invalidParams("read %q: %v", uri, err)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{contents(uri, rel, data)}}, nil
}

// contents shapes a file as text, or as a blob when it is not UTF-8 text.
func contents(uri, rel string, data []byte) *mcp.ResourceContents {
	c := &mcp.ResourceContents{URI: uri, MIMEType: mimeType(rel, data)}
	if isText(data) {
		c.Text = string(data)
	} else {
		c.Blob = data
	}
	return c
}

// warn logs each warning the first time it is seen: the same files are
// listed again at every catalog change and every skills/list. Names in a
// warning are quoted (%q) where it is built; every warning passes here and
// through setWarnings, the two places a text sanitizer would clean the
// rest (an OS error repeating a path).
func (s *Server) warn(warns []string) {
	s.warnMu.Lock()
	defer s.warnMu.Unlock()
	for _, w := range warns {
		if !s.warned[w] {
			s.warned[w] = true
			s.logger.Warn(w)
		}
	}
}

func invalidParams(format string, a ...any) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(format, a...)}
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// notIn returns the names of old that keep does not hold: what a new
// catalog took away.
func notIn(old []string, keep map[string]bool) []string {
	var out []string
	for _, n := range old {
		if !keep[n] {
			out = append(out, n)
		}
	}
	return out
}
