package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/mcpserver"
)

func mcpCmd(g *globals) *cobra.Command {
	var addr, tokenEnv string
	var origins []string
	var sessionTimeout time.Duration
	var maxSessions int
	c := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the live, merged skill catalog to any MCP client (stdio, or --http ADDR)",
		Long: "Serve the skill catalog over the Model Context Protocol: every file of every skill as a skill:// resource,\n" +
			"the Agent Skills extension (skills/list, skills/get), the skill and skill_resource tools, and one prompt\n" +
			"per skill. Each new complete catalog is announced with list_changed notifications.\n\n" +
			"By default the protocol runs on stdin/stdout (logs go to stderr). --http ADDR serves streamable HTTP\n" +
			"instead; an address that is not loopback is refused unless --token-env NAME names a variable holding\n" +
			"a bearer token of at least 32 bytes, which every request must then carry. A request from a browser page\n" +
			"is served only from a loopback origin or one given with --allow-origin. A session with no request in\n" +
			"flight for --session-timeout is closed, and past --max-sessions the one idle longest is.\n\n" +
			"The config's own MCP servers (mcp.servers) are not started: this command serves the local catalog (a\n" +
			"server that started its servers could start itself). `helios mcp list` shows those servers.",
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			token := ""
			if tokenEnv != "" {
				if token = os.Getenv(tokenEnv); token == "" {
					return usageError{fmt.Errorf("--token-env %s: the variable is unset or empty", tokenEnv)}
				}
				g.secrets.Add(token)
			}
			if addr != "" {
				if err := mcpserver.CheckAddr(addr, token); err != nil {
					return usageError{fmt.Errorf("%w%s", err, tokenSource(tokenEnv))}
				}
				if maxSessions < 1 {
					return usageError{fmt.Errorf("--max-sessions %d: at least 1", maxSessions)}
				}
				if sessionTimeout < 0 {
					return usageError{fmt.Errorf("--session-timeout %s: 0 (never) or more", sessionTimeout)}
				}
			} else if c := httpOnlyFlag(cmd); c != "" {
				return usageError{fmt.Errorf("--%s needs --http: stdio has no requests to check", c)}
			}
			g.watch, g.noMCP = true, true
			g.logger = stderrLogger(cmd.ErrOrStderr())
			return g.withKernel(cmd, func(k *kernel.Kernel) error {
				srv, err := mcpserver.New(mcpserver.Config{Kernel: k, Version: version(), Logger: g.logger})
				if err != nil {
					return err
				}
				defer srv.Close()
				if addr == "" {
					err := srv.Run(cmd.Context(), mcpserver.NewStdioTransport(cmd.InOrStdin(), cmd.OutOrStdout()))
					if cmd.Context().Err() != nil || errors.Is(err, mcp.ErrConnectionClosed) {
						return nil // SIGINT, SIGTERM or stdin closed: a clean exit
					}
					return err
				}
				if sessionTimeout == 0 {
					sessionTimeout = -1 // never
				}
				hs := srv.HTTPServer(mcpserver.HTTPConfig{Token: token, AllowedOrigins: origins, SessionTimeout: sessionTimeout, MaxSessions: maxSessions})
				return serveHTTP(cmd.Context(), addr, hs, cmd)
			})
		},
	}
	c.AddCommand(mcpListCmd(g))
	c.Flags().StringVar(&addr, "http", "", "serve streamable HTTP on ADDR (host:port) instead of stdio")
	c.Flags().StringVar(&tokenEnv, "token-env", "", "the environment variable holding the bearer token HTTP requests must carry (at least 32 bytes beyond loopback)")
	c.Flags().StringArrayVar(&origins, "allow-origin", nil, "a browser origin (https://app.example.com) served besides loopback ones; repeatable")
	c.Flags().DurationVar(&sessionTimeout, "session-timeout", mcpserver.DefaultSessionTimeout, "close an HTTP session with no request in flight for this long (0: never)")
	c.Flags().IntVar(&maxSessions, "max-sessions", mcpserver.DefaultMaxSessions, "the most HTTP sessions kept; past it the one idle longest is closed")
	return c
}

// httpOnlyFlag names a flag given that only --http uses, or "".
func httpOnlyFlag(cmd *cobra.Command) string {
	for _, f := range []string{"token-env", "allow-origin", "session-timeout", "max-sessions"} {
		if cmd.Flags().Changed(f) {
			return f
		}
	}
	return ""
}

// tokenSource says where a refused token came from.
func tokenSource(env string) string {
	if env == "" {
		return ""
	}
	return " (the token is the value of " + env + ")"
}

// serveHTTP serves hs on addr until ctx ends, then shuts down.
func serveHTTP(ctx context.Context, addr string, hs *http.Server, cmd *cobra.Command) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("serve MCP over HTTP: %w", err)
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "helios mcp: serving streamable HTTP on http://%s\n", ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve MCP over HTTP: %w", err)
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := hs.Shutdown(shut); err != nil {
		hs.Close()
	}
	return nil
}
