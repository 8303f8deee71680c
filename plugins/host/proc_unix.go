//go:build unix && !linux

package host

import "syscall"

// sysProcAttr starts the plugin as the leader of its own process group, so
// that killGroup ends whatever it started too. Without Linux's
// parent-death signal, a plugin outlives a SIGKILLed kernel only until
// plugins/sdk's parent watch notices.
func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
