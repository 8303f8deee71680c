//go:build unix

package skillfs

import "syscall"

// openNonblock keeps an open of a FIFO or a device from blocking.
const openNonblock = syscall.O_NONBLOCK
