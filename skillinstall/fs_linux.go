package skillinstall

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// exchange swaps the folders a and b in one rename, so a reader of b sees
// the old folder or the new one and never a moment without either.
func exchange(a, b string) error {
	err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
	if unsupported(err) {
		return exchangeByRenames(a, b)
	}
	if err != nil {
		return &os.LinkError{Op: "exchange", Old: a, New: b, Err: err}
	}
	return nil
}

// renameNew renames from to to, failing when to exists.
func renameNew(from, to string) error {
	err := unix.Renameat2(unix.AT_FDCWD, from, unix.AT_FDCWD, to, unix.RENAME_NOREPLACE)
	if unsupported(err) {
		return renameNewByStat(from, to)
	}
	if err != nil {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
	}
	return nil
}

// unsupported reports a file system (or kernel) without renameat2's flags.
func unsupported(err error) bool {
	return errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EOPNOTSUPP)
}
