//go:build unix

package commands

import (
	"os/exec"
	"syscall"
)

// kill ends cmd and every process of its group: a confined command leads
// a new session (see sandbox.Cmd), so its children go with it.
func kill(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	_ = cmd.Process.Kill()
}
