package skillinstall

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	"github.com/go-git/go-git/v5/storage/memory"
)

// source is a repository skills come from.
type source struct {
	spec   string // as the lockfile records it: no credentials, a local path absolute
	url    string // what go-git is given, credentials included
	local  string // the path of a local repository; "" for a remote one
	secret string // a password in the URL, kept out of every message
	// note says how a shorthand was read, for the errors of fetching it.
	note string
}

// splitSpec splits SOURCE#REF at the last "#".
func splitSpec(s string) (src, ref string) {
	if i := strings.LastIndexByte(s, '#'); i >= 0 {
		return s[:i], s[i+1:]
	}
	return s, ""
}

// parseSource reads a source as a person or the lockfile gives it: a URL
// (https, http, ssh, git, file), an scp-like git@host:path, or the path of a
// local repository.
func parseSource(s string) (source, error) {
	if s == "" {
		return source{}, errors.New("empty source")
	}
	if strings.Contains(s, "://") {
		u, err := url.Parse(s)
		if err != nil {
			return source{}, fmt.Errorf("source %q: %w", redactURL(s), err)
		}
		switch strings.ToLower(u.Scheme) {
		case "file":
			if u.Host != "" && u.Host != "localhost" {
				return source{}, fmt.Errorf("source %s: a file URL names no host", s)
			}
			return source{spec: s, url: s, local: filepath.FromSlash(u.Path)}, nil
		case "http", "https":
			src := source{url: s, spec: s}
			if u.User != nil { // credentials are used, never recorded
				var ok bool
				if src.secret, ok = u.User.Password(); !ok {
					src.secret = u.User.Username() // https://TOKEN@host/…
				}
				u.User = nil
				src.spec = u.String()
			}
			return src, nil
		case "ssh", "git", "git+ssh", "ssh+git":
			src := source{url: s, spec: s}
			if p, ok := u.User.Password(); ok { // the user name is no secret
				src.secret = p
				u.User = url.User(u.User.Username())
				src.spec = u.String()
			}
			return src, nil
		default:
			return source{}, fmt.Errorf("source %s: unknown scheme %q (https, http, ssh, git or file)", redactURL(s), u.Scheme)
		}
	}
	if _, err := os.Stat(s); err != nil && isSCP(s) {
		return source{spec: s, url: s}, nil // git@host:org/repo
	}
	abs, err := filepath.Abs(s)
	if err != nil {
		return source{}, fmt.Errorf("source %s: %w", s, err)
	}
	return source{spec: abs, url: abs, local: abs}, nil
}

// DefaultGitHub is the base URL owner/repo and tree URLs resolve against
// when Config.GitHub is empty.
const DefaultGitHub = "https://github.com"

// parseArg reads a source as a person types it: what parseSource reads, and
// GitHub's shorthands resolved against the base URL github —
//
//	owner/repo                     github/owner/repo, when no such local path exists
//	github/owner/repo/tree/REF     that repository at REF
//	github/owner/repo/tree/REF/SUB the skills under the folder SUB only
//
// A local path wins over owner/repo; ./owner/repo is always a path. In a
// tree URL the first segment after tree/ is the ref (a branch with a slash
// in its name is named with #REF instead). ref and sub are "" when the
// source names none.
func parseArg(s, github string) (src source, ref, sub string, err error) {
	base := strings.TrimRight(github, "/")
	if rest, ok := strings.CutPrefix(s, base+"/"); ok {
		segs := strings.Split(strings.TrimRight(rest, "/"), "/")
		if len(segs) >= 3 && segs[2] == "tree" {
			if len(segs) < 4 || segs[3] == "" {
				return source{}, "", "", fmt.Errorf("source %s: no ref after tree/ (%s/OWNER/REPO/tree/REF[/PATH])", s, base)
			}
			if sub = strings.Join(segs[4:], "/"); sub != "" && !cleanRel(sub) {
				return source{}, "", "", fmt.Errorf("source %s: path %q is not a clean relative path", s, sub)
			}
			src, err = parseSource(base + "/" + segs[0] + "/" + segs[1])
			return src, segs[3], sub, err
		}
	}
	if isGitHubRepo(s) {
		if _, err := os.Lstat(s); errors.Is(err, os.ErrNotExist) {
			src, err = parseSource(base + "/" + s)
			src.note = fmt.Sprintf("%s read as a GitHub repository: no local path of that name; ./%s names a path", s, s)
			return src, "", "", err
		}
	}
	src, err = parseSource(s)
	return src, "", "", err
}

