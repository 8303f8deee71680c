package skillinstall

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/kernel/skills/skillfs"
)

// maxDepth bounds how deep a repository's folders are searched for skills
// and how deep a skill's own folders may go.
const maxDepth = 32

// maxLink bounds a symlink's target, and maxHops the symlinks followed
// while resolving one (Linux's own limit is 40).
const (
	maxLink = 4096
	maxHops = 40
)

// found is a skill folder of a commit.
type found struct {
	name string // the frontmatter name (the folder's when it has none)
	desc string // the frontmatter description
	path string // the folder's slash path in the repository; "." for the root
	tree *object.Tree
}

// discover finds the skill folders of c under the slash path sub ("" for
// the whole tree): every folder holding a SKILL.md (or a skill.md), at any
// depth. A SKILL.md that cannot be used (no frontmatter,
// no description, a name that cannot be a folder) is left out with a
// warning; so is a second skill of the same name (the shallowest, then the
// first by path, is kept).
func discover(c *checkout, sub string) ([]found, []string, error) {
	root, err := c.commit.Tree()
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", c.at(), err)
	}
	top := "."
	if sub != "" {
		if root, err = root.Tree(sub); err != nil {
			return nil, nil, fmt.Errorf("no folder %s in %s", sub, c.at())
		}
		top = sub
	}
	var out []found
	var warns []string
	var walk func(t *object.Tree, dir string, depth int) error
	walk = func(t *object.Tree, dir string, depth int) error {
		if f, ok, warn := skillIn(c, t, dir); ok {
			out = append(out, f)
		} else if warn != "" {
			warns = append(warns, warn)
		}
		if depth == maxDepth {
			return nil
		}
		for _, e := range t.Entries {
			if e.Mode != filemode.Dir {
				continue
			}
			sub, err := c.repo.TreeObject(e.Hash)
			if err != nil {
				return fmt.Errorf("read %s of %s: %w", join(dir, e.Name), c.at(), err)
			}
			if err := walk(sub, join(dir, e.Name), depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(root, top, 0); err != nil {
		return nil, nil, err
	}
	slices.SortStableFunc(out, func(a, b found) int {
		if d := depth(a.path) - depth(b.path); d != 0 {
			return d
		}
		return strings.Compare(a.path, b.path)
	})
	seen := map[string]string{}
	kept := out[:0]
	for _, f := range out {
		if first, dup := seen[f.name]; dup {
			warns = append(warns, fmt.Sprintf("%s: skill %q left out: %s holds a skill of the same name", join(f.path, "SKILL.md"), f.name, first))
			continue
		}
		seen[f.name] = f.path
		kept = append(kept, f)
	}
	slices.SortFunc(kept, func(a, b found) int { return strings.Compare(a.name, b.name) })
	return kept, warns, nil
}

// skillIn reads the SKILL.md of the folder t, if it has a usable one.
func skillIn(c *checkout, t *object.Tree, dir string) (found, bool, string) {
	var md *object.TreeEntry
	for i, e := range t.Entries {
		if e.Mode.IsFile() && e.Mode != filemode.Symlink && (e.Name == "SKILL.md" || (e.Name == "skill.md" && md == nil)) {
			md = &t.Entries[i]
		}
	}
	if md == nil {
		return found{}, false, ""
	}
	file := join(dir, md.Name)
	folder := path.Base(dir)
	if dir == "." {
		folder = c.src.name()
	}
	data, err := readBlob(c, md.Hash, skills.MaxBytes)
	if err != nil {
		return found{}, false, fmt.Sprintf("%s left out: %v", file, err)
	}
	meta, _, findings := skillfs.ParseSkill(file, folder, data)
	for _, f := range findings {
		if f.Severity == skillfs.Unusable {
			return found{}, false, fmt.Sprintf("%s left out: %s", file, f.Message)
		}
	}
	if err := checkName(meta.Name); err != nil {
		return found{}, false, fmt.Sprintf("%s left out: %v", file, err)
	}
	return found{name: meta.Name, desc: meta.Description, path: dir, tree: t}, true, ""
}

// file is one entry of a skill to install.
type file struct {
	rel    string // slash path in the skill folder
	repo   string // slash path in the repository, for messages
	entry  object.TreeEntry
	target string // a symlink's target
}

// plan lists the files of the skill f and refuses, naming the file, what
// must never be installed: a name that escapes the folder, a submodule, a
// symlink that resolves outside the skill, more than skills.MaxFiles files,
// folders nested deeper than maxDepth. Sizes are checked while the files
// are written (see write), without reading every blob twice.
func plan(c *checkout, f found) ([]file, error) {
	var files []file
	var walk func(t *object.Tree, rel string, depth int) error
	walk = func(t *object.Tree, rel string, depth int) error {
		for _, e := range t.Entries {
			r := join(rel, e.Name)
			repoPath := join(f.path, r)
			if err := checkEntryName(e.Name); err != nil {
				return fmt.Errorf("%s: %w", repoPath, err)
			}
			switch {
			case e.Mode == filemode.Dir:
				if depth == maxDepth {
					return fmt.Errorf("%s: folders nested deeper than %d", repoPath, maxDepth)
				}
				sub, err := c.repo.TreeObject(e.Hash)
				if err != nil {
					return fmt.Errorf("%s: %w", repoPath, err)
				}
				if err := walk(sub, r, depth+1); err != nil {
					return err
				}
				continue
			case e.Mode == filemode.Submodule:
				return fmt.Errorf("%s: a submodule (a link to another repository) cannot be installed", repoPath)
			case e.Mode == filemode.Symlink, e.Mode == filemode.Regular, e.Mode == filemode.Executable, e.Mode == filemode.Deprecated:
			default:
				return fmt.Errorf("%s: unknown file mode %o", repoPath, uint32(e.Mode))
			}
			if len(files) == skills.MaxFiles {
				return fmt.Errorf("%s: the skill has more than %d files, the limit of a skill", repoPath, skills.MaxFiles)
			}
			fl := file{rel: r, repo: repoPath, entry: e}
			if e.Mode == filemode.Symlink {
				data, err := readBlob(c, e.Hash, maxLink)
				if err != nil {
					return fmt.Errorf("symlink %s: %w", repoPath, err)
				}
				fl.target = string(data)
			}
			files = append(files, fl)
		}
		return nil
	}
	if err := walk(f.tree, "", 0); err != nil {
		return nil, err
	}
	byRel := map[string]file{}
	for _, fl := range files {
		byRel[fl.rel] = fl
	}
	for _, fl := range files {
		if fl.entry.Mode == filemode.Symlink {
			if err := checkLink(byRel, fl); err != nil {
				return nil, fmt.Errorf("symlink %s: %w", fl.repo, err)
			}
		}
	}
	return files, nil
}

// checkEntryName refuses a tree entry name that is not one plain segment:
// git never writes one, a crafted repository can.
func checkEntryName(name string) error {
	switch {
	case name == "" || name == "." || name == "..":
		return fmt.Errorf("the path escapes the skill folder (an entry named %q)", name)
	case strings.ContainsAny(name, "/\\\x00"):
		return fmt.Errorf("the path escapes the skill folder (an entry named %q)", name)
	case strings.EqualFold(name, ".git"):
		return errors.New("a .git entry cannot be installed")
	}
	return nil
}

// checkLink resolves a symlink inside the skill's tree as the system would,
// through the other symlinks of the skill, and refuses it when it leads out
// of the skill folder at any step (an absolute target, a ".." above the
// folder) or goes round more than maxHops times. A path through something
// the tree does not hold is followed by name, which can only stay inside.
func checkLink(byRel map[string]file, l file) error {
	if strings.ContainsRune(l.target, 0) || l.target == "" {
		return fmt.Errorf("invalid target %q", l.target)
	}
	stack := strings.Split(l.rel, "/")
	stack = stack[:len(stack)-1] // the folder holding the link
	todo := strings.Split(l.target, "/")
	if path.IsAbs(l.target) || filepath.IsAbs(l.target) {
		return fmt.Errorf("it points outside the skill folder (-> %s)", l.target)
	}
	for hops := 0; len(todo) > 0; {
		seg := todo[0]
		todo = todo[1:]
		switch seg {
		case "", ".":
			continue
		case "..":
			if len(stack) == 0 {
				return fmt.Errorf("it points outside the skill folder (-> %s)", l.target)
			}
			stack = stack[:len(stack)-1]
			continue
		}
		stack = append(stack, seg)
		next, ok := byRel[strings.Join(stack, "/")]
		if !ok || next.entry.Mode != filemode.Symlink {
			continue
		}
		if hops++; hops > maxHops {
			return fmt.Errorf("more than %d symlinks to follow (a loop?)", maxHops)
		}
		if path.IsAbs(next.target) || next.target == "" {
			return fmt.Errorf("it points outside the skill folder through %s (-> %s)", next.rel, next.target)
		}
		stack = stack[:len(stack)-1]
		todo = append(strings.Split(next.target, "/"), todo...)
	}
	return nil
}

// write puts the planned files under dir (a fresh folder of the stage) and
// returns each file's digest. It stops, naming the file, when the skill grows past
// skills.MaxBytes. Regular files keep their run bits; symlinks are made
// last, so no write ever goes through one.
func write(c *checkout, files []file, dir string) (map[string]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	digests := map[string]string{}
	var total int64
	for _, fl := range files {
		if fl.entry.Mode == filemode.Symlink {
			continue
		}
		data, err := readBlob(c, fl.entry.Hash, skills.MaxBytes-total)
		if errors.Is(err, errTooLarge) {
			return nil, fmt.Errorf("%s: the skill is over %d bytes, the limit of a skill", fl.repo, skills.MaxBytes)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", fl.repo, err)
		}
		total += int64(len(data))
		p := filepath.Join(dir, filepath.FromSlash(fl.rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		perm := os.FileMode(0o644)
		if fl.entry.Mode == filemode.Executable {
			perm = 0o755
		}
		if err := writeNew(p, data, perm); err != nil {
			return nil, fmt.Errorf("%s: %w", fl.repo, err)
		}
		digests[fl.rel] = skills.FileDigest(data)
	}
	for _, fl := range files {
		if fl.entry.Mode != filemode.Symlink {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(fl.rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := os.Symlink(fl.target, p); err != nil {
			return nil, fmt.Errorf("%s: %w", fl.repo, err)
		}
		digests[fl.rel] = skills.FileDigest([]byte(fl.target))
	}
	return digests, nil
}

// writeNew creates p, which must not exist, with data.
func writeNew(p string, data []byte, perm os.FileMode) error {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

var errTooLarge = errors.New("too large")

// readBlob reads a blob of at most limit bytes.
func readBlob(c *checkout, h plumbing.Hash, limit int64) ([]byte, error) {
	b, err := c.repo.BlobObject(h)
	if err != nil {
		return nil, err
	}
	if b.Size > limit {
		return nil, errTooLarge
	}
	r, err := b.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var buf bytes.Buffer
	n, err := io.Copy(&buf, io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if n > limit {
		return nil, errTooLarge
	}
	return buf.Bytes(), nil
}

func join(dir, name string) string {
	if dir == "" || dir == "." {
		return name
	}
	return dir + "/" + name
}

func depth(p string) int {
	if p == "." {
		return 0
	}
	return strings.Count(p, "/") + 1
}
