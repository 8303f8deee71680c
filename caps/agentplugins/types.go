package agentplugins

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Dialect is the manifest format a plugin was read from.
type Dialect string

// The dialects ReadPlugin knows.
const (
	// DialectClaude is .claude-plugin/plugin.json (Claude Code).
	DialectClaude Dialect = "claude"
	// DialectCodex is .codex-plugin/plugin.json (Codex).
	DialectCodex Dialect = "codex"
	// DialectAgentPlugins is plugin.json at the plugin's root (Agent Plugins 1.0).
	DialectAgentPlugins Dialect = "agentplugins"
	// DialectFolder is a folder without a manifest, named after itself.
	DialectFolder Dialect = "folder"
)

// Manifest is a plugin's declaration with the defaults of its dialect
// applied. Paths are relative to the plugin's root, slash-separated, and never
// leave it.
type Manifest struct {
	Name        string
	Version     string
	Description string
	Dialect     Dialect
	// Skills are skill roots (folders holding <skill>/SKILL.md).
	Skills []string
	// Commands are command folders or single .md files.
	Commands []string
	// Agents are agent folders or single .md files.
	Agents []string
	// Hooks is the hooks file ("hooks/hooks.json" by default when present),
	// or "" when the hooks are inline or absent.
	Hooks string
	// HooksInline is the manifest's own "hooks" object, when it is one.
	HooksInline json.RawMessage
	// MCPServers are the servers by their plugin-local name, from the
	// manifest's mcpServers or the server file (.mcp.json, mcp.json).
	MCPServers map[string]json.RawMessage
	// MCPFile is the server file read for MCPServers, or "".
	MCPFile string
	// Helios is an optional go-plugin executable the plugin ships.
	Helios *HeliosPart
}

// HeliosPart is the manifest's "helios" field: a go-plugin capability
// executable shipped inside the plugin.
type HeliosPart struct {
	// Executable is the path of the executable inside the plugin.
	Executable string `json:"executable"`
}

// Source is where a marketplace entry's plugin lives: a Path inside the
// marketplace's own repository, or a git URL (an owner/repo is spelled as a
// GitHub URL) with an optional Ref and SubPath.
type Source struct {
	Path    string
	URL     string
	Ref     string
	SubPath string
}

// MarketplaceEntry is one plugin listed by a marketplace.
type MarketplaceEntry struct {
	Name        string
	Description string
	Source      Source
}

// Parts are an installed plugin's parts as the assembly mounts them: absolute
// paths, hooks in Claude Code's settings shape, MCP servers under their
// Helios names.
type Parts struct {
	// Skills are skill roots (folders whose children are skills).
	Skills []string
	// Commands are command .md files.
	Commands []string
	// Agents are agent .md files.
	Agents []string
	// AgentDefs are the parsed agents, in the order of Agents.
	AgentDefs []Agent
	// Hooks is the hooks settings object (event → matcher groups), its
	// commands still spelled with ${CLAUDE_PLUGIN_ROOT}, ${PLUGIN_ROOT} or
	// ${CODEX_PLUGIN_ROOT}: the hook runner sets all three to the plugin's
	// folder.
	Hooks json.RawMessage
	// MCPServers are the mcp.servers entries, named plugin_<plugin>_<server>,
	// the root variables in them replaced by the plugin's folder.
	MCPServers map[string]json.RawMessage
	// Executable is the plugin's go-plugin executable (absolute), or "".
	Executable string
}

// Agent is a subagent definition (Claude Code's format: frontmatter and a
// system prompt). Agents are stored and listed; they do not run yet.
type Agent struct {
	Name        string
	Description string
	Tools       []string
	Model       string
	// File is the agent's .md file.
	File string
	// Prompt is the body after the frontmatter.
	Prompt string
}

// Warning is a part that could not load, or loads with a caveat.
type Warning struct {
	Plugin string
	Part   string
	Path   string
	Reason string
}

// String is "plugin <p>: <part> <path>: <reason>", leaving out what is empty.
func (w Warning) String() string {
	where := strings.TrimSpace(w.Part + " " + w.Path)
	if where == "" {
		return fmt.Sprintf("plugin %s: %s", w.Plugin, w.Reason)
	}
	return fmt.Sprintf("plugin %s: %s: %s", w.Plugin, where, w.Reason)
}

// Installed is one plugin from an installed root.
type Installed struct {
	Name string
	// Root is the plugin's folder, <root>/<name>.
	Root string
	// Scope is "user" or "project".
	Scope          string
	Manifest       Manifest
	Parts          Parts
	Enabled        bool
	DisabledSkills []string
	// Approved is true when the recorded approval's digest equals the
	// RunDigest of the plugin as it is now.
	Approved bool
	// Digest is the RunDigest now; Runs the list of what would run.
	Digest string
	Runs   []string
}

// HasCode reports whether the plugin has parts that run code.
func (p Parts) HasCode() bool {
	return len(p.Hooks) > 0 || len(p.MCPServers) > 0 || p.Executable != ""
}
