package agents

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/workfs"
)

// DefaultProjectDirs are the project's folders, relative to the work dir, in
// order: Helios's own, then Claude Code's.
var DefaultProjectDirs = []string{".helios/agents", ".claude/agents"}

// maxFileSize bounds an agent file; a larger one is skipped with a warning.
const maxFileSize = 1 << 20

// maxDepth bounds how deep below a folder agent files are looked for.
const maxDepth = 3

// Dir is one more folder of agent files, or one agent file, with the source
// its agents report ("plugin:<name>").
type Dir struct {
	Path   string
	Source string
}

// Options configures a Source. The zero value reads nothing.
type Options struct {
	// Port reads the project's folders, refusing what escapes the work
	// dir. Nil: no project agents.
	Port *workfs.FS
	// ProjectDirs are read through Port, relative to the work dir; nil
	// means DefaultProjectDirs.
	ProjectDirs []string
	// UserDirs are read with the OS, after the project's; nil means none
	// (DefaultUserDirs gives ~/.helios/agents and ~/.claude/agents).
	UserDirs []string
	// ExtraDirs are read last, in order: installed plugins' agents
	// folders, for example.
	ExtraDirs []Dir
}

// DefaultUserDirs returns ~/.helios/agents then ~/.claude/agents.
func DefaultUserDirs() ([]string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return nil, fmt.Errorf("user agent folders: %w", err)
	}
	return []string{filepath.Join(home, ".helios", "agents"), filepath.Join(home, ".claude", "agents")}, nil
}

// Source reads the definitions at every call. A file whose size and
// modification time did not change since the last call is not read again.
type Source struct {
	opts Options

	mu    sync.Mutex
	cache map[string]parsed // by path
}

// parsed is one file's outcome, with the stat it was read at.
type parsed struct {
	size  int64
	mtime time.Time
	def   kernel.AgentDef
	warns []contract.Warning
	err   error
}

var _ kernel.AgentSource = (*Source)(nil)

// New returns a Source over opts.
func New(opts Options) *Source {
	if opts.ProjectDirs == nil {
		opts.ProjectDirs = DefaultProjectDirs
	}
	return &Source{opts: opts}
}

// Dirs lists the folders read, in order, as absolute paths.
func (s *Source) Dirs() []string {
	var out []string
	if s.opts.Port != nil {
		for _, d := range s.opts.ProjectDirs {
			out = append(out, s.projectPath(d))
		}
	}
	out = append(out, s.opts.UserDirs...)
	for _, d := range s.opts.ExtraDirs {
		out = append(out, d.Path)
	}
	return out
}

func (s *Source) projectPath(d string) string {
	if filepath.IsAbs(d) {
		return d
	}
	return filepath.Join(s.opts.Port.Dir(), d)
}

// Agents reads every folder: project first, then the user's, then the extra
// ones; within a folder by path. The first agent of a name wins, and each
// later one is a warning naming both files.
func (s *Source) Agents(ctx context.Context) ([]kernel.AgentDef, []contract.Warning) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := reader{byName: map[string]string{}, old: s.cache, cache: map[string]parsed{}}
	defer func() { s.cache = r.cache }()
	if s.opts.Port != nil {
		for _, d := range s.opts.ProjectDirs {
			r.dir(ctx, portFS{s.opts.Port}, s.projectPath(d), "project", 0)
		}
	}
	for _, d := range s.opts.UserDirs {
		r.dir(ctx, osFS{}, d, "user", 0)
	}
	for _, d := range s.opts.ExtraDirs {
		if fi, err := os.Stat(d.Path); err == nil && fi.Mode().IsRegular() {
			r.file(osFS{}, d.Path, d.Source, fi) // a plugin names its agent files one by one
			continue
		}
		r.dir(ctx, osFS{}, d.Path, d.Source, 0)
	}
	return r.defs, r.warns
}

// dirFS is what reading a folder of agents needs: the work-dir port for the
// project's, the OS for the others.
type dirFS interface {
	ReadDir(path string) ([]fs.DirEntry, error)
	Stat(path string) (fs.FileInfo, error)
	ReadFile(path string) ([]byte, error)
}

type portFS struct{ *workfs.FS }

type osFS struct{}

func (osFS) ReadDir(p string) ([]fs.DirEntry, error) { return os.ReadDir(p) }
func (osFS) Stat(p string) (fs.FileInfo, error)      { return os.Stat(p) }
func (osFS) ReadFile(p string) ([]byte, error)       { return os.ReadFile(p) }

type reader struct {
	// old is the last call's outcomes, cache this call's.
	old, cache map[string]parsed
	defs       []kernel.AgentDef
	warns      []contract.Warning
	byName     map[string]string // name → the file that defined it
}

func (r *reader) warn(source, path, format string, args ...any) {
	r.warns = append(r.warns, contract.Warning{Source: source, Path: path, Message: fmt.Sprintf(format, args...)})
}

func (r *reader) dir(ctx context.Context, fsys dirFS, dir, source string, depth int) {
	if ctx.Err() != nil {
		return
	}
	entries, err := fsys.ReadDir(dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) || depth > 0 {
			r.warn(source, dir, "agents folder unreadable: %v", err)
		}
		return
	}
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		fi, err := fsys.Stat(path)
		if err != nil {
			r.warn(source, path, "skipped: %v", err)
			continue
		}
		switch {
		case fi.IsDir():
			if depth+1 < maxDepth && e.Name()[0] != '.' {
				r.dir(ctx, fsys, path, source, depth+1)
			}
		case !isAgentFile(e.Name()):
		case !fi.Mode().IsRegular():
			r.warn(source, path, "skipped: not a regular file")
		case fi.Size() > maxFileSize:
			r.warn(source, path, "skipped: %d bytes, over the limit of %d", fi.Size(), maxFileSize)
		default:
			r.file(fsys, path, source, fi)
		}
	}
}

func (r *reader) file(fsys dirFS, path, source string, fi fs.FileInfo) {
	p, ok := r.old[path]
	if !ok || p.size != fi.Size() || !p.mtime.Equal(fi.ModTime()) || p.def.Source != source {
		data, err := fsys.ReadFile(path)
		if err != nil {
			r.warn(source, path, "skipped: %v", err)
			return
		}
		p = parsed{size: fi.Size(), mtime: fi.ModTime()}
		p.def, p.warns, p.err = Parse(path, source, data)
	}
	r.cache[path] = p
	def, warns, err := p.def, p.warns, p.err
	if err != nil {
		// The warning names the file already.
		r.warn(source, path, "%s", strings.Replace(err.Error(), path+": ", "", 1))
		return
	}
	if first, dup := r.byName[def.Name]; dup {
		r.warn(source, path, "name: agent %q is already defined by %s; keeping that one and skipping this one", def.Name, first)
		return
	}
	r.byName[def.Name] = path
	r.defs = append(r.defs, def)
	r.warns = append(r.warns, warns...)
}
