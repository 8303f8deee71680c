package mcpclient

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/text/unicode/norm"

	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/kernel/skills/skillfs"
)

// ErrDigestMismatch is wrapped by a load whose file does not have the
// digest the skill's manifest gives it.
var ErrDigestMismatch = errors.New("digest mismatch")

// skillFile is the name of a skill's instructions in its manifest.
const skillFile = "SKILL.md"

// Skills lists the server's skills, from skills/list: none unless it
// declared the skills extension, and none while it is down (a warning then
// says so). A skill is loaded from the server at each load, its files
// verified against their digests and written under the server's folder,
// which is the skill's base directory. The first call waits for the
// server's first start.
func (s *Server) Skills(ctx context.Context) (skills.Set, error) {
	src := s.SkillSource()
	x := s.ready(ctx)
	if x == nil {
		s.mu.Lock()
		down := s.state == StateDown
		s.mu.Unlock()
		if !down {
			return skills.Set{}, nil
		}
		return skills.Set{Warnings: []contract.Warning{{Source: src,
			Message: fmt.Sprintf("MCP server %q is unavailable: %s; its skills are missing until it is back", s.cfg.Name, s.unavailable())}}}, nil
	}
	if !x.skills {
		return skills.Set{}, nil
	}
	entries, err := s.listSkills(ctx, x)
	if err != nil {
		return skills.Set{Warnings: []contract.Warning{{Source: src, Message: fmt.Sprintf("MCP server %q: %s failed; its skills are missing: %v", s.cfg.Name, methodListSkills, err)}}}, nil
	}
	base, err := s.skillsDir()
	if err != nil {
		return skills.Set{Warnings: []contract.Warning{{Source: src, Message: fmt.Sprintf("MCP server %q: its skills are missing: %v", s.cfg.Name, err)}}}, nil
	}
	var set skills.Set
	for _, e := range entries {
		sk, warns, ok := s.skill(e, base)
		set.Warnings = append(set.Warnings, warns...)
		if ok {
			set.Skills = append(set.Skills, sk)
		}
	}
	return set, nil
}

// listSkills reads every page of skills/list.
func (s *Server) listSkills(ctx context.Context, x *session) ([]skillEntry, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.timeout())
	defer cancel()
	var out []skillEntry
	cursor := ""
	for range maxSkillPages {
		res, err := mcp.CallCustomMethod[*listSkillsParams, *listSkillsResult](ctx, x.cs, methodListSkills, &listSkillsParams{Cursor: cursor})
		if err != nil {
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				go s.suspectHang(x)
			}
			return nil, err
		}
		out = append(out, res.Skills...)
		if res.NextCursor == "" {
			return out, nil
		}
		cursor = res.NextCursor
	}
	return nil, fmt.Errorf("more than %d pages", maxSkillPages)
}

// skill turns an entry of skills/list into a skill of the catalog, or says
// why it is skipped.
func (s *Server) skill(e skillEntry, base string) (skills.Skill, []contract.Warning, bool) {
	src := s.SkillSource()
	warn := func(format string, a ...any) contract.Warning {
		return contract.Warning{Source: src, Path: e.URI, Message: fmt.Sprintf(format, a...)}
	}
	m, err := parseManifest(e)
	if err != nil {
		return skills.Skill{}, []contract.Warning{warn("skill skipped: %v", err)}, false
	}
	name, _ := e.Frontmatter["name"].(string)
	name = norm.NFKC.String(strings.TrimSpace(name))
	desc, _ := e.Frontmatter["description"].(string)
	desc = strings.TrimSpace(desc)
	var warns []contract.Warning
	switch {
	case name == "":
		name = m.folder
		warns = append(warns, warn("missing name; using the last segment of its URI, %q", name))
	case name != m.folder:
		warns = append(warns, warn("name %q differs from the last segment of its URI, %q", name, m.folder))
	}
	if desc == "" {
		return skills.Skill{}, append(warns, warn("skill %q skipped: missing or empty description (the model picks skills by their description)", name)), false
	}
	if !safeSegment(name) {
		return skills.Skill{}, append(warns, warn("skill %q skipped: its name cannot name a folder", name)), false
	}
	if err := skillfs.ValidateName(name); err != nil {
		warns = append(warns, warn("%v", err))
	}
	hidden, _ := e.Frontmatter["disable-model-invocation"].(bool)
	dir := filepath.Join(base, name)
	return skills.Skill{
		Name:                   name,
		Description:            desc,
		Source:                 src,
		BaseDir:                dir,
		DisableModelInvocation: hidden,
		Load:                   s.loader(e.URI, m.folder, dir),
	}, warns, true
}