// isGitHubRepo reports owner/repo: two segments of the letters GitHub
// allows in owner and repository names, the owner not starting with a dot
// (so ./x and ../x stay paths).
func isGitHubRepo(s string) bool {
	owner, repo, ok := strings.Cut(s, "/")
	if !ok || owner == "" || repo == "" || repo == "." || repo == ".." || strings.HasPrefix(owner, "-") {
		return false
	}
	for _, r := range owner {
		if !(r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	for _, r := range repo {
		if !(r == '-' || r == '_' || r == '.' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// isSCP reports git's scp-like syntax, [user@]host:path, where the host has
// no slash before the colon.
func isSCP(s string) bool {
	i := strings.IndexByte(s, ':')
	return i > 1 && !strings.ContainsAny(s[:i], `/\`)
}

// redactURL hides the credentials of a URL for a message: an HTTP URL's
// whole user part (a token often stands as the user name), another URL's
// password.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return s
	}
	if l := strings.ToLower(u.Scheme); l == "http" || l == "https" {
		u.User = url.User("***")
		return u.String()
	}
	if _, ok := u.User.Password(); ok {
		return u.Redacted()
	}
	return s
}

// name is the repository's name: the last segment of its path without
// ".git", which a SKILL.md at the root without a name stands for.
func (s source) name() string {
	p := strings.TrimSuffix(strings.TrimRight(filepath.ToSlash(s.spec), "/"), ".git")
	if i := strings.LastIndexAny(p, "/:"); i >= 0 {
		p = p[i+1:]
	}
	return p
}

// checkout is one commit of a source, ready to read.
type checkout struct {
	src    source
	ref    string // as the lockfile records it
	repo   *git.Repository
	commit *object.Commit
}

// at names the checkout in messages: SOURCE at REF (commit abcdef123456).
func (c *checkout) at() string {
	return fmt.Sprintf("%s at %s (commit %s)", c.src.spec, c.ref, c.commit.Hash.String()[:12])
}

// fetcher opens sources for one command: each source and ref once, with the
// credentials it needed kept for the next request.
type fetcher struct {
	auth  map[string]transport.AuthMethod
	cache map[string]*checkout
}

func newFetcher() *fetcher {
	return &fetcher{auth: map[string]transport.AuthMethod{}, cache: map[string]*checkout{}}
}

// newest opens the newest commit of ref ("" is the default branch).
func (f *fetcher) newest(ctx context.Context, src source, ref string) (*checkout, error) {
	return f.open(ctx, src, ref, "")
}

// exact opens the commit want, found through ref.
func (f *fetcher) exact(ctx context.Context, src source, ref, want string) (*checkout, error) {
	return f.open(ctx, src, ref, want)
}

func (f *fetcher) open(ctx context.Context, src source, ref, want string) (*checkout, error) {
	key := src.url + "\x00" + ref + "\x00" + want
	if c := f.cache[key]; c != nil {
		return c, nil
	}
	var c *checkout
	var err error
	if src.local != "" {
		c, err = openLocal(src, ref, want)
	} else {
		c, err = f.fetch(ctx, src, ref, want)
	}
	if err != nil && src.note != "" {
		err = fmt.Errorf("%w (%s)", err, src.note)
	}
	if err != nil {
		return nil, redact(err, src.secret)
	}
	f.cache[key] = c
	return c, nil
}

// openLocal reads a local repository in place: nothing is copied and
// nothing of it runs.
func openLocal(src source, ref, want string) (*checkout, error) {
	fi, err := os.Stat(src.local)
	if err != nil {
		return nil, fmt.Errorf("source %s: %w", src.local, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("source %s: not a folder", src.local)
	}
	repo, err := git.PlainOpenWithOptions(src.local, &git.PlainOpenOptions{EnableDotGitCommonDir: true})
	if errors.Is(err, git.ErrRepositoryNotExists) {
		return nil, fmt.Errorf("source %s: not a git repository (skills are installed from git; copy a plain folder into the root instead)", src.local)
	}
	if err != nil {
		return nil, fmt.Errorf("source %s: %w", src.local, err)
	}
	var h plumbing.Hash
	display := ref
	if want != "" {
		h = plumbing.NewHash(want) // the ref may have moved or gone: the commit is what counts
	} else {
		refs, err := localRefs(repo)
		if err != nil {
			return nil, fmt.Errorf("source %s: %w", src.local, err)
		}
		var name plumbing.ReferenceName
		name, h, display, err = resolveRef(refs, ref)
		if err != nil {
			return nil, fmt.Errorf("source %s: %w", src.spec, err)
		}
		if name == "" {
			p, err := repo.ResolveRevision(plumbing.Revision(display))
			if err != nil {
				return nil, fmt.Errorf("source %s: ref %q not found: no branch, tag or commit of that name", src.spec, ref)
			}
			h = *p
		}
	}
	commit, err := peelCommit(repo, h)
	if err != nil {
		if want != "" {
			return nil, fmt.Errorf("commit %s cannot be found in %s: %w", want, src.spec, err)
		}
		return nil, fmt.Errorf("ref %s of %s: %w", display, src.spec, err)
	}
	return &checkout{src: src, ref: display, repo: repo, commit: commit}, nil
}

func localRefs(repo *git.Repository) ([]*plumbing.Reference, error) {
	var refs []*plumbing.Reference
	if head, err := repo.Storer.Reference(plumbing.HEAD); err == nil {
		refs = append(refs, head)
	}
	iter, err := repo.References()
	if err != nil {
		return nil, err
	}
	err = iter.ForEach(func(r *plumbing.Reference) error {
		switch {
		case r.Name() == plumbing.HEAD:
		case r.Type() == plumbing.SymbolicReference:
			if t, err := repo.Reference(r.Name(), true); err == nil {
				refs = append(refs, plumbing.NewHashReference(r.Name(), t.Hash()))
			}
		default:
			refs = append(refs, r)
		}
		return nil
	})
	return refs, err
}

// fetch fetches what a remote source needs into memory: the tip of a ref
// (depth 1), or enough history to hold the commit want. Objects are never
// written to disk and nothing the server sends runs.
func (f *fetcher) fetch(ctx context.Context, src source, ref, want string) (*checkout, error) {
	var refs []*plumbing.Reference
	err := f.withAuth(ctx, src, func(auth transport.AuthMethod) error {
		rem := git.NewRemote(memory.NewStorage(), &config.RemoteConfig{Name: "origin", URLs: []string{src.url}})
		var err error
		refs, err = rem.ListContext(ctx, &git.ListOptions{Auth: auth, PeelingOption: git.AppendPeeled})
		return err
	})
	if errors.Is(err, transport.ErrEmptyRemoteRepository) {
		return nil, fmt.Errorf("source %s: the repository is empty", src.spec)
	}
	if err != nil {
		return nil, fmt.Errorf("source %s: list refs: %w", src.spec, err)
	}
	name, tip, display, err := resolveRef(refs, ref)
	switch {
	case err != nil && want != "":
		name, display = "", ref // the ref is gone: the commit may still be on another
	case err != nil:
		return nil, fmt.Errorf("source %s: %w", src.spec, err)
	}

	// Each plan is one fetch into a fresh store, cheapest first; the first
	// store that holds the commit is used.
	type plan struct {
		specs []config.RefSpec
		depth int
	}
	all := []config.RefSpec{"+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*"}
	var plans []plan
	switch {
	case name != "" && (want == "" || want == tip.String()):
		plans = []plan{{[]config.RefSpec{config.RefSpec("+" + name + ":" + name)}, 1}}
	case name != "":
		plans = []plan{{[]config.RefSpec{config.RefSpec("+" + name + ":" + name)}, 0}, {all, 0}}
	default: // a commit
		plans = []plan{{all, 0}}
	}
	for _, p := range plans {
		repo, err := git.Init(memory.NewStorage(), nil)
		if err != nil {
			return nil, err
		}
		rem, err := repo.CreateRemote(&config.RemoteConfig{Name: "origin", URLs: []string{src.url}})
		if err != nil {
			return nil, err
		}
		err = f.withAuth(ctx, src, func(auth transport.AuthMethod) error {
			return rem.FetchContext(ctx, &git.FetchOptions{RefSpecs: p.specs, Depth: p.depth, Tags: git.NoTags, Auth: auth})
		})
		if err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) {
			return nil, fmt.Errorf("source %s: fetch %s: %w", src.spec, display, err)
		}
		var h plumbing.Hash
		switch {
		case want != "":
			h = plumbing.NewHash(want)
		case name != "":
			r, err := repo.Storer.Reference(name)
			if err != nil {
				return nil, fmt.Errorf("source %s: fetch %s: %w", src.spec, display, err)
			}
			h = r.Hash()
		default:
			p, err := repo.ResolveRevision(plumbing.Revision(display))
			if err != nil {
				return nil, fmt.Errorf("source %s: ref %q not found: no branch, tag or commit of that name", src.spec, ref)
			}
			h = *p
		}
		commit, err := peelCommit(repo, h)
		if err == nil {
			return &checkout{src: src, ref: display, repo: repo, commit: commit}, nil
		}
		if want == "" {
			return nil, fmt.Errorf("source %s: %s: %w", src.spec, display, err)
		}
	}
	return nil, fmt.Errorf("commit %s cannot be fetched from %s (not reachable from %s, any branch or any tag)", want, src.spec, display)
}

// withAuth runs op with the source's credentials: none (the URL's user and
// password, or the SSH agent, are go-git's defaults), or — once an HTTP server
// asked for them — a user and password from GIT_ASKPASS (or SSH_ASKPASS).
func (f *fetcher) withAuth(ctx context.Context, src source, op func(transport.AuthMethod) error) error {
	auth := f.auth[src.url]
	err := op(auth)
	if auth != nil || !errors.Is(err, transport.ErrAuthenticationRequired) {
		return err
	}
	u, perr := url.Parse(src.url)
	if perr != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return err
	}
	prog := os.Getenv("GIT_ASKPASS")
	if prog == "" {
		prog = os.Getenv("SSH_ASKPASS")
	}
	if prog == "" {
		return fmt.Errorf("%w (set GIT_ASKPASS to a program that prints the user and password)", err)
	}
	user := u.User.Username()
	if user == "" {
		if user, err = askpass(ctx, prog, fmt.Sprintf("Username for '%s://%s': ", u.Scheme, u.Host)); err != nil {
			return err
		}
	}
	pass, err := askpass(ctx, prog, fmt.Sprintf("Password for '%s://%s@%s': ", u.Scheme, user, u.Host))
	if err != nil {
		return err
	}
	f.auth[src.url] = &githttp.BasicAuth{Username: user, Password: pass}
	return redact(op(f.auth[src.url]), pass)
}

// askpass asks prog as git does: the prompt is its argument, the answer its
// first line of output.
func askpass(ctx context.Context, prog, prompt string) (string, error) {
	out, err := exec.CommandContext(ctx, prog, prompt).Output()
	if err != nil {
		return "", fmt.Errorf("askpass %s: %w", prog, err)
	}
	line, _, _ := strings.Cut(string(out), "\n")
	return strings.TrimSuffix(line, "\r"), nil
}

// resolveRef finds want among a repository's refs, in git's order: a full
// ref name, a tag, a branch. The empty ref is the default branch (what HEAD
// names). Otherwise want must look like a commit hash; name is then empty.
// display is the ref as the lockfile records it.
func resolveRef(refs []*plumbing.Reference, want string) (name plumbing.ReferenceName, tip plumbing.Hash, display string, err error) {
	byName := map[plumbing.ReferenceName]*plumbing.Reference{}
	for _, r := range refs {
		byName[r.Name()] = r
	}
	peeled := func(n plumbing.ReferenceName) plumbing.Hash {
		if p := byName[n+"^{}"]; p != nil {
			return p.Hash()
		}
		return byName[n].Hash()
	}
	if want == "" {
		head := byName[plumbing.HEAD]
		switch {
		case head == nil:
			return "", plumbing.ZeroHash, "", errors.New("the repository has no default branch (HEAD); name a ref with #REF")
		case head.Type() == plumbing.SymbolicReference && byName[head.Target()] != nil:
			t := head.Target()
			return t, peeled(t), t.Short(), nil
		case head.Type() == plumbing.SymbolicReference:
			return "", plumbing.ZeroHash, "", fmt.Errorf("the default branch %s has no commit yet", head.Target().Short())
		default:
			return "", plumbing.ZeroHash, "", errors.New("the default branch cannot be told (HEAD is detached); name a ref with #REF")
		}
	}
	for _, n := range []plumbing.ReferenceName{
		plumbing.ReferenceName(want), plumbing.NewTagReferenceName(want), plumbing.NewBranchReferenceName(want),
	} {
		if strings.HasPrefix(n.String(), "refs/") && byName[n] != nil {
			return n, peeled(n), want, nil
		}
	}
	if len(want) >= 4 && len(want) <= 40 && isLowerHex(strings.ToLower(want)) {
		return "", plumbing.ZeroHash, strings.ToLower(want), nil
	}
	var branches, tags []string
	for n := range byName {
		switch {
		case n.IsBranch():
			branches = append(branches, n.Short())
		case n.IsTag() && !strings.HasSuffix(n.String(), "^{}"):
			tags = append(tags, n.Short())
		}
	}
	slices.Sort(branches)
	slices.Sort(tags)
	return "", plumbing.ZeroHash, "", fmt.Errorf("ref %q not found (branches: %s; tags: %s)", want, some(branches), some(tags))
}

func some(names []string) string {
	switch {
	case len(names) == 0:
		return "none"
	case len(names) > 10:
		return fmt.Sprintf("%s and %d more", strings.Join(names[:10], ", "), len(names)-10)
	}
	return strings.Join(names, ", ")
}

// peelCommit follows annotated tags to the commit h names.
func peelCommit(repo *git.Repository, h plumbing.Hash) (*object.Commit, error) {
	for range 10 {
		obj, err := repo.Object(plumbing.AnyObject, h)
		if err != nil {
			return nil, err
		}
		switch o := obj.(type) {
		case *object.Commit:
			return o, nil
		case *object.Tag:
			h = o.Target
		default:
			return nil, fmt.Errorf("%s is a %s, not a commit", h, obj.Type())
		}
	}
	return nil, fmt.Errorf("%s: tags nested too deep", h)
}

// redact keeps a secret out of an error's text; errors.Is and As still see
// the error it wraps.
func redact(err error, secret string) error {
	if err == nil || secret == "" || !strings.Contains(err.Error(), secret) {
		return err
	}
	return redacted{err, secret}
}

type redacted struct {
	err    error
	secret string
}

func (r redacted) Error() string { return strings.ReplaceAll(r.err.Error(), r.secret, "***") }
func (r redacted) Unwrap() error { return r.err }
