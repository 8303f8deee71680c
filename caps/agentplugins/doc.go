// Package agentplugins reads agent plugins — the bundles of skills, slash
// commands, agents, hooks and MCP servers published for Claude Code, Codex
// and the neutral Agent Plugins 1.0 — and their marketplaces, and turns an
// installed plugin's parts into what the assembly mounts.
//
// An installed plugin is a folder <root>/<name>/, a verbatim copy of the
// plugin's folder in its source; <root>/helios-plugins.json (written by the
// installer) records each plugin's source, lock, enablement, disabled skills
// and the approval of the parts that run code. This package only reads.
//
// Every part either loads or yields a Warning naming the plugin, the part and
// the reason: a plugin never loads with zero of something and no word.
package agentplugins