// loader loads a skill from the server at every call: its entry from
// skills/get, then every file of its manifest, each verified against its
// digest and written under dir (files that did not change are not read
// again); files no longer listed are removed. A file whose content does not
// match its digest fails the load, naming the file.
func (s *Server) loader(uri, folder, dir string) func(context.Context) (skills.Content, error) {
	return func(ctx context.Context) (skills.Content, error) {
		x := s.current()
		if x == nil {
			return skills.Content{}, fmt.Errorf("MCP server %q: %s", s.cfg.Name, s.unavailable())
		}
		ctx, cancel := context.WithTimeout(ctx, s.cfg.timeout())
		defer cancel()
		res, err := mcp.CallCustomMethod[*getSkillParams, *getSkillResult](ctx, x.cs, methodGetSkill, &getSkillParams{URI: uri})
		if err != nil {
			return skills.Content{}, s.loadError(ctx, x, methodGetSkill+" "+uri, err)
		}
		m, err := parseManifest(res.Skill)
		if err != nil {
			return skills.Content{}, fmt.Errorf("MCP server %q: %s: %w", s.cfg.Name, uri, err)
		}
		data, err := s.fetch(ctx, x, m.files[0])
		if err != nil {
			return skills.Content{}, err
		}
		meta, body, findings := skillfs.ParseSkill(m.files[0].uri, folder, data)
		for _, f := range findings {
			if f.Severity == skillfs.Unusable {
				return skills.Content{}, fmt.Errorf("MCP server %q: %s: %s", s.cfg.Name, m.files[0].uri, f.Message)
			}
		}
		if err := s.materialize(ctx, x, dir, m, data); err != nil {
			return skills.Content{}, err
		}
		return skills.Content{Name: meta.Name, Body: body}, nil
	}
}

func (s *Server) loadError(ctx context.Context, x *session, op string, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		go s.suspectHang(x)
		return fmt.Errorf("MCP server %q: %s: no answer within %v (its timeout)", s.cfg.Name, op, s.cfg.timeout())
	}
	return fmt.Errorf("MCP server %q: %s: %w", s.cfg.Name, op, err)
}

// fetch reads one file of a skill and checks it against its digest.
func (s *Server) fetch(ctx context.Context, x *session, f manifestFile) ([]byte, error) {
	res, err := x.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: f.uri})
	if err != nil {
		return nil, s.loadError(ctx, x, "read "+f.uri, err)
	}
	var c *mcp.ResourceContents
	for _, rc := range res.Contents {
		if rc != nil && (c == nil || rc.URI == f.uri) {
			c = rc
		}
	}
	if c == nil {
		return nil, fmt.Errorf("MCP server %q: %s: the read returned no content", s.cfg.Name, f.uri)
	}
	data := c.Blob
	if c.Text != "" || data == nil {
		data = []byte(c.Text)
	}
	if len(data) > MaxSkillBytes {
		return nil, fmt.Errorf("MCP server %q: %s: %d bytes, over the limit of %d a skill", s.cfg.Name, f.rel, len(data), MaxSkillBytes)
	}
	if got := digest(data); got != f.digest {
		return nil, fmt.Errorf("MCP server %q: file %s of the skill (%s): %w: its manifest says %s, its content is %s", s.cfg.Name, f.rel, f.uri, ErrDigestMismatch, f.digest, got)
	}
	return data, nil
}

// materialize brings dir in line with the manifest: SKILL.md from data,
// every other file read from the server unless dir holds it with its digest
// already, files no longer listed removed. Writes go through an os.Root, so
// a symlink planted in dir cannot lead them out.
func (s *Server) materialize(ctx context.Context, x *session, dir string, m manifest, skillMD []byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("MCP server %q: skill folder: %w", s.cfg.Name, err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("MCP server %q: skill folder: %w", s.cfg.Name, err)
	}
	defer root.Close()
	keep := map[string]bool{}
	for i, f := range m.files {
		local := filepath.FromSlash(f.rel)
		keep[local] = true
		if old, err := root.ReadFile(local); err == nil && digest(old) == f.digest {
			continue
		}
		data := skillMD
		if i > 0 {
			if data, err = s.fetch(ctx, x, f); err != nil {
				return err
			}
		}
		if err := writeFile(root, local, data); err != nil {
			return fmt.Errorf("MCP server %q: write %s of the skill: %w", s.cfg.Name, f.rel, err)
		}
	}
	return fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !keep[filepath.FromSlash(p)] {
			root.Remove(p)
		}
		return nil
	})
}

