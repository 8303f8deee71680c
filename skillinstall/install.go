package skillinstall

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Config says which root an Installer manages.
type Config struct {
	// Root is the skills root skills are installed into, one folder per
	// skill. Required.
	Root string
	// LockFile is the lockfile's path. Required.
	LockFile string
	// GitHub is the base URL a source written owner/repo, or as a tree URL
	// under it, is read against; "" is DefaultGitHub.
	GitHub string
	// Tree is the folder Root and LockFile must stay in (the work dir of a
	// project root), "" for none. Every command then refuses a Root, a
	// folder between Tree and Root, or a LockFile that is a symlink, and a
	// Root whose real path leaves Tree: the model writes in the work tree,
	// and a link it planted would send the install elsewhere.
	Tree string
}

// UserConfig is the user root, ~/.helios/skills, with ~/.helios/helios-lock.json
// (HOME decides).
func UserConfig() (Config, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return Config{}, fmt.Errorf("user skills root: %w", err)
	}
	return Config{Root: filepath.Join(home, ".helios", "skills"), LockFile: filepath.Join(home, ".helios", LockFileName)}, nil
}

// ProjectConfig is the project root of workDir, <workDir>/.helios/skills,
// with <workDir>/helios-lock.json (the one to commit).
func ProjectConfig(workDir string) Config {
	return Config{Root: filepath.Join(workDir, ".helios", "skills"), LockFile: filepath.Join(workDir, LockFileName), Tree: workDir}
}

// Installer installs skills into one root and keeps its lockfile. Its
// commands on one root exclude each other, also across processes.
type Installer struct {
	root, lockFile, github, tree string
}

// New returns an Installer for cfg.
func New(cfg Config) (*Installer, error) {
	if cfg.Root == "" || cfg.LockFile == "" {
		return nil, errors.New("new installer: Config needs Root and LockFile")
	}
	root, err := filepath.Abs(cfg.Root)
	if err != nil {
		return nil, err
	}
	lock, err := filepath.Abs(cfg.LockFile)
	if err != nil {
		return nil, err
	}
	github := cfg.GitHub
	if github == "" {
		github = DefaultGitHub
	}
	tree := ""
	if cfg.Tree != "" {
		if tree, err = filepath.Abs(cfg.Tree); err != nil {
			return nil, err
		}
	}
	return &Installer{root: root, lockFile: lock, github: github, tree: tree}, nil
}

// ErrOutsideTree is the sentinel of a root or lockfile refused for leading
// out of [Config.Tree] or through a symlink in it.
var ErrOutsideTree = errors.New("leaves the work tree")

// checkTree refuses a root or lockfile that a symlink in the tree redirects,
// naming the link, or whose real path lies outside the tree.
func (in *Installer) checkTree() error {
	if in.tree == "" {
		return nil
	}
	tree, err := filepath.EvalSymlinks(in.tree)
	if err != nil {
		return fmt.Errorf("skills root %s: work tree %s: %w", in.root, in.tree, err)
	}
	for _, p := range []string{in.root, in.lockFile} {
		rel, err := filepath.Rel(in.tree, p)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return fmt.Errorf("skills root %s: %s is outside the work tree %s: %w", in.root, p, in.tree, ErrOutsideTree)
		}
		at := tree
		for _, c := range strings.Split(rel, string(filepath.Separator)) {
			at = filepath.Join(at, c)
			fi, err := os.Lstat(at)
			if errors.Is(err, os.ErrNotExist) {
				break // made by the command, as a real folder
			}
			if err != nil {
				return fmt.Errorf("skills root %s: %w", in.root, err)
			}
			if fi.Mode()&os.ModeSymlink != 0 {
				dest, _ := os.Readlink(at)
				return fmt.Errorf("skills root %s: %s is a symlink (to %s), and the installer follows none in the work tree %s: %w",
					in.root, at, dest, in.tree, ErrOutsideTree)
			}
		}
		if real, err := filepath.EvalSymlinks(p); err == nil {
			if r, err := filepath.Rel(tree, real); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
				return fmt.Errorf("skills root %s: %s is really %s, outside the work tree %s: %w", in.root, p, real, in.tree, ErrOutsideTree)
			}
		}
	}
	return nil
}

