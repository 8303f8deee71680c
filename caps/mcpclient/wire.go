package mcpclient

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ExtensionID is the Agent Skills extension a server declares in its
// capabilities when it serves skills.
const ExtensionID = "io.modelcontextprotocol/skills"

// The methods of the extension.
const (
	methodListSkills = "skills/list"
	methodGetSkill   = "skills/get"
)

// The wire types of the Agent Skills extension (SEP-2640), as a client reads
// them: every field a server may leave out is optional here, and checked
// where it is used.
type (
	skillResource struct {
		URI    string `json:"uri"`
		Digest string `json:"digest"` // "sha256:<64 lowercase hex>"
		Size   int64  `json:"size"`
	}
	skillEntry struct {
		URI         string          `json:"uri"` // of its SKILL.md
		Frontmatter map[string]any  `json:"frontmatter"`
		Resources   []skillResource `json:"resources"`
	}
	listSkillsParams struct {
		mcp.ParamsBase
		Cursor string `json:"cursor,omitempty"`
	}
	listSkillsResult struct {
		mcp.ResultBase
		Skills     []skillEntry `json:"skills"`
		NextCursor string       `json:"nextCursor,omitempty"`
	}
	getSkillParams struct {
		mcp.ParamsBase
		URI string `json:"uri"`
	}
	getSkillResult struct {
		mcp.ResultBase
		Skill skillEntry `json:"skill"`
	}
)

// maxSkillPages bounds the pages of one skills/list: a server whose cursor
// never ends must not hold a snapshot forever.
const maxSkillPages = 100

// registerSkillMethods lets c send the extension's methods.
func registerSkillMethods(c *mcp.Client) error {
	if err := mcp.AddSendingCustomMethod[*listSkillsParams, *listSkillsResult](c, methodListSkills); err != nil {
		return err
	}
	return mcp.AddSendingCustomMethod[*getSkillParams, *getSkillResult](c, methodGetSkill)
}
