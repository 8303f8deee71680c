package kernel

import (
	"context"
	"fmt"
	"strings"

	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/frontmatter"
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

// ExtensionDoc is the parsed EXTENSION.md of a capability.
type ExtensionDoc struct {
	Name        string
	Description string
	Body        string
}

// ParseExtensionDoc reads an EXTENSION.md. It uses the same frontmatter parser
// as SKILL.md, so both files follow one set of rules.
func ParseExtensionDoc(file string, data []byte) (ExtensionDoc, error) {
	doc, err := frontmatter.Parse(file, data)
	if err != nil {
		return ExtensionDoc{}, fmt.Errorf("extension doc: %w", err)
	}
	var d ExtensionDoc
	d.Name, _ = doc.Scalar("name")
	d.Description, _ = doc.Scalar("description")
	d.Name = strings.TrimSpace(d.Name)
	d.Description = strings.Join(strings.Fields(d.Description), " ")
	d.Body = doc.Body
	return d, nil
}
