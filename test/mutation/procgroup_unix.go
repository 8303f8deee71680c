//go:build unix

package main

import (
	"os/exec"
	"syscall"
)

// killGroupOnCancel runs cmd in its own process group and makes cancelling
// its context kill the whole group: go test's compilers and the test binary,
// which would otherwise outlive a killed go command.
func killGroupOnCancel(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
