// Command helios is the terminal face of the Helios kernel: it shows which
// skills the model would get and why others were left out, prints what a
// skill load returns, validates skills strictly, and shows hook order.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/helios-agents/helios/kernel/sandbox"
)

func main() {
	// First: in the child re-executed to run a model's command confined,
	// this confines the process and runs the command; never returns there.
	sandbox.Main()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