// Action is what a command did to one skill.
type Action string

// The actions.
const (
	Installed Action = "installed" // it was not there
	Updated   Action = "updated"   // another commit replaced it
	Restored  Action = "restored"  // sync put back the locked files over changed ones
	Unchanged Action = "unchanged" // it already was what was asked
	Removed   Action = "removed"
)

// Change is what a command did to one skill.
type Change struct {
	Name   string `json:"name"`
	Action Action `json:"action"`
	Source string `json:"source"`
	Ref    string `json:"ref"`
	Commit string `json:"commit"`
	// From is the commit an update or a re-add replaced.
	From string `json:"from,omitempty"`
	Path string `json:"path"`
	Dir  string `json:"dir"`
	// Files is how many files the skill has.
	Files int `json:"files"`
}

// Result is what a command did.
type Result struct {
	Root   string   `json:"root"`
	Lock   string   `json:"lock"`
	Skills []Change `json:"skills"`
	// Warnings name what was left out (a SKILL.md that cannot be used, a
	// second skill of one name, a skill skipped).
	Warnings []string `json:"warnings"`
	// Skipped are the skills add did not install because of a conflict
	// with what is there; each also has a warning. The others were
	// installed and locked.
	Skipped []Skip `json:"skipped"`
}

// Skip is a skill add left out, and why.
type Skip struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// ErrNotLocked is wrapped by the error of a command naming a skill the
// lockfile does not hold.
var ErrNotLocked = errors.New("not locked")

// AddOptions tune Add.
type AddOptions struct {
	// Skills selects skills by frontmatter name; empty installs every
	// skill of the repository.
	Skills []string
	// Force replaces a folder the lockfile does not know, a skill locked
	// from another source, and local changes to an installed skill.
	Force bool
}

// Add installs the skills of spec (SOURCE or SOURCE#REF; see the package
// doc for the forms of SOURCE) at the newest commit of REF (default: the
// source's default branch) and locks them. A selected skill that conflicts
// with what is there — a folder the lockfile does not know, a skill locked
// from another source, local changes, a flat NAME.md — is skipped unless
// opts.Force, with a warning and an entry in Result.Skipped; the others are
// installed and locked. Any other failure changes nothing.
func (in *Installer) Add(ctx context.Context, spec string, opts AddOptions) (Result, error) {
	res, err := in.add(ctx, spec, opts)
	if err != nil {
		return Result{}, fmt.Errorf("add %s: %w", redactURL(spec), err)
	}
	return res, nil
}

// resolve reads spec (SOURCE[#REF]) to a source, a ref and a subfolder.
func (in *Installer) resolve(spec string) (source, string, string, error) {
	srcText, ref := splitSpec(spec)
	src, uref, sub, err := parseArg(srcText, in.github)
	if err != nil {
		return source{}, "", "", err
	}
	if uref != "" {
		if ref != "" && ref != uref {
			return source{}, "", "", fmt.Errorf("two refs: %s in the URL and #%s", uref, ref)
		}
		ref = uref
	}
	return src, ref, sub, nil
}

// offered fetches the newest commit of ref and finds the skills under sub.
func offered(ctx context.Context, fetch *fetcher, src source, ref, sub string) (*checkout, []found, []string, error) {
	co, err := fetch.newest(ctx, src, ref)
	if err != nil {
		return nil, nil, nil, err
	}
	all, warns, err := discover(co, sub)
	if err != nil {
		return nil, nil, nil, err
	}
	where := co.at()
	if sub != "" {
		where = sub + " of " + where
	}
	switch {
	case len(all) == 0 && len(warns) > 0:
		return nil, nil, nil, fmt.Errorf("no usable SKILL.md in %s: %s", where, strings.Join(warns, "; "))
	case len(all) == 0:
		return nil, nil, nil, fmt.Errorf("no SKILL.md in %s", where)
	}
	return co, all, warns, nil
}

