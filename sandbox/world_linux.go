package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"golang.org/x/sys/unix"
)

// devNames are the devices of the command's /dev, bound from the
// machine's: no terminal, no pts, no disk.
var devNames = []string{"null", "zero", "full", "random", "urandom"}

// devLinks are /dev's usual links into the command's own /proc (bash's
// process substitution opens /dev/fd/N).
var devLinks = map[string]string{"fd": "/proc/self/fd", "stdin": "/proc/self/fd/0", "stdout": "/proc/self/fd/1", "stderr": "/proc/self/fd/2"}

// ownWorld builds the command's world in the namespaces the parent made
// (user, mount, PID, IPC, and net with the network off), the way
// bubblewrap does. Every mount is already a slave: the kernel makes it so
// when it copies the mounts into a mount namespace of a new user namespace
// (nothing mounted here propagates back to the machine). Then the whole
// file system read-only but the writable paths (so
// chmod, chown, utime and xattrs fail outside them, root or not), a fresh
// /proc showing only the command's processes, and a /dev of devNames.
func ownWorld(p plan) error {
	wd, err := unix.Getwd()
	if err != nil {
		return fmt.Errorf("working directory: %w", err)
	}
	// Clones of the writable paths and devices, taken before the root
	// turns read-only, keep their own flags (a read-only mount inside a
	// writable path stays so).
	var binds []detached
	defer func() {
		for _, b := range binds {
			b.close()
		}
	}()
	writable := append(append([]string(nil), p.WritableDirs...), p.WritableFiles...)
	rootWritable := slices.Contains(writable, "/")
	for _, w := range writable {
		if w == "/" {
			continue
		}
		b, err := cloneTree(w)
		if err != nil {
			return fmt.Errorf("writable path %s: %w", w, err)
		}
		binds = append(binds, b)
	}
	var devs []detached
	defer func() {
		for _, d := range devs {
			d.close()
		}
	}()
	for _, name := range devNames {
		d, err := cloneTree("/dev/" + name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("/dev/%s: %w", name, err)
		}
		d.path = name
		devs = append(devs, d)
	}
	if !rootWritable {
		if err := unix.MountSetattr(unix.AT_FDCWD, "/", unix.AT_RECURSIVE, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}); err != nil {
			return fmt.Errorf("read-only root: mount_setattr: %w", err)
		}
	}
	for _, b := range binds {
		if err := unix.MoveMount(b.tree, "", b.at, "", unix.MOVE_MOUNT_F_EMPTY_PATH|unix.MOVE_MOUNT_T_EMPTY_PATH); err != nil {
			return fmt.Errorf("writable path %s: move_mount: %w", b.path, err)
		}
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC|unix.MS_RDONLY, ""); err != nil {
		return fmt.Errorf("mount a fresh /proc: %w", err)
	}
	if err := minimalDev(devs); err != nil {
		return err
	}
	// The working directory was entered before: enter it again, through
	// the mounts just made.
	if err := unix.Chdir(wd); err != nil {
		return fmt.Errorf("enter %s again: %w", wd, err)
	}
	return nil
}

// minimalDev mounts a tmpfs on /dev holding devs (clones of the
// machine's devices) and devLinks, then makes it read-only.
func minimalDev(devs []detached) error {
	if err := unix.Mount("tmpfs", "/dev", "tmpfs", unix.MS_NOSUID|unix.MS_NOEXEC, "mode=0755,size=64k"); err != nil {
		return fmt.Errorf("mount /dev: %w", err)
	}
	for _, d := range devs {
		target := filepath.Join("/dev", d.path)
		if d.dir {
			if err := os.Mkdir(target, 0o755); err != nil {
				return fmt.Errorf("/dev: %w", err)
			}
		} else if err := os.WriteFile(target, nil, 0o666); err != nil {
			return fmt.Errorf("/dev: %w", err)
		}
		if err := unix.MoveMount(d.tree, "", unix.AT_FDCWD, target, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
			return fmt.Errorf("/dev: move_mount %s: %w", target, err)
		}
	}
	for name, to := range devLinks {
		if err := os.Symlink(to, filepath.Join("/dev", name)); err != nil {
			return fmt.Errorf("/dev: %w", err)
		}
	}
	if err := unix.MountSetattr(unix.AT_FDCWD, "/dev", 0, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}); err != nil {
		return fmt.Errorf("read-only /dev: mount_setattr: %w", err)
	}
	return nil
}

// detached is a clone of a mount tree, not yet attached, and the path it
// came from (opened, so that it goes back exactly there).
type detached struct {
	path     string
	at, tree int
	dir      bool
}

func (d detached) close() {
	unix.Close(d.tree)
	unix.Close(d.at)
}

// cloneTree clones the mount tree at path (resolved by the parent).
func cloneTree(path string) (detached, error) {
	at, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return detached{}, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	var st unix.Stat_t
	if err := unix.Fstat(at, &st); err != nil {
		unix.Close(at)
		return detached{}, fmt.Errorf("stat: %w", err)
	}
	tree, err := unix.OpenTree(at, "", unix.AT_EMPTY_PATH|unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE)
	if err != nil {
		unix.Close(at)
		return detached{}, fmt.Errorf("open_tree: %w", err)
	}
	return detached{path: path, at: at, tree: tree, dir: st.Mode&unix.S_IFMT == unix.S_IFDIR}, nil
}
