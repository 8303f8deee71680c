// Command peakrss runs a command and prints its own peak RSS and the
// command's, in bytes: `peakrss OUT CMD ARG...` (the command's stdout goes to
// OUT). It exists because a child's peak RSS on Linux starts from the
// high-water mark of the process that started it (execve keeps it), so a
// large starter — a test binary built with -race — would be measured
// instead of the command. This program is small and imports only the
// standard library.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: peakrss OUT CMD [ARG...]")
		os.Exit(2)
	}
	out, err := os.Create(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer out.Close()
	var self syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &self); err != nil {
		fmt.Fprintln(os.Stderr, "getrusage:", err)
		os.Exit(1)
	}
	cmd := exec.Command(os.Args[2], os.Args[3:]...)
	cmd.Stdout, cmd.Stderr = out, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		fmt.Fprintln(os.Stderr, "no rusage on this platform")
		os.Exit(1)
	}
	fmt.Println(self.Maxrss*1024, ru.Maxrss*1024) // Linux reports KiB
}
