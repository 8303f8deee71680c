//go:build unix

package host

import "syscall"

// killGroup ends the processes left in the process group the plugin
// (pid) led: its children and theirs, which outlive it otherwise. It is
// called once the plugin itself has exited, so a plugin still gets its
// graceful stop; the group's id cannot be reused while one of them lives.
func killGroup(pid int) {
	if pid > 0 {
		syscall.Kill(-pid, syscall.SIGKILL)
	}
}
