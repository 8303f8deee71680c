package host

import "syscall"

// sysProcAttr starts the plugin as the leader of its own process group, so
// that killGroup ends whatever it started too, and makes Linux kill the
// plugin the moment the kernel's process dies, even by SIGKILL, when
// nothing could run Close. plugins/sdk's parent watch does the same
// everywhere else, within a fraction of a second.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
