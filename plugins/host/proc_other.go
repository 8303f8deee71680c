//go:build !unix

package host

import "syscall"

// sysProcAttr: there are no process groups to start the plugin in here;
// a plugin outlives a SIGKILLed kernel only until plugins/sdk's parent
// watch notices.
func sysProcAttr() *syscall.SysProcAttr { return nil }

// killGroup: without process groups, only the plugin itself is stopped.
func killGroup(int) {}
