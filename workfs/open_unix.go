//go:build unix

package workfs

import "syscall"

const openNonblock = syscall.O_NONBLOCK
