// Package gittest makes real git repositories for tests, written with
// go-git object by object (so a test can also write what a careful client
// never would: a tree entry named "..", a symlink out), and serves them over
// smart HTTP (package gitserver). Only tests import it.
package gittest

import (
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/internal/gitserver"
)

// File is one entry of a commit.
type File struct {
	// Content is the file's bytes, or a symlink's target.
	Content string
	// Exec sets the run bits (git mode 100755).
	Exec bool
	// Link makes the entry a symlink to Content.
	Link bool
}

// Text is a regular file.
func Text(s string) File { return File{Content: s} }

// Script is an executable file.
func Script(s string) File { return File{Content: s, Exec: true} }

// Link is a symlink to target.
func Link(target string) File { return File{Content: target, Link: true} }

// Repo is a bare repository in a temp dir whose HEAD names refs/heads/main.
type Repo struct {
	// Dir is the repository's folder (bare: no work tree).
	Dir  string
	t    testing.TB
	repo *git.Repository
	when time.Time
}

// New creates a bare repository named name (a folder under a temp dir, so
// a Server over that temp dir serves it at /name).
func New(t testing.TB, name string) *Repo {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	r, err := git.PlainInitWithOptions(dir, &git.PlainInitOptions{
		Bare:        true,
		InitOptions: git.InitOptions{DefaultBranch: plumbing.NewBranchReferenceName("main")},
	})
	require.NoError(t, err, "init %s", dir)
	return &Repo{Dir: dir, t: t, repo: r, when: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)}
}

// URL is the repository's file:// URL.
func (r *Repo) URL() string { return "file://" + filepath.ToSlash(r.Dir) }

// Commit records files (slash paths; the whole tree of the new commit) on
// top of main and moves main to it. It returns the commit's hash.
func (r *Repo) Commit(files map[string]File) string {
	return r.CommitOn("main", files)
}

// CommitOn is Commit on another branch (created from nothing if new).
func (r *Repo) CommitOn(branch string, files map[string]File) string {
	r.t.Helper()
	tree := r.writeTree(files)
	name := plumbing.NewBranchReferenceName(branch)
	var parents []plumbing.Hash
	if ref, err := r.repo.Reference(name, true); err == nil {
		parents = append(parents, ref.Hash())
	}
	r.when = r.when.Add(time.Minute)
	sig := object.Signature{Name: "Test", Email: "test@example.com", When: r.when}
	c := &object.Commit{Author: sig, Committer: sig, Message: "commit\n", TreeHash: tree, ParentHashes: parents}
	h := r.store(c)
	require.NoError(r.t, r.repo.Storer.SetReference(plumbing.NewHashReference(name, h)))
	return h.String()
}

// SetBranch points branch at commit (a force push when it moves back).
func (r *Repo) SetBranch(branch, commit string) {
	r.t.Helper()
	require.NoError(r.t, r.repo.Storer.SetReference(
		plumbing.NewHashReference(plumbing.NewBranchReferenceName(branch), plumbing.NewHash(commit))))
}

// Tag makes an annotated tag of commit.
func (r *Repo) Tag(name, commit string) {
	r.t.Helper()
	_, err := r.repo.CreateTag(name, plumbing.NewHash(commit), &git.CreateTagOptions{
		Tagger:  &object.Signature{Name: "Test", Email: "test@example.com", When: r.when},
		Message: "tag " + name,
	})
	require.NoError(r.t, err)
}

type encodable interface {
	Encode(plumbing.EncodedObject) error
}

func (r *Repo) store(o encodable) plumbing.Hash {
	r.t.Helper()
	obj := r.repo.Storer.NewEncodedObject()
	require.NoError(r.t, o.Encode(obj))
	h, err := r.repo.Storer.SetEncodedObject(obj)
	require.NoError(r.t, err)
	return h
}

func (r *Repo) blob(data string) plumbing.Hash {
	r.t.Helper()
	obj := r.repo.Storer.NewEncodedObject()
	obj.SetType(plumbing.BlobObject)
	w, err := obj.Writer()
	require.NoError(r.t, err)
	_, err = w.Write([]byte(data))
	require.NoError(r.t, err)
	require.NoError(r.t, w.Close())
	h, err := r.repo.Storer.SetEncodedObject(obj)
	require.NoError(r.t, err)
	return h
}

// node is a folder being built.
type node struct {
	files map[string]File
	dirs  map[string]*node
}

// writeTree stores the trees for files and returns the root tree's hash.
// Path segments are taken as they are: "../x" makes an entry named "..".
func (r *Repo) writeTree(files map[string]File) plumbing.Hash {
	root := &node{files: map[string]File{}, dirs: map[string]*node{}}
	for p, f := range files {
		segs := strings.Split(p, "/")
		n := root
		for _, s := range segs[:len(segs)-1] {
			if n.dirs[s] == nil {
				n.dirs[s] = &node{files: map[string]File{}, dirs: map[string]*node{}}
			}
			n = n.dirs[s]
		}
		n.files[segs[len(segs)-1]] = f
	}
	return r.writeNode(root)
}

func (r *Repo) writeNode(n *node) plumbing.Hash {
	var entries []object.TreeEntry
	for name, f := range n.files {
		mode := filemode.Regular
		switch {
		case f.Link:
			mode = filemode.Symlink
		case f.Exec:
			mode = filemode.Executable
		}
		entries = append(entries, object.TreeEntry{Name: name, Mode: mode, Hash: r.blob(f.Content)})
	}
	for name, d := range n.dirs {
		entries = append(entries, object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: r.writeNode(d)})
	}
	// git's order: by name, a folder's name compared as if it ended in "/".
	key := func(e object.TreeEntry) string {
		if e.Mode == filemode.Dir {
			return e.Name + "/"
		}
		return e.Name
	}
	sort.Slice(entries, func(i, j int) bool { return key(entries[i]) < key(entries[j]) })
	return r.store(&object.Tree{Entries: entries})
}

// ServeRepo serves r alone over smart HTTP (see gitserver.Serve) and
// returns its URL.
func ServeRepo(t testing.TB, r *Repo) string {
	t.Helper()
	s := gitserver.Serve(t, filepath.Dir(r.Dir), "", "")
	return s.URL + "/" + filepath.Base(r.Dir)
}
