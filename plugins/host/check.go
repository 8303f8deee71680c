package host

import (
	"context"
	"fmt"
	"time"

	"github.com/helios-agents/helios/kernel/hooks"
	"github.com/helios-agents/helios/plugins"
)

// Report is what Check found out about one plugin.
type Report struct {
	// Name is the plugin's configured name.
	Name string
	// Command is the executable started.
	Command string
	// SHA256 is the executable's hex SHA-256, empty when it is unreadable.
	SHA256 string
	// Pinned says the config pins a SHA-256; with a nil Err it matched.
	Pinned bool
	// ProtocolVersion is the plugin protocol version agreed on.
	ProtocolVersion int
	// Handshake and Started are as in Status.
	Handshake, Started time.Duration
	// Description is what the plugin said about itself.
	Description plugins.Description
	// Err is why the plugin cannot be used; nil when it can.
	Err error
}

// Check starts the plugin as the kernel would, asks it to describe itself,
// checks that the kernel knows every point it mounts on, and stops it.
func Check(ctx context.Context, cfg Config) Report {
	r := Report{Name: cfg.Name, Command: cfg.Command, Pinned: cfg.SHA256 != ""}
	sum, err := fileSHA256(cfg.Command)
	if err != nil {
		r.Err = fmt.Errorf("plugin %q: %w", cfg.Name, err)
		return r
	}
	r.SHA256 = sum
	c, err := Launch(ctx, cfg)
	if err != nil {
		r.Err = err
		return r
	}
	defer c.Close()
	st := c.Status()
	r.ProtocolVersion = plugins.ProtocolVersion
	r.Handshake, r.Started, r.Description = st.Handshake, st.Started, st.Description
	for _, m := range r.Description.Mounts {
		if !standard(m.Point) {
			r.Err = fmt.Errorf("plugin %q: mounts a handler on %q, which is not a mount point of the kernel", cfg.Name, m.Point)
			break
		}
	}
	return r
}

func standard(point string) bool {
	for _, p := range hooks.StandardPoints() {
		if p.Name == point {
			return true
		}
	}
	return false
}
