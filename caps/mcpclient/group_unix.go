//go:build unix

package mcpclient

import "syscall"

// killGroup kills what is left of the process group a stdio server (pid)
// led. The group's id cannot be reused while one of its processes lives.
func killGroup(pid int) {
	if pid > 0 {
		syscall.Kill(-pid, syscall.SIGKILL)
	}
}

// termGroup asks the process group to stop.
func termGroup(pid int) {
	if pid > 0 {
		syscall.Kill(-pid, syscall.SIGTERM)
	}
}
