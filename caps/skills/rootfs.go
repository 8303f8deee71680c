package skills

import (
	"github.com/helios-agents/helios/kernel/skills/skillfs"
	"github.com/helios-agents/helios/workfs"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// rootFS is the guarded port with a faster way to open files under the
// skills roots: each root is opened as an os.Root through the port (so it is
// inside the work dir) at every listing of it — the start of every full
// scan — and a file under it is opened through that root, which confines it
// to the skills root: one openat per path element instead of the port's full
// walk of the path from the work dir. Anything the root refuses (a symlink
// leading out of the skills root, perhaps still inside the work dir) or
// cannot serve goes to the port, whose rules decide.
type rootFS struct {
	*workfs.FS

	mu    sync.Mutex
	roots map[string]*os.Root // by absolute skills root; nil until listed
}

var _ skillfs.FS = (*rootFS)(nil)

func newRootFS(port *workfs.FS) *rootFS {
	return &rootFS{FS: port, roots: map[string]*os.Root{}}
}

// ReadDir lists through the port; listing a skills root also reopens its
// os.Root, so the files of this scan are read from the folder just listed.
func (r *rootFS) ReadDir(name string) ([]fs.DirEntry, error) {
	entries, err := r.FS.ReadDir(name)
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, isRoot := r.roots[name]; isRoot {
		if prev := r.roots[name]; prev != nil {
			// A load still holding it gets os.ErrClosed and goes to the port.
			prev.Close()
			r.roots[name] = nil
		}
		if err == nil {
			if sub, err := r.FS.OpenRoot(name); err == nil {
				r.roots[name] = sub
			}
		}
	}
	return entries, err
}

// Open opens through the os.Root of the skills root the file is under, or
// through the port: after any error of the root (a symlink out of it, a file
// missing from a folder replaced since it was listed, a root closed by a
// newer listing) the port decides, so the answer is always the port's.
func (r *rootFS) Open(name string) (fs.File, error) {
	if sub, rel := r.rootOf(name); sub != nil {
		if f, err := sub.OpenFile(rel, os.O_RDONLY|openNonblock, 0); err == nil {
			return f, nil
		}
	}
	return r.FS.Open(name)
}

func (r *rootFS) rootOf(name string) (*os.Root, string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for dir, sub := range r.roots {
		if sub == nil {
			continue
		}
		if rel, ok := strings.CutPrefix(name, dir+string(filepath.Separator)); ok && rel != "" {
			return sub, rel
		}
	}
	return nil, ""
}

// watch declares the skills roots whose files go through an os.Root.
func (r *rootFS) watch(roots []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, root := range roots {
		r.roots[root] = nil
	}
}

// Close closes the os.Roots, then the port.
func (r *rootFS) Close() error {
	r.mu.Lock()
	for _, sub := range r.roots {
		if sub != nil {
			sub.Close()
		}
	}
	r.roots = nil
	r.mu.Unlock()
	return r.FS.Close()
}
