//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package session

import "os"

// lockFile does nothing here: without flock, keeping one process per
// session is up to the caller.
func lockFile(*os.File) error { return nil }
