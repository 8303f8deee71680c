package mcpserver

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/helios-agents/helios/kernel/skills"
)

// The wire types of the Agent Skills extension (SEP-2640).
type (
	// SkillResource is one file of a skill's manifest.
	SkillResource struct {
		URI    string `json:"uri"`
		Digest string `json:"digest"` // "sha256:<64 lowercase hex>"
		Size   int64  `json:"size"`
	}
	// SkillEntry is one skill: its SKILL.md URI, its frontmatter verbatim
	// and the complete manifest of its files.
	SkillEntry struct {
		URI         string          `json:"uri"`
		Frontmatter map[string]any  `json:"frontmatter"`
		Resources   []SkillResource `json:"resources"`
	}
	// ListSkillsParams are the params of skills/list.
	ListSkillsParams struct {
		mcp.ParamsBase
		Cursor string `json:"cursor,omitempty"`
	}
	// ListSkillsResult is the result of skills/list.
	ListSkillsResult struct {
		mcp.ResultBase
		mcp.Cacheable
		ResultType string       `json:"resultType"`
		Skills     []SkillEntry `json:"skills"`
		NextCursor string       `json:"nextCursor,omitempty"`
	}
	// GetSkillParams are the params of skills/get.
	GetSkillParams struct {
		mcp.ParamsBase
		URI string `json:"uri"`
	}
	// GetSkillResult is the result of skills/get.
	GetSkillResult struct {
		mcp.ResultBase
		mcp.Cacheable
		ResultType string     `json:"resultType"`
		Skill      SkillEntry `json:"skill"`
	}
)

// WarningsMeta is the _meta key of a result's warnings: files left out of a
// skill (unreadable, pointing outside, past the limits).
const WarningsMeta = "dev.helios/warnings"

// The catalog is live and announced by notifications, so entries are stale
// at once (ttlMs 0) and private to this machine's user.
var live = mcp.Cacheable{TTLMs: 0, CacheScope: "private"}

func addSkillMethods(s *Server) error {
	if err := mcp.AddReceivingCustomMethod(s.mcp, "skills/list", s.listSkills); err != nil {
		return err
	}
	return mcp.AddReceivingCustomMethod(s.mcp, "skills/get", s.getSkill)
}

// listSkills serves every skill of the live catalog, complete or not: a
// listing is a point-in-time answer, not an announcement.
func (s *Server) listSkills(ctx context.Context, _ *mcp.ServerSession, _ *ListSkillsParams) (*ListSkillsResult, error) {
	cat := s.k.Catalog(ctx)
	res := &ListSkillsResult{Cacheable: live, ResultType: "complete", Skills: []SkillEntry{}}
	var warns []string
	for _, sk := range cat.Skills {
		if err := publishable(sk); err != nil {
			warns = append(warns, err.Error())
			continue
		}
		e, w := s.entry(ctx, sk)
		warns = append(warns, w...)
		res.Skills = append(res.Skills, e)
	}
	setWarnings(&res.ResultBase, warns)
	return res, nil
}

// getSkill serves the entry of the skill whose SKILL.md URI is given.
func (s *Server) getSkill(ctx context.Context, _ *mcp.ServerSession, p *GetSkillParams) (*GetSkillResult, error) {
	name, rel, err := parseURI(p.URI)
	if err != nil || rel != SkillFile {
		return nil, invalidParams("No skill is served at %q: a skill is named by the URI of its SKILL.md", p.URI)
	}
	sk, ok := s.k.Catalog(ctx).Lookup(name)
	if !ok {
		return nil, invalidParams("No skill is served at %q", p.URI)
	}
	if err := publishable(sk); err != nil {
		return nil, invalidParams("%v", err)
	}
	e, warns := s.entry(ctx, sk)
	res := &GetSkillResult{Cacheable: live, ResultType: "complete", Skill: e}
	setWarnings(&res.ResultBase, warns)
	return res, nil
}

// entry builds a skill's entry from its files as they are now.
func (s *Server) entry(ctx context.Context, sk skills.Skill) (SkillEntry, []string) {
	files, warns := manifest(ctx, sk, true)
	e := SkillEntry{URI: fileURI(sk.Name, SkillFile), Resources: []SkillResource{}}
	for _, f := range files {
		e.Resources = append(e.Resources, SkillResource{URI: fileURI(sk.Name, f.Rel), Digest: f.Digest, Size: f.Size})
	}
	fm, err := skillFrontmatter(ctx, sk, s.k.SkillLimits())
	if err != nil {
		// The entry is still served, with the catalog's name and
		// description: one bad frontmatter costs only its other fields.
		warns = append(warns, fmt.Sprintf("skill %q: frontmatter left out: %v", sk.Name, err))
		fm = map[string]any{"name": sk.Name, "description": sk.Description}
	}
	e.Frontmatter = fm
	s.warn(warns)
	return e, warns
}

func setWarnings(r *mcp.ResultBase, warns []string) {
	if len(warns) > 0 {
		r.Meta = mcp.Meta{WarningsMeta: warns}
	}
}
