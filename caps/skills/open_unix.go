//go:build unix

package skills

import "syscall"

const openNonblock = syscall.O_NONBLOCK
