package workfs

import (
	"errors"
	"io/fs"
	"path/filepath"
	"syscall"
)

// MakeStateDirs creates the state folders (.helios, .agents) and their
// skills folders at the top of the work dir where they are missing, with
// 0o755 (before umask). Made before the model runs, they are protected from
// its first command on, as .git is: a folder the model made itself could
// otherwise hold a symlinked skills folder that redirects the installer.
// What already exists is left as it is, whatever it is (a file named
// .helios is protected by its name); a work dir the process cannot write
// (permission, read-only file system) is no error, as the model cannot
// write there either.
func (f *FS) MakeStateDirs() error {
	for _, d := range StateDirs {
		for _, p := range []string{d, filepath.Join(d, SkillsName)} {
			err := f.root.Mkdir(p, 0o755)
			switch {
			case err == nil, errors.Is(err, fs.ErrExist), errors.Is(err, syscall.ENOTDIR),
				errors.Is(err, fs.ErrPermission), errors.Is(err, syscall.EROFS):
			default:
				return f.opErr("mkdir", p, err)
			}
		}
	}
	return nil
}
