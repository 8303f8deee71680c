//go:build !unix

package skillinstall

import "context"

// lockDir does nothing where flock is missing: concurrent commands on one
// root are the user's to avoid there.
func lockDir(context.Context, string) (func(), error) { return func() {}, nil }

func syncDir(string) error { return nil }
