//go:build unix && !linux

package mcpclient

import "syscall"

// sysProcAttr starts a stdio server as the leader of its own process group,
// so that stopping it ends whatever it started too. Without Linux's
// parent-death signal, a server outlives a SIGKILLed kernel until it reads
// the end of its stdin.
func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
