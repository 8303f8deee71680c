package host

import "syscall"

// sysProcAttr makes Linux kill the plugin the moment the kernel's process
// dies, even by SIGKILL, when nothing could run Close. plugins/sdk's parent
// watch does the same everywhere else, within a fraction of a second.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
