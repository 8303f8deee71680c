// Package bytesize renders byte counts the way limits are written in
// errors and docs: "32 MiB", "64 KiB", "1000 bytes". It is a leaf (it
// imports only strconv) and public, so the kernel's packages and the
// capabilities, the assembly and the CLI above them share one rendering.
package bytesize

import "strconv"

// Text renders n in MiB or KiB when it is a whole number of them, else in
// bytes.
func Text(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.Itoa(n>>20) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.Itoa(n>>10) + " KiB"
	}
	return strconv.Itoa(n) + " bytes"
}
