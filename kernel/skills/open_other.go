//go:build !unix

package skills

const openNonblock = 0
