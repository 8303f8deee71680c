package sdk

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/helios-agents/helios/plugins"
	"github.com/helios-agents/helios/plugins/internal/wire"
)

// parentPoll is how often a plugin checks that the kernel that started it
// is still there.
const parentPoll = 200 * time.Millisecond

// Serve serves p until the kernel stops the plugin or goes away, then
// returns. A plugin that cannot start (an EXTENSION.md that does not parse,
// two hooks with one name) prints why on stderr, which the kernel shows in
// its error, and exits with status 1; so does a plugin run by hand, outside
// a kernel.
func Serve(p Plugin, cfg Config) {
	// Bound now, to the real stderr: go-plugin replaces os.Stderr with its
	// stdio stream once serving.
	stderr := os.Stderr
	if cfg.Logger == nil {
		cfg.Logger = newLogger(stderr)
	}
	if os.Getenv(plugins.Handshake.MagicCookieKey) != plugins.Handshake.MagicCookieValue {
		fmt.Fprintln(stderr, "This program is a Helios plugin: list it under \"plugins\" in helios.config.json, and the kernel starts it.")
		os.Exit(1)
	}
	s, err := New(p, cfg)
	if err != nil {
		fmt.Fprintln(stderr, err)
		os.Exit(1)
	}
	defer s.Close()
	tel, err := startTelemetry(s.doc.Name, stderr, cfg.Logger)
	if err != nil {
		// Tracing is the kernel's wish, not the plugin's reason to exist:
		// serve without it, saying why.
		cfg.Logger.Warn("telemetry not started", slog.Any("error", err))
	}
	defer tel.Close()
	serverOpts := wire.ServerOptions()
	if tel != nil {
		serverOpts = append(serverOpts, wire.TraceServerOption(tel.TracerProvider, s.doc.Name))
	}

	stop := make(chan struct{})
	defer close(stop)
	go watchParent(os.Getppid(), parentPoll, os.Getppid, stop, func() {
		cfg.Logger.Warn("the kernel that started this plugin is gone; exiting")
		s.Close()
		tel.Close()
		os.Exit(0)
	})

	cfg.Logger.Debug("serving", slog.String("dir", s.Dir()), slog.Int("mounts", len(s.mounts)), slog.Int("tools", len(s.list)))
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: plugins.Handshake,
		Plugins:         wire.PluginMap(s),
		GRPCServer: func(opts []grpc.ServerOption) *grpc.Server {
			return grpc.NewServer(append(opts, serverOpts...)...)
		},
		Logger: hclog.New(&hclog.LoggerOptions{Output: stderr, Level: hclog.Info, JSONFormat: true}),
	})
}

// watchParent calls died once the parent process is no longer ppid (the
// plugin was re-parented: the kernel is gone, perhaps SIGKILLed with no
// chance to stop its plugins), checking every interval until stop closes.
// A plugin whose parent is already init (pid 1) has nothing to watch.
func watchParent(ppid int, every time.Duration, getppid func() int, stop <-chan struct{}, died func()) {
	if ppid <= 1 {
		return
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			if getppid() != ppid {
				died()
				return
			}
		}
	}
}

// Logger returns a logger whose records reach the kernel's log under the
// plugin's name: JSON lines on stderr in the format go-plugin's hosts read
// (@level, @message, @timestamp).
func Logger() *slog.Logger { return newLogger(os.Stderr) }

func newLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{
		Level: slog.LevelDebug,
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) > 0 {
				return a
			}
			switch a.Key {
			case slog.TimeKey:
				return slog.String("@timestamp", a.Value.Time().Format("2006-01-02T15:04:05.000000Z07:00"))
			case slog.LevelKey:
				return slog.String("@level", strings.ToLower(a.Value.String()))
			case slog.MessageKey:
				return slog.String("@message", a.Value.String())
			}
			return a
		},
	}))
}
