//go:build !linux

package host

import "syscall"

// sysProcAttr: without Linux's parent-death signal, a plugin outlives a
// SIGKILLed kernel only until plugins/sdk's parent watch notices.
func sysProcAttr() *syscall.SysProcAttr { return nil }
