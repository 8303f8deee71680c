//go:build !unix

package mcpclient

import (
	"os"
	"syscall"
)

// sysProcAttr: there are no process groups to start a server in here.
func sysProcAttr() *syscall.SysProcAttr { return nil }

// killGroup kills the server itself, without what it started.
func killGroup(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		p.Kill()
	}
}

// termGroup: there is no SIGTERM here; Close goes on to killGroup.
func termGroup(int) {}
