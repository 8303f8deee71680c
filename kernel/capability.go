package kernel

import (
	"context"

	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/hooks"
)

// Capability is something installed into the kernel. Its name is all it must
// have; it offers more by implementing the optional interfaces below, found
// by type assertion:
//
//   - Describer: a one-line description (from its EXTENSION.md) for the
//     <extensions> manifest; empty means "not listed".
//   - skills.Provider: skills, merged after user and project skills.
//   - ToolProvider: tools for the model.
//   - HookProvider: hook mounts. Their origin is set by the kernel from how
//     the capability was installed, never taken from the capability.
//   - io.Closer: released by Kernel.Close.
type Capability interface {
	Name() string
}

// Describer is a capability with a manifest line.
type Describer interface {
	Description() string
}

// ToolProvider is a capability with tools.
type ToolProvider interface {
	Tools(ctx context.Context) ([]contract.Tool, error)
}

// HookProvider is a capability with hook mounts.
type HookProvider interface {
	Mounts() []hooks.Mount
}

// NewCapability is the smallest in-process capability: a name and hook
// mounts, typically made with a typed point's Bind:
//
//	kernel.NewCapability("house-rules", kernel.ToolBefore.Bind("no-force-push", guard))
//
// It has no description, so it is not listed in <extensions>.
func NewCapability(name string, mounts ...hooks.Mount) Capability {
	return hookCapability{name, mounts}
}

type hookCapability struct {
	name   string
	mounts []hooks.Mount
}

func (c hookCapability) Name() string { return c.name }

func (c hookCapability) Mounts() []hooks.Mount { return c.mounts }
