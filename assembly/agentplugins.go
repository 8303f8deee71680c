package assembly

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/helios-agents/helios/caps/agentplugins"
	"github.com/helios-agents/helios/caps/cmdhooks"
	"github.com/helios-agents/helios/caps/commands"
	"github.com/helios-agents/helios/caps/mcpclient"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/skills/skillfs"
	"github.com/helios-agents/helios/otelsetup"
	"github.com/helios-agents/helios/plugins/host"
	"github.com/helios-agents/helios/workfs"
)

// PluginRoots are the installed agent-plugin roots opts names for a work
// dir, in merge order: opts.PluginRoots, or the user's
// (~/.helios/plugins) when that is nil; then the work dir's
// (<work>/.helios/plugins) when opts.ProjectPlugins.
func PluginRoots(workDir string, opts Options) []agentplugins.Root {
	roots := opts.PluginRoots
	if roots == nil {
		if dir, err := agentplugins.UserRoot(); err == nil {
			roots = []agentplugins.Root{{Dir: dir, Scope: agentplugins.ScopeUser}}
		}
	}
	roots = append([]agentplugins.Root(nil), roots...)
	if opts.ProjectPlugins && workDir != "" {
		roots = append(roots, agentplugins.Root{Dir: agentplugins.ProjectRoot(workDir), Scope: agentplugins.ScopeProject})
	}
	return roots
}

// InstalledPlugins loads the installed agent plugins of the roots opts
// names (see PluginRoots): a plugin of a later root with the name of an
// earlier one is left out with a warning naming both. Every part that
// cannot load, and every plugin whose code-running parts stay off for want
// of approval, is a warning with Source "config".
func InstalledPlugins(workDir string, opts Options) ([]agentplugins.Installed, []contract.Warning) {
	var out []agentplugins.Installed
	var warns []contract.Warning
	seen := map[string]string{}
	for _, r := range PluginRoots(workDir, opts) {
		if r.Scope == agentplugins.ScopeProject && !inWorkDir(workDir, r.Dir) {
			warns = append(warns, contract.Warning{Source: "config", Path: r.Dir, Message: "the project's plugins root leads out of the work dir (a symlink): its plugins are not loaded"})
			continue
		}
		list, ws := agentplugins.LoadInstalledForRun(r.Dir, r.Scope)
		for _, w := range ws {
			warns = append(warns, pluginWarning(w))
		}
		for _, p := range list {
			if first, ok := seen[p.Name]; ok {
				warns = append(warns, contract.Warning{Source: "config", Path: p.Root, Message: fmt.Sprintf("plugin %s: left out: a plugin of that name is installed at %s", p.Name, first)})
				continue
			}
			seen[p.Name] = p.Root
			if p.Enabled && p.Parts.HasCode() && !p.Approved {
				why := "never approved"
				if rec, _ := agentplugins.ReadState(filepath.Dir(p.Root)); rec.Plugins[p.Name].Approved != nil {
					why = "changed since they were approved"
				}
				warns = append(warns, contract.Warning{Source: "config", Path: p.Root, Message: fmt.Sprintf(
					"plugin %s: its hooks, MCP servers and executables are off (%s); %s", p.Name, why, agentplugins.ApproveHint(p.Name))})
			}
			out = append(out, p)
		}
	}
	return out, warns
}

// PluginCommands are the command folders and files of the enabled plugins,
// for commands.Config.Plugins.
func PluginCommands(installed []agentplugins.Installed) []commands.PluginCommands {
	var out []commands.PluginCommands
	for _, p := range installed {
		if !p.Enabled {
			continue
		}
		for _, rel := range p.Manifest.Commands {
			out = append(out, commands.PluginCommands{Plugin: p.Name, Path: filepath.Join(p.Root, filepath.FromSlash(rel))})
		}
	}
	return out
}

// inWorkDir reports whether dir, its symlinks resolved, is inside workDir
// (a dir that does not exist is: there is nothing to read).
func inWorkDir(workDir, dir string) bool {
	realWork, err := filepath.EvalSymlinks(workDir)
	if err != nil {
		return false
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return errors.Is(err, fs.ErrNotExist)
	}
	return within(realWork, real)
}

