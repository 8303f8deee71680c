package mcpclient

import "syscall"

// sysProcAttr starts a stdio server as the leader of its own process group,
// so that stopping it ends whatever it started too (npx starts node, node
// its workers), and makes Linux kill it the moment the kernel's process
// dies, even by SIGKILL, when nothing could stop it.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
