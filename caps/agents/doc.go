// Package agents reads subagent definitions in Claude Code's format (a
// Markdown file per agent: frontmatter name, description, tools,
// disallowedTools, model, skills, mcpServers, maxTurns, permissionMode; the
// body is the system prompt) from the project's folders, through the
// guarded work-dir port, the user's, and any more folders the assembly
// names (installed plugins' agents). It is the kernel's AgentSource: every
// call reads the folders again, so a new file is offered at the next step.
package agents
