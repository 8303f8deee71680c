//go:build !linux

package skillinstall

// exchange swaps the folders a and b. Without an atomic exchange a reader of
// b may find it missing for a moment, never half-written.
func exchange(a, b string) error { return exchangeByRenames(a, b) }

// renameNew renames from to to, failing when to exists.
func renameNew(from, to string) error { return renameNewByStat(from, to) }
