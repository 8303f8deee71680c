package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/mcpserver"
)

func mcpCmd(g *globals) *cobra.Command {
	var addr, tokenEnv string
	c := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the live, merged skill catalog to any MCP client (stdio, or --http ADDR)",
		Long: "Serve the skill catalog over the Model Context Protocol: every file of every skill as a skill:// resource,\n" +
			"the Agent Skills extension (skills/list, skills/get), the skill and skill_resource tools, and one prompt\n" +
			"per skill. Each new complete catalog is announced with list_changed notifications.\n\n" +
			"By default the protocol runs on stdin/stdout (logs go to stderr). --http ADDR serves streamable HTTP\n" +
			"instead; an address that is not loopback is refused unless --token-env NAME names a variable holding\n" +
			"a bearer token, which every request must then carry.\n\n" +
			"The config's own MCP servers (mcp.servers) are not started: this command serves the local catalog (a\n" +
			"server that started its servers could start itself). `helios mcp list` shows those servers.",
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			token := ""
			if tokenEnv != "" {
				if token = os.Getenv(tokenEnv); token == "" {
					return usageError{fmt.Errorf("--token-env %s: the variable is unset or empty", tokenEnv)}
				}
			}
			if addr != "" {
				if err := mcpserver.CheckAddr(addr, token != ""); err != nil {
					return usageError{err}
				}
			} else if tokenEnv != "" {
				return usageError{errors.New("--token-env needs --http: stdio has no requests to check")}
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
				return serveHTTP(cmd.Context(), addr, srv.HTTPHandler(token), cmd)
			})
		},
	}
	c.AddCommand(mcpListCmd(g))
	c.Flags().StringVar(&addr, "http", "", "serve streamable HTTP on ADDR (host:port) instead of stdio")
	c.Flags().StringVar(&tokenEnv, "token-env", "", "the environment variable holding the bearer token HTTP requests must carry")
	return c
}

// serveHTTP serves h on addr until ctx ends, then shuts down.
func serveHTTP(ctx context.Context, addr string, h http.Handler, cmd *cobra.Command) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("mcp: %w", err)
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "helios mcp: serving streamable HTTP on http://%s\n", ln.Addr())
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("mcp: %w", err)
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := srv.Shutdown(shut); err != nil {
		srv.Close()
	}
	return nil
}

// version is the module version helios was built as ("dev" from a work tree).
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}