func (in *Installer) add(ctx context.Context, spec string, opts AddOptions) (Result, error) {
	src, ref, sub, err := in.resolve(spec)
	if err != nil {
		return Result{}, err
	}
	return in.transact(ctx, func(tx *txn) error {
		co, all, warns, err := offered(ctx, tx.fetch, src, ref, sub)
		if err != nil {
			return err
		}
		tx.res.Warnings = append(tx.res.Warnings, warns...)
		picked, err := pick(all, opts.Skills, co)
		if err != nil {
			return err
		}
		for _, f := range picked {
			prev, locked := tx.lock.find(f.name)
			if !opts.Force {
				if why := in.conflict(f, prev, locked, src); why != "" {
					tx.res.Skipped = append(tx.res.Skipped, Skip{Name: f.name, Reason: why})
					tx.res.Warnings = append(tx.res.Warnings, fmt.Sprintf("skill %q not installed: %s", f.name, why))
					continue
				}
			}
			l, err := tx.install(co, f)
			if err != nil {
				return err
			}
			ch := in.change(l, Installed)
			var chk Check
			if locked {
				chk = in.check(prev)
			}
			switch {
			case !locked || !chk.Installed:
			case prev.Commit == l.Commit && chk.OK && sameFiles(prev.Files, l.Files):
				ch.Action = Unchanged
				tx.unstage(f.name)
			case prev.Commit == l.Commit:
				ch.Action = Restored
			default:
				ch.Action, ch.From = Updated, prev.Commit
			}
			tx.lock = tx.lock.with(l)
			tx.res.Skills = append(tx.res.Skills, ch)
		}
		return nil
	})
}

// conflict says why the skill f cannot be installed without --force, or "".
func (in *Installer) conflict(f found, prev Locked, locked bool, src source) string {
	dir := filepath.Join(in.root, f.name)
	switch {
	case locked && (prev.Source != src.spec || prev.Path != f.path):
		return fmt.Sprintf("%s already holds it, installed from %s (path %s); --force replaces it", dir, prev.Source, prev.Path)
	case !locked && exists(dir):
		return fmt.Sprintf("%s exists and %s does not lock it; --force replaces it", dir, in.lockFile)
	case !locked && exists(dir+".md"):
		return fmt.Sprintf("%s is a skill of the same name; --force installs %s beside it (the folder wins)", dir+".md", f.name)
	case locked:
		if err := in.refuseLocalChanges(prev); err != nil {
			return err.Error()
		}
	}
	return ""
}

// Available is a skill a source offers.
type Available struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Path is the skill folder's slash path in the repository.
	Path string `json:"path"`
}

// Listing is what a source offers at one commit.
type Listing struct {
	Source string      `json:"source"`
	Ref    string      `json:"ref"`
	Commit string      `json:"commit"`
	Skills []Available `json:"skills"`
	// Warnings name SKILL.md files left out, as Add would leave them out.
	Warnings []string `json:"warnings"`
}

// List fetches spec (SOURCE[#REF], as Add reads it) and returns the skills
// Add would find there, by name. It neither reads nor writes the root or
// the lockfile.
func (in *Installer) List(ctx context.Context, spec string) (Listing, error) {
	src, ref, sub, err := in.resolve(spec)
	if err != nil {
		return Listing{}, fmt.Errorf("list %s: %w", redactURL(spec), err)
	}
	co, all, warns, err := offered(ctx, newFetcher(), src, ref, sub)
	if err != nil {
		return Listing{}, fmt.Errorf("list %s: %w", redactURL(spec), err)
	}
	l := Listing{Source: src.spec, Ref: co.ref, Commit: co.commit.Hash.String(), Skills: make([]Available, len(all)), Warnings: warns}
	if l.Warnings == nil {
		l.Warnings = []string{}
	}
	for i, f := range all {
		l.Skills[i] = Available{Name: f.name, Description: f.desc, Path: f.path}
	}
	return l, nil
}

// pick selects the skills named (all when none are).
func pick(all []found, names []string, co *checkout) ([]found, error) {
	if len(names) == 0 {
		return all, nil
	}
	var out []found
	for _, n := range names {
		i := slices.IndexFunc(all, func(f found) bool { return f.name == n })
		if i < 0 {
			avail := make([]string, len(all))
			for j, f := range all {
				avail[j] = f.name
			}
			return nil, fmt.Errorf("no skill named %q in %s (it has: %s)", n, co.at(), some(avail))
		}
		if !slices.ContainsFunc(out, func(f found) bool { return f.name == n }) {
			out = append(out, all[i])
		}
	}
	return out, nil
}

