package skillinstall

import (
	"fmt"
	"os"
)

// exchangeByRenames swaps a and b in three renames: b is missing between
// the first two.
func exchangeByRenames(a, b string) error {
	tmp := a + ".old"
	if err := os.Rename(b, tmp); err != nil {
		return err
	}
	if err := os.Rename(a, b); err != nil {
		return errorsJoin(err, os.Rename(tmp, b))
	}
	return os.Rename(tmp, a)
}

// renameNewByStat renames from to to unless to exists (a race with another
// writer remains; the installers of one root exclude each other by lockDir).
func renameNewByStat(from, to string) error {
	if _, err := os.Lstat(to); err == nil {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: os.ErrExist}
	}
	return os.Rename(from, to)
}

func errorsJoin(err, undo error) error {
	if undo != nil {
		return fmt.Errorf("%w (and undoing it: %v)", err, undo)
	}
	return err
}
