package plugins

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/hashicorp/go-plugin"

	"github.com/helios-agents/helios/kernel/contract"
)

// ProtocolVersion is the version of the plugin protocol (helios.proto and
// the meaning of its fields). go-plugin refuses a plugin that speaks another
// one at the handshake, with an error naming both versions.
const ProtocolVersion = 1

// Handshake is what host and plugin must agree on before anything else. The
// magic cookie is not a secret: it only stops a plugin binary from being
// run by hand as if it were a program.
var Handshake = plugin.HandshakeConfig{
	ProtocolVersion:  ProtocolVersion,
	MagicCookieKey:   "HELIOS_PLUGIN",
	MagicCookieValue: "7d0c1a52-helios-capability",
}

// MaxMessageSize bounds one gRPC message in either direction. go-plugin's
// server default is 4 MiB, too small for a long session's context:compact
// payload or a large skill; its client default is 2 GiB, which would let a
// hostile plugin make the kernel allocate that much. Both sides set this.
const MaxMessageSize = 64 << 20

// MaxPayload bounds each payload that crosses the wire: a hook payload or
// result, a tool's arguments or result, a skill body. It is half of
// MaxMessageSize, so the rest of a message always fits. The sender checks
// it (so an oversized payload fails with an error naming it, before any
// copy), and the receiver checks it again.
const MaxPayload = 32 << 20

// ErrTooLarge is wrapped by the error of a payload over MaxPayload or a
// message over MaxMessageSize; the message names the limit.
var ErrTooLarge = errors.New("plugin payload exceeds a limit")

// Capability is what crosses the process boundary: the host's client and a
// plugin's implementation (plugins/sdk) both satisfy it. Every method may
// be called concurrently.
type Capability interface {
	// Describe returns the plugin's name, description, mounts, tools and
	// current skills.
	Describe(ctx context.Context) (Description, error)
	// LoadSkill reads a skill's current body; nothing is cached.
	LoadSkill(ctx context.Context, name string) (SkillContent, error)
	// CallTool runs a tool. Errors the model should see are a ToolResult
	// with IsError; an error means the call could not be made.
	CallTool(ctx context.Context, name string, args json.RawMessage) (contract.ToolResult, error)
	// Handle runs the handler described as Mount{point, mount} on in, the
	// point's payload: the kernel/hookdata type of a standard point
	// (hookdata.PrepareIn for context:prepare, ...), or any other point's
	// JSON (json.RawMessage; the host also takes any value that marshals to
	// it).
	Handle(ctx context.Context, point, mount string, in any) (HookResult, error)
	// WatchSkills calls changed once when the watch is established, then
	// once after each change of the skills (bursts may coalesce), until ctx
	// is done or the watch fails. It blocks meanwhile. The first call lets
	// the caller Describe knowing that no later change can be missed.
	WatchSkills(ctx context.Context, changed func()) error
}

// Description is what a plugin says about itself.
type Description struct {
	// Name is the plugin's own name (its EXTENSION.md frontmatter name).
	Name string
	// Description is its EXTENSION.md frontmatter description: its line in
	// the <extensions> manifest.
	Description string
	// Mounts are its hook handlers, by point.
	Mounts []Mount
	// Tools are its tools, without their implementation.
	Tools []Tool
	// Skills are its current skills.
	Skills []Skill
	// SkillsIncomplete says the plugin could not read all its skills.
	SkillsIncomplete bool
	// Warnings are about skills it skipped or doubted. Their Source is
	// set by the host.
	Warnings []contract.Warning
}

// Mount is one hook handler of a plugin.
type Mount struct {
	// Point is the mount point, e.g. "context:prepare".
	Point string
	// Name tells two handlers of one plugin on the same point apart; it may
	// be empty.
	Name string
}

// Skill is one of a plugin's skills.
type Skill struct {
	// Name is the skill's frontmatter name.
	Name string
	// Description is its frontmatter description.
	Description string
	// BaseDir is the absolute directory the skill's relative paths resolve
	// against: the skill's folder on disk, beside the plugin.
	BaseDir string
	// File is the absolute path of its SKILL.md.
	File string
	// DisableModelInvocation hides it from the model's catalog and tools.
	DisableModelInvocation bool
}

// Tool is one of a plugin's tools, without its implementation.
type Tool struct {
	// Name is the tool's name.
	Name string
	// Description is what the model reads about it.
	Description string
	// Schema is the JSON Schema of its arguments.
	Schema json.RawMessage
}

// SkillContent is a loaded skill.
type SkillContent struct {
	// Name is the skill's frontmatter name at load time.
	Name string
	// Body is the text after the frontmatter.
	Body string
}

// HookResult is a handler's answer. Handled is explicit: false is a pass,
// whatever Value holds.
type HookResult struct {
	// Handled says the handler decided (firstWin) or contributed (concat).
	Handled bool
	// Value is the point's result, read only when Handled: the
	// kernel/hookdata type of a standard point's result (a string for
	// session:start and context:prepare, hookdata.ToolDecision for
	// tool:before, ...), or any other point's JSON (json.RawMessage; a
	// plugin may answer with any value that marshals to it).
	Value any
}
