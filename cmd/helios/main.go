// Command helios is the terminal face of the Helios kernel: it shows which
// skills the model would get and why others were left out, prints what a
// skill load returns, validates skills strictly, and shows hook order.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/helios-agents/helios/sandbox"
)

func main() {
	// First: in the child re-executed to run a model's command confined,
	// this confines the process and runs the command; never returns there.
	sandbox.Main()
	// A write to a closed stdout then fails with EPIPE instead of killing
	// the process, so that run stops cleanly (the kernel closes its plugins
	// and their children) and exits 141. Notify rather than Ignore: an
	// ignored signal would stay ignored in every command the kernel starts.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