func pluginWarning(w agentplugins.Warning) contract.Warning {
	return contract.Warning{Source: "config", Path: w.Path, Message: w.String()}
}

// warn sends w where the assembly's warnings go: the logger and OnWarning.
func (a *assembler) warn(w contract.Warning) {
	if a.opts.Logger != nil {
		a.opts.Logger.Warn("config", slog.String("key", w.Path), slog.String("message", w.Message))
	}
	if a.opts.OnWarning != nil {
		a.opts.OnWarning(w)
	}
}

// agentPlugins loads the installed plugins and returns their skills as
// capabilities; their hooks and MCP servers wait in a.plugins for
// pluginHooks and pluginServers.
func (a *assembler) agentPlugins(port *workfs.FS) []kernel.Capability {
	workDir := port.Dir()
	installed, warns := InstalledPlugins(workDir, a.opts)
	for _, w := range warns {
		a.warn(w)
	}
	a.plugins = installed
	var caps []kernel.Capability
	for _, p := range installed {
		var fsys skillfs.FS // the user's: the OS, like the user's skill roots
		if p.Scope == agentplugins.ScopeProject {
			fsys = port
		}
		if s := agentplugins.NewSkills(p, fsys); s != nil {
			caps = append(caps, s)
		}
	}
	return caps
}

// pluginHooks are the approved, enabled plugins' hooks, one capability per
// plugin, with the three root variables set to its folder. A plugin whose
// hooks cannot be used costs only its hooks, with a warning.
func (a *assembler) pluginHooks(workDir string, transcript func(string) string) []kernel.Capability {
	var caps []kernel.Capability
	for _, p := range a.plugins {
		if !p.Enabled || !p.Approved || len(p.Parts.Hooks) == 0 {
			continue
		}
		src := cmdhooks.Parse(p.Parts.Hooks, p.Root)
		for _, w := range src.Warnings {
			a.warn(contract.Warning{Source: "config", Path: p.Root, Message: fmt.Sprintf("plugin %s: hooks: %s (ignored)", p.Name, w)})
		}
		if unknown := cmdhooks.Unknown(src.Settings); len(unknown) > 0 {
			a.warn(contract.Warning{Source: "config", Path: p.Root, Message: fmt.Sprintf("plugin %s: hooks: Helios does not run the event(s) %s: their hooks are ignored", p.Name, strings.Join(unknown, ", "))})
		}
		problems := append(src.Problems, cmdhooks.Check(src.Settings)...)
		if len(problems) > 0 {
			a.warn(contract.Warning{Source: "config", Path: p.Root, Message: fmt.Sprintf("plugin %s: hooks: off: %s", p.Name, strings.Join(problems, "; "))})
			continue
		}
		if !cmdhooks.Configured(src.Settings) {
			a.warn(contract.Warning{Source: "config", Path: p.Root, Message: fmt.Sprintf("plugin %s: hooks: none of its events is one Helios runs (Helios runs %s)", p.Name, strings.Join(cmdhooks.Events(), ", "))})
			continue
		}
		h, err := cmdhooks.New(cmdhooks.Config{
			Name:       agentplugins.SkillSource(p.Name) + ":hooks",
			Settings:   src.Settings,
			WorkDir:    workDir,
			Hide:       secretEnvNames(a.cfg),
			Secrets:    a.opts.Secrets,
			EnvFile:    a.envFile,
			Transcript: transcript,
			Logger:     a.opts.Logger,
			OnWarning:  a.opts.OnWarning,
			PluginRoot: p.Root,
		})
		if err != nil {
			a.warn(contract.Warning{Source: "config", Path: p.Root, Message: fmt.Sprintf("plugin %s: hooks: off: %v", p.Name, err)})
			continue
		}
		caps = append(caps, h)
	}
	return caps
}

