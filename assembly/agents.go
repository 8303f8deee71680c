package assembly

import (
	"fmt"

	"github.com/helios-agents/helios/caps/agents"
	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/model"
	"github.com/helios-agents/helios/workfs"
)

// agents is the kernel's subagents config from the "agents" key: the
// definitions read through port (the project's), from the user's folders,
// agents.dirs, the enabled installed plugins' agent files and
// Options.AgentDirs; a model named by a definition is
// built as the "model" key's, with that name.
func (a *assembler) agents(port *workfs.FS) (kernel.AgentsConfig, error) {
	c := a.cfg.Agents
	if !c.On() {
		return kernel.AgentsConfig{}, nil
	}
	// Without a home directory there are no user agent folders, as there
	// are no user settings: not an error (a config naming "~/" still is).
	userDirs, _ := agents.DefaultUserDirs()
	var extra []agents.Dir
	for _, d := range c.Dirs {
		p, err := expandHome(d)
		if err != nil {
			return kernel.AgentsConfig{}, fmt.Errorf("resolve agents.dirs: %w", err)
		}
		extra = append(extra, agents.Dir{Path: resolve(a.base, p), Source: "config"})
	}
	// The enabled installed plugins' agent files, then the application's.
	for _, p := range a.plugins {
		if !p.Enabled {
			continue
		}
		for _, f := range p.Parts.Agents {
			extra = append(extra, agents.Dir{Path: f, Source: "plugin:" + p.Name})
		}
	}
	extra = append(extra, a.opts.AgentDirs...)
	modelCfg, logger := a.cfg.Model, a.opts.Logger
	return kernel.AgentsConfig{
		Source:        agents.New(agents.Options{Port: port, UserDirs: userDirs, ExtraDirs: extra}),
		MaxConcurrent: c.MaxConcurrent,
		MaxDepth:      c.MaxDepth,
		Models:        c.Models,
		NewModel: func(name string) (model.Model, error) {
			mc := modelCfg
			mc.Name = name
			return openModel(mc, logger)
		},
	}, nil
}
