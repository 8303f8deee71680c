//go:build !unix

package workfs

const openNonblock = 0
