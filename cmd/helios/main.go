// Command helios is the terminal face of the Helios kernel: it shows which
// skills the model would get and why others were left out, prints what a
// skill load returns, validates skills strictly, and shows hook order.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
