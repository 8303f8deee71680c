package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/skills"
)

// resourceArgs are the skill_resource tool's arguments: a skill, named as
// the skill tool names it, and one of its files.
type resourceArgs struct {
	skills.SkillArgs
	Path string `json:"path" jsonschema:"The file's path relative to the skill's folder, e.g. references/GUIDE.md."`
}

// The tools' schemas are their argument structs'; the skill and
// skill_search tools take the kernel's arguments.
var (
	skillSchema    = sync.OnceValue(func() json.RawMessage { return contract.SchemaFor[skills.SkillArgs]() })
	searchSchema   = sync.OnceValue(func() json.RawMessage { return contract.SchemaFor[skills.SearchArgs]() })
	resourceSchema = sync.OnceValue(func() json.RawMessage { return contract.SchemaFor[resourceArgs]() })
)

// callSkill is the skill tool: the load text of a skill the model may see,
// resolved against the catalog as it is now (clients keep stale tool
// lists). Every failure is a tool result the model reads.
func (s *Server) callSkill(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in skills.SkillArgs
	if err := json.Unmarshal(req.Params.Arguments, &in); err != nil || in.Name == "" {
		return errorResult(`the skill tool takes {"name": "<skill name>"}`), nil
	}
	sk, res := s.resolve(ctx, in.Name)
	if res != nil {
		return res, nil
	}
	text, err := loadText(ctx, sk)
	if err != nil {
		return errorResult(err.Error()), nil
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
}

// callSearch is the skill_search tool: the kernel's answer (skills.SearchText)
// over the catalog as it is now, every skill the model may see included.
func (s *Server) callSearch(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in struct {
		Query *string `json:"query"` // skills.SearchArgs, with absence seen
	}
	if err := json.Unmarshal(req.Params.Arguments, &in); err != nil || in.Query == nil {
		return errorResult(`the skill_search tool takes {"query": "<a few words>"}`), nil
	}
	text, err := skills.SearchText(s.k.Catalog(ctx), *in.Query)
	if err != nil {
		return errorResult(err.Error()), nil
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
}

// callResource is the skill_resource tool: one file of a skill the model
// may see, text or blob.
func (s *Server) callResource(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in resourceArgs
	if err := json.Unmarshal(req.Params.Arguments, &in); err != nil || in.Name == "" || in.Path == "" {
		return errorResult(`the skill_resource tool takes {"name": "<skill name>", "path": "<path relative to the skill>"}`), nil
	}
	sk, res := s.resolve(ctx, in.Name)
	if res != nil {
		return res, nil
	}
	rel := strings.TrimPrefix(in.Path, "./")
	if rel == "skill.md" {
		rel = SkillFile
	}
	data, err := readSkillFile(ctx, sk, rel)
	if err != nil {
		return errorResult(err.Error()), nil
	}
	uri := fileURI(sk.Name, rel)
	c := contents(uri, rel, data)
	if c.Blob == nil {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: c.Text}}}, nil
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.EmbeddedResource{Resource: c}}}, nil
}

// resolve finds a skill the model may see in the live catalog, or returns
// the error result to send instead.
func (s *Server) resolve(ctx context.Context, name string) (skills.Skill, *mcp.CallToolResult) {
	cat := s.k.Catalog(ctx)
	sk, ok := cat.Lookup(name)
	if ok && !sk.DisableModelInvocation {
		return sk, nil
	}
	if ok {
		return skills.Skill{}, errorResult(fmt.Sprintf("skill %q is for people to invoke only (disable-model-invocation); it cannot be loaded by the model", name))
	}
	return skills.Skill{}, errorResult(unknownSkill(name, cat.Visible()))
}

// unknownSkill words the error for a name not in the catalog: the close
// matches, and that the list the caller holds may be out of date.
func unknownSkill(name string, ss []skills.Skill) string {
	names := make([]string, len(ss))
	for i, sk := range ss {
		names[i] = sk.Name
	}
	msg := fmt.Sprintf("unknown skill %q", name)
	if close := skills.CloseMatches(name, names); len(close) > 0 {
		msg += fmt.Sprintf(" (did you mean %s?)", strings.Join(close, ", "))
	}
	return msg + "; the list of skills may have changed since you last read it: the skill tool's description lists the current ones"
}

// getPrompt returns a skill's load text as a user message: a person invoked
// it, so skills hidden from the model are served too.
func (s *Server) getPrompt(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	name := req.Params.Name
	cat := s.k.Catalog(ctx)
	sk, ok := cat.Lookup(name)
	if !ok {
		return nil, invalidParams("%s", unknownSkill(name, cat.Skills))
	}
	text, err := loadText(ctx, sk)
	if err != nil {
		return nil, fmt.Errorf("get prompt %q: %w", name, err)
	}
	return &mcp.GetPromptResult{
		Description: sk.Description,
		Messages:    []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}},
	}, nil
}

// loadText is exactly what `helios skills load` prints: the kernel's load
// text, ending in a newline.
func loadText(ctx context.Context, sk skills.Skill) (string, error) {
	text, err := skills.Load(ctx, sk)
	if err != nil {
		return "", err
	}
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return text, nil
}

func errorResult(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}
}
