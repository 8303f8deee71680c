package workfs

import "os"

// OpenRoot opens the directory at path as an [os.Root] confined to it. It is
// opened through the work dir's own root, so it cannot lie outside the work
// dir whatever its path's symlinks say; a reader of many files under one
// folder (a skills root) opens them through it with fewer checks than one
// [FS.Open] each. The caller closes it.
func (f *FS) OpenRoot(path string) (*os.Root, error) {
	t, err := f.check(path, true)
	if err != nil {
		return nil, f.opErr("openroot", path, err)
	}
	r, err := f.root.OpenRoot(t.real)
	if err != nil {
		return nil, f.opErr("openroot", path, err)
	}
	return r, nil
}
