// Package host runs out-of-process capabilities (plugins) for the kernel:
// it launches a plugin binary with hashicorp/go-plugin and adapts it to
// kernel.Capability, so the kernel installs it like any other capability —
// in Config.Plugins, which puts its hook handlers after every builtin.
//
// Launching speaks gRPC only, with go-plugin's versioned handshake (magic
// cookie and plugins.ProtocolVersion) and AutoMTLS, and verifies the
// binary's SHA-256 first when one is configured. The plugin does not inherit
// the kernel's environment (API keys stay in the kernel): it gets PATH, HOME
// and a few locale variables, plus what Config.Env lists. Its stderr is
// re-logged through the kernel's slog logger with a "plugin" attribute.
//
// A hook payload crosses the wire in its point's one encoding
// (plugins/internal/wire): a standard point's in its protobuf message, from
// the kernel/hookdata value the kernel dispatched, a custom point's as
// JSON; the answer comes back as the point's result, and one the kernel
// cannot use is the handler's error. A plugin that mounts handlers but does
// not take the standard points' messages is refused at start.
//
// A crashed or hung plugin costs an error and a warning, never the kernel:
// every call has a deadline (CallTimeout); a hook handler that fails is skipped by the
// kernel's registry, which warns; a plugin that died is restarted on its
// next use, after a backoff that doubles with each consecutive failure;
// meanwhile its skills are listed as last seen and the catalog is marked
// incomplete rather than silently dropping them. Each plugin leads its own
// process group: Close, and the end of a crashed plugin before its restart,
// stop the plugin and then everything it started. On Linux a plugin also
// dies with the kernel's process, even when that is SIGKILLed.
package host