// UpdateOptions tune Update.
type UpdateOptions struct {
	// Force replaces local changes to an installed skill.
	Force bool
}

// Update moves the named skills (every locked skill when none is named) to
// the newest commit of their locked ref and rewrites their lock entries.
// A skill whose files were changed locally is refused, naming the files,
// whether or not its ref moved; with opts.Force its files are replaced (by
// the locked commit's when the ref did not move).
func (in *Installer) Update(ctx context.Context, names []string, opts UpdateOptions) (Result, error) {
	res, err := in.transact(ctx, func(tx *txn) error {
		entries, err := tx.selected(names)
		if err != nil {
			return err
		}
		for _, e := range entries {
			src, err := parseSource(e.Source)
			if err != nil {
				return fmt.Errorf("skill %q: %w", e.Name, err)
			}
			co, err := tx.fetch.newest(ctx, src, e.Ref)
			if err != nil {
				return fmt.Errorf("skill %q: %w", e.Name, err)
			}
			if !opts.Force {
				if err := in.refuseLocalChanges(e); err != nil {
					return err
				}
			}
			action := Updated
			if co.commit.Hash.String() == e.Commit {
				chk := in.check(e)
				if chk.OK {
					tx.res.Skills = append(tx.res.Skills, in.change(e, Unchanged))
					continue
				}
				action = Restored
				if !chk.Installed {
					action = Installed
				}
			}
			f, err := locate(co, e)
			if err != nil {
				return err
			}
			l, err := tx.install(co, f)
			if err != nil {
				return err
			}
			tx.lock = tx.lock.with(l)
			ch := in.change(l, action)
			if action == Updated {
				ch.From = e.Commit
			}
			tx.res.Skills = append(tx.res.Skills, ch)
		}
		return nil
	})
	if err != nil {
		return Result{}, fmt.Errorf("update: %w", err)
	}
	return res, nil
}

// locate finds the locked skill e in a newer commit: at its locked path, or
// wherever a skill of its name moved to.
func locate(co *checkout, e Locked) (found, error) {
	all, _, err := discover(co, "")
	if err != nil {
		return found{}, err
	}
	for _, f := range all {
		if f.path == e.Path && f.name == e.Name {
			return f, nil
		}
	}
	for _, f := range all {
		if f.name == e.Name {
			return f, nil
		}
	}
	return found{}, fmt.Errorf("skill %q: no longer in %s", e.Name, co.at())
}

// Sync installs exactly what the lockfile records: each skill whose folder
// does not match its lock entry is fetched at its locked commit, checked
// against every locked digest and put in place (over local changes). A skill
// whose commit cannot be fetched, or whose files differ from their digests,
// fails the whole sync, naming the skill and the file; nothing changes then.
func (in *Installer) Sync(ctx context.Context) (Result, error) {
	res, err := in.transact(ctx, func(tx *txn) error {
		for _, e := range tx.lock.Skills {
			chk := in.check(e)
			if chk.OK {
				tx.res.Skills = append(tx.res.Skills, in.change(e, Unchanged))
				continue
			}
			src, err := parseSource(e.Source)
			if err != nil {
				return fmt.Errorf("skill %q: %w", e.Name, err)
			}
			co, err := tx.fetch.exact(ctx, src, e.Ref, e.Commit)
			if err != nil {
				return fmt.Errorf("skill %q: %w", e.Name, err)
			}
			f, err := locate(co, e)
			if err != nil {
				return err
			}
			l, err := tx.install(co, f)
			if err != nil {
				return err
			}
			if err := sameAsLocked(e, l); err != nil {
				return err
			}
			action := Installed
			if chk.Installed {
				action = Restored
			}
			tx.res.Skills = append(tx.res.Skills, in.change(e, action))
		}
		return nil
	})
	if err != nil {
		return Result{}, fmt.Errorf("sync: %w", err)
	}
	return res, nil
}

