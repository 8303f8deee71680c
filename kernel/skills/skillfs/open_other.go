//go:build !unix

package skillfs

const openNonblock = 0
