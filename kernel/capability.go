package kernel

import (
	"context"

	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/hooks"
	"github.com/helios-agents/helios/kernel/session"
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
//   - Injector: messages appended before each model request (project
//     instructions).
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

// Injector is a capability that appends messages on the user's side before
// each model request, ahead of the skills catalog: given the session's log,
// it returns the events to append (none when the model is up to date). It
// never rewrites what the log holds, so the cached prefix stays
// byte-identical. An error costs only its own messages, with a warning.
type Injector interface {
	Inject(ctx context.Context, log session.Log) ([]session.Event, error)
}

// NewCapability is the smallest in-process capability: a name and hook
// mounts, typically made with a typed point's Bind:
//
//	kernel.NewCapability("house-rules", hooks.ToolBefore.Bind("no-force-push", guard))
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
