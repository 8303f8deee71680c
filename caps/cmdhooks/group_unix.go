//go:build unix

package cmdhooks

import (
	"os"
	"os/exec"
	"syscall"
)

// setGroup makes the command the leader of a new process group, so that it
// and everything it starts can be killed together.
func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills the process group that p leads.
func killGroup(p *os.Process) {
	_ = syscall.Kill(-p.Pid, syscall.SIGKILL)
}

// signalOf names the signal that ended a process.
func signalOf(ps *os.ProcessState) string {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return ws.Signal().String()
	}
	return "unknown"
}