// sameAsLocked compares what was fetched for e with its lock entry.
func sameAsLocked(e, got Locked) error {
	if got.Commit != e.Commit {
		return fmt.Errorf("skill %q: fetched commit %s, but the lock has %s", e.Name, got.Commit, e.Commit)
	}
	for _, f := range sortedKeys(e.Files) {
		d, ok := got.Files[f]
		switch {
		case !ok:
			return fmt.Errorf("skill %q: %s is locked but not in commit %s", e.Name, f, e.Commit)
		case d != e.Files[f]:
			return fmt.Errorf("skill %q: %s is %s in commit %s, but the lock has %s", e.Name, f, d, e.Commit, e.Files[f])
		}
	}
	for _, f := range sortedKeys(got.Files) {
		if _, ok := e.Files[f]; !ok {
			return fmt.Errorf("skill %q: %s is in commit %s but not in the lock", e.Name, f, e.Commit)
		}
	}
	return nil
}

// Remove deletes the named skills' folders and lock entries. A name the
// lockfile does not hold is refused: helios removes only what it installed.
func (in *Installer) Remove(ctx context.Context, names []string) (Result, error) {
	if len(names) == 0 {
		return Result{}, errors.New("remove: name at least one skill")
	}
	res, err := in.transact(ctx, func(tx *txn) error {
		entries, err := tx.selected(names)
		if err != nil {
			return err
		}
		for _, e := range entries {
			tx.remove(e.Name)
			tx.lock = tx.lock.without(e.Name)
			tx.res.Skills = append(tx.res.Skills, in.change(e, Removed))
		}
		return nil
	})
	if err != nil {
		return Result{}, fmt.Errorf("remove: %w", err)
	}
	return res, nil
}

// refuseLocalChanges fails when e's folder no longer holds what was locked.
func (in *Installer) refuseLocalChanges(e Locked) error {
	c := in.check(e)
	if c.OK || !c.Installed {
		return nil
	}
	return fmt.Errorf("skill %q has local changes (%s) in %s; --force replaces them, or keep them under another name", e.Name, c.summary(), c.Dir)
}

func (in *Installer) change(l Locked, a Action) Change {
	return Change{Name: l.Name, Action: a, Source: l.Source, Ref: l.Ref, Commit: l.Commit,
		Path: l.Path, Dir: filepath.Join(in.root, l.Name), Files: len(l.Files)}
}

// stagePrefix names the stage folders beside the root. The catalog never
// reads them: they are not in a root, and hidden.
const stagePrefix = ".helios-stage-"

// txn is one command on the root: the lock it read, the skills it staged and
// removed, applied all together by commit or not at all.
type txn struct {
	in      *Installer
	fetch   *fetcher
	stage   string
	lock    Lock
	res     Result
	staged  []string // names staged for install, in order
	removed []string // names to remove
}

// transact runs fn under the root's lock with the current lockfile, then
// puts what fn staged in place and writes the lockfile. Whatever fails,
// the root and the lockfile are left as they were.
func (in *Installer) transact(ctx context.Context, fn func(*txn) error) (Result, error) {
	if err := in.checkTree(); err != nil {
		return Result{}, err
	}
	parent := filepath.Dir(in.root)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return Result{}, err
	}
	lockDirPath := filepath.Dir(in.lockFile)
	if err := os.MkdirAll(lockDirPath, 0o755); err != nil {
		return Result{}, err
	}
	unlock, err := lockDir(ctx, lockDirPath)
	if err != nil {
		return Result{}, err
	}
	defer unlock()
	lock, err := ReadLock(in.lockFile)
	if err != nil {
		return Result{}, err
	}
	// Holding the lock, any stage folder is a killed command's leftover.
	if old, _ := filepath.Glob(filepath.Join(parent, stagePrefix+"*")); len(old) > 0 {
		for _, o := range old {
			os.RemoveAll(o)
		}
	}
	stage, err := os.MkdirTemp(parent, stagePrefix)
	if err != nil {
		return Result{}, err
	}
	defer os.RemoveAll(stage)
	tx := &txn{in: in, fetch: newFetcher(), stage: stage, lock: lock,
		res: Result{Root: in.root, Lock: in.lockFile, Skills: []Change{}, Warnings: []string{}, Skipped: []Skip{}}}
	if err := fn(tx); err != nil {
		return Result{}, err
	}
	if err := tx.commit(lock); err != nil {
		return Result{}, err
	}
	return tx.res, nil
}