// writeFile replaces name in root with data: written beside it, then
// renamed, so a reader never sees half a file.
func writeFile(root *os.Root, name string, data []byte) error {
	if d := filepath.Dir(name); d != "." {
		if err := root.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	tmp := filepath.Join(filepath.Dir(name), ".helios-tmp-"+filepath.Base(name))
	if err := root.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	if err := root.Rename(tmp, name); err != nil {
		root.RemoveAll(name) // a folder where the file goes now
		if err := root.Rename(tmp, name); err != nil {
			root.Remove(tmp)
			return err
		}
	}
	return nil
}

// skillsDir returns the folder the server's loaded skills are written to,
// making it at the first call.
func (s *Server) skillsDir() (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.skillDir != "" {
		return s.skillDir, nil
	}
	var dir string
	if s.sh.SkillDir != "" {
		dir = filepath.Join(s.sh.SkillDir, s.cfg.Name)
	} else {
		tmp, err := os.MkdirTemp("", "helios-mcp-")
		if err != nil {
			return "", err
		}
		dir = filepath.Join(tmp, s.cfg.Name)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	s.skillDir = abs
	return abs, nil
}

// manifest is a skill's entry, checked: SKILL.md first, then its other
// files by their path relative to the skill.
type manifest struct {
	uri    string // of SKILL.md
	folder string // the last segment of the skill's path: its name
	files  []manifestFile
}

type manifestFile struct {
	rel, uri, digest string
	size             int64
}

var digestRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^sha256:[0-9a-f]{64}$`) })

// parseManifest checks an entry: a URI ending in /SKILL.md, every file
// under the skill's path with a relative path that stays inside it and a
// sha256 digest, SKILL.md listed, and the extension's limits of files and
// bytes.
func parseManifest(e skillEntry) (manifest, error) {
	prefix, ok := strings.CutSuffix(e.URI, "/"+skillFile)
	if !ok || prefix == "" {
		return manifest{}, fmt.Errorf("its URI %q does not name a %s", e.URI, skillFile)
	}
	m := manifest{uri: e.URI}
	seg := prefix[strings.LastIndexByte(prefix, '/')+1:]
	folder, err := url.PathUnescape(seg)
	if err != nil || folder == "" {
		return manifest{}, fmt.Errorf("its URI %q does not end in a skill name", e.URI)
	}
	m.folder = folder
	if len(e.Resources) > MaxSkillFiles {
		return manifest{}, fmt.Errorf("%d files, over the limit of %d a skill", len(e.Resources), MaxSkillFiles)
	}
	var total int64
	seen := map[string]bool{}
	for _, r := range e.Resources {
		rest, ok := strings.CutPrefix(r.URI, prefix+"/")
		if !ok {
			return manifest{}, fmt.Errorf("file %s lies outside the skill %s", r.URI, prefix)
		}
		rel, err := relPath(rest)
		if err != nil {
			return manifest{}, fmt.Errorf("file %s: %w", r.URI, err)
		}
		if seen[rel] {
			return manifest{}, fmt.Errorf("file %s is listed twice", r.URI)
		}
		seen[rel] = true
		if !digestRE().MatchString(r.Digest) {
			return manifest{}, fmt.Errorf("file %s: digest %q is not sha256:<64 lowercase hex>", r.URI, r.Digest)
		}
		if r.Size < 0 {
			return manifest{}, fmt.Errorf("file %s: negative size", r.URI)
		}
		total += r.Size
		f := manifestFile{rel: rel, uri: r.URI, digest: r.Digest, size: r.Size}
		if rel == skillFile {
			m.files = append([]manifestFile{f}, m.files...)
		} else {
			m.files = append(m.files, f)
		}
	}
	switch {
	case !seen[skillFile]:
		return manifest{}, fmt.Errorf("its manifest does not list %s", e.URI)
	case total > MaxSkillBytes:
		return manifest{}, fmt.Errorf("%d bytes, over the limit of %d a skill", total, MaxSkillBytes)
	}
	return m, nil
}

// relPath unescapes a file's path relative to its skill and refuses one
// that would not stay inside the skill's folder.
func relPath(escaped string) (string, error) {
	segs := strings.Split(escaped, "/")
	for i, seg := range segs {
		u, err := url.PathUnescape(seg)
		if err != nil {
			return "", err
		}
		if !safeSegment(u) {
			return "", fmt.Errorf("path segment %q would not stay inside the skill", u)
		}
		segs[i] = u
	}
	return path.Join(segs...), nil
}

// safeSegment reports whether s can be one element of a path inside a
// folder.
func safeSegment(s string) bool {
	return s != "" && s != "." && s != ".." && len(s) <= 255 &&
		!strings.ContainsAny(s, "/\\\x00") && !strings.HasPrefix(s, ".helios-tmp-")
}

func digest(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// fileURI is the file:// URI of an absolute path.
func fileURI(p string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(p)}).String()
}