// withPluginServers returns cfg with the approved, enabled plugins' MCP
// servers added to mcp.servers under their plugin_<plugin>_<server> names.
// A server that is not a valid entry, or whose name is taken, is left out
// with a warning; cfg itself is not changed.
func (a *assembler) withPluginServers(cfg Config) Config {
	var added map[string]MCPServerConfig
	for _, p := range a.plugins {
		if !p.Enabled || !p.Approved {
			continue
		}
		for _, name := range slices.Sorted(maps.Keys(p.Parts.MCPServers)) {
			bad := func(why string) {
				a.warn(contract.Warning{Source: "config", Path: p.Root, Message: fmt.Sprintf("plugin %s: mcp server %s: off: %s", p.Name, name, why)})
			}
			if !mcpclient.ValidServerName(name) {
				bad(fmt.Sprintf("the name is not 1 to %d letters, digits, _ or - (MCP tools are named mcp__<server>__<tool>, at most 64 characters)", mcpclient.MaxServerName))
				continue
			}
			if _, ok := cfg.MCP.Servers[name]; ok {
				bad("mcp.servers already has a server of that name")
				continue
			}
			if _, ok := cfg.MCPServers[name]; ok {
				bad("mcpServers already has a server of that name")
				continue
			}
			var s MCPServerConfig
			dec := json.NewDecoder(bytes.NewReader(withoutComments(p.Parts.MCPServers[name])))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&s); err != nil {
				bad(err.Error())
				continue
			}
			if probs := mcpProblems(Config{MCP: MCPConfig{Servers: map[string]MCPServerConfig{name: s}}}); len(probs) > 0 {
				bad(strings.Join(probs, "; "))
				continue
			}
			if added == nil {
				added = map[string]MCPServerConfig{}
			}
			added[name] = s
		}
	}
	if len(added) == 0 {
		return cfg
	}
	servers := make(map[string]MCPServerConfig, len(cfg.MCP.Servers)+len(added))
	for n, s := range cfg.MCP.Servers {
		servers[n] = s
	}
	for n, s := range added {
		servers[n] = s
	}
	cfg.MCP.Servers = servers
	return cfg
}

// withoutComments is a plugin's server entry less its keys that start with
// "_": published plugins document a server in such keys (trailofbits'
// zeroize-audit has "_docs"), which Claude Code ignores. Any other unknown
// key still costs the server.
func withoutComments(raw json.RawMessage) json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return raw
	}
	dropped := false
	for k := range obj {
		if strings.HasPrefix(k, "_") {
			delete(obj, k)
			dropped = true
		}
	}
	if !dropped {
		return raw
	}
	out, err := json.Marshal(obj)
	if err != nil {
		return raw
	}
	return out
}

// pluginExecutables launches the go-plugin executable of each approved,
// enabled plugin that ships one, pinned to the SHA-256 it has now (the
// approval's digest covers it; the host checks it before every start). One
// that cannot start costs only itself, with a warning.
func (a *assembler) pluginExecutables(ctx context.Context) []kernel.Capability {
	var caps []kernel.Capability
	for _, p := range a.plugins {
		if !p.Enabled || !p.Approved || p.Parts.Executable == "" {
			continue
		}
		data, err := os.ReadFile(p.Parts.Executable)
		if err != nil {
			a.warn(contract.Warning{Source: "config", Path: p.Parts.Executable, Message: fmt.Sprintf("plugin %s: executable: off: %v", p.Name, err)})
			continue
		}
		sum := sha256.Sum256(data)
		hc := host.Config{
			Name:      agentplugins.SkillSource(p.Name) + ":executable",
			Command:   p.Parts.Executable,
			SHA256:    hex.EncodeToString(sum[:]),
			Logger:    a.opts.Logger,
			Telemetry: a.tel,
		}
		if a.handover != "" {
			hc.Env = append(hc.Env, otelsetup.HandoverEnv+"="+a.handover)
		}
		c, err := host.Launch(ctx, hc)
		if err != nil {
			a.warn(contract.Warning{Source: "config", Path: p.Parts.Executable, Message: fmt.Sprintf("plugin %s: executable: off: %v", p.Name, err)})
			continue
		}
		a.opened = append(a.opened, c)
		caps = append(caps, c)
	}
	return caps
}