// selected returns the lock entries named (all when none are), refusing a
// name the lock does not hold.
func (tx *txn) selected(names []string) ([]Locked, error) {
	if len(names) == 0 {
		return tx.lock.Skills, nil
	}
	var out []Locked
	for _, n := range names {
		e, ok := tx.lock.find(n)
		if !ok {
			hint := ""
			if exists(filepath.Join(tx.in.root, n)) {
				hint = " (its folder was not installed by helios skills add)"
			}
			return nil, fmt.Errorf("skill %q is %w in %s%s", n, ErrNotLocked, tx.in.lockFile, hint)
		}
		if !slices.ContainsFunc(out, func(l Locked) bool { return l.Name == n }) {
			out = append(out, e)
		}
	}
	return out, nil
}

// install writes the skill f of co into the stage and returns its lock
// entry. The root is not touched until commit.
func (tx *txn) install(co *checkout, f found) (Locked, error) {
	files, err := plan(co, f)
	if err != nil {
		return Locked{}, fmt.Errorf("skill %q: %w", f.name, err)
	}
	dir := filepath.Join(tx.stage, f.name)
	digests, err := write(co, files, dir)
	if err != nil {
		return Locked{}, fmt.Errorf("skill %q: %w", f.name, err)
	}
	tx.staged = append(tx.staged, f.name)
	return Locked{Name: f.name, Source: co.src.spec, Ref: co.ref, Commit: co.commit.Hash.String(), Path: f.path, Files: digests}, nil
}

// unstage drops a staged skill that turned out to be what is installed.
func (tx *txn) unstage(name string) {
	tx.staged = slices.DeleteFunc(tx.staged, func(n string) bool { return n == name })
	os.RemoveAll(filepath.Join(tx.stage, name))
}

func (tx *txn) remove(name string) { tx.removed = append(tx.removed, name) }

// commit moves the staged skills in (exchanging each with its old folder,
// which lands in the stage), moves the removed ones out, and writes the
// lockfile; on any failure it undoes the moves made.
func (tx *txn) commit(before Lock) (err error) {
	root := tx.in.root
	if len(tx.staged) > 0 {
		if err := os.MkdirAll(root, 0o755); err != nil {
			return err
		}
	}
	var undo []func() error
	defer func() {
		if err != nil {
			for i := len(undo) - 1; i >= 0; i-- {
				if uerr := undo[i](); uerr != nil {
					err = fmt.Errorf("%w (undoing: %v)", err, uerr)
				}
			}
		}
	}()
	for _, name := range tx.staged {
		staged, dst := filepath.Join(tx.stage, name), filepath.Join(root, name)
		if exists(dst) {
			if err := exchange(staged, dst); err != nil {
				return fmt.Errorf("install skill %q: %w", name, err)
			}
			undo = append(undo, func() error { return exchange(staged, dst) })
			continue
		}
		if err := renameNew(staged, dst); err != nil {
			return fmt.Errorf("install skill %q: %w", name, err)
		}
		undo = append(undo, func() error { return os.Rename(dst, staged) })
	}
	for _, name := range tx.removed {
		src, out := filepath.Join(root, name), filepath.Join(tx.stage, "removed-"+name)
		if !exists(src) {
			continue
		}
		if err := os.Rename(src, out); err != nil {
			return fmt.Errorf("remove skill %q: %w", name, err)
		}
		undo = append(undo, func() error { return os.Rename(out, src) })
	}
	if len(undo) > 0 {
		if err := syncDir(root); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	a, _ := before.encode()
	b, err := tx.lock.encode()
	if err != nil {
		return err
	}
	if string(a) == string(b) {
		return nil // nothing moved: a hand-formatted lockfile is left as it is
	}
	return writeLock(tx.in.lockFile, tx.lock)
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

func sameFiles(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// summary names the files of a check that differ, a few of each kind.
func (c Check) summary() string {
	var parts []string
	for _, k := range []struct {
		what  string
		files []string
	}{{"changed", c.Changed}, {"missing", c.Missing}, {"extra", c.Extra}, {"unreadable", c.Unreadable}} {
		if len(k.files) > 0 {
			parts = append(parts, k.what+": "+some(k.files))
		}
	}
	return strings.Join(parts, "; ")
}
