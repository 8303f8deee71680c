package skillinstall

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/helios-agents/helios/caps/agentplugins"
)

// PluginConfig says which plugins root a Plugins installer manages.
type PluginConfig struct {
	// Root holds one folder per plugin and PluginStateFile. Required.
	Root string
	// GitHub is as [Config.GitHub].
	GitHub string
	// Tree is as [Config.Tree]: the work dir of a project root.
	Tree string
}

// UserPluginConfig is the user root, ~/.helios/plugins (HOME decides).
func UserPluginConfig() (PluginConfig, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return PluginConfig{}, fmt.Errorf("user plugins root: %w", err)
	}
	return PluginConfig{Root: filepath.Join(home, ".helios", "plugins")}, nil
}

// ProjectPluginConfig is the project root of workDir, <workDir>/.helios/plugins.
func ProjectPluginConfig(workDir string) PluginConfig {
	return PluginConfig{Root: filepath.Join(workDir, ".helios", "plugins"), Tree: workDir}
}

// Plugins installs agent plugins (bundles of skills, commands, agents,
// hooks and MCP servers) into one root, as verbatim copies of their
// folders, and keeps the root's state file. Its commands on one root
// exclude each other, also across processes.
type Plugins struct {
	root, github, tree string
}

// NewPlugins returns a Plugins installer for cfg.
func NewPlugins(cfg PluginConfig) (*Plugins, error) {
	if cfg.Root == "" {
		return nil, errors.New("new plugin installer: PluginConfig needs Root")
	}
	root, err := filepath.Abs(cfg.Root)
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
	return &Plugins{root: root, github: github, tree: tree}, nil
}

// Root is the plugins root.
func (p *Plugins) Root() string { return p.root }

// StateFile is the root's helios-plugins.json.
func (p *Plugins) StateFile() string { return filepath.Join(p.root, PluginStateFile) }

// PluginParts counts what a plugin brings, by part.
type PluginParts struct {
	Skills     []string `json:"skills"`
	Commands   []string `json:"commands"`
	Agents     []string `json:"agents"`
	Hooks      bool     `json:"hooks"`
	MCPServers []string `json:"mcpServers"`
	Executable string   `json:"executable,omitempty"`
}

// PluginOffer is one plugin a source offers, staged and read.
type PluginOffer struct {
	Name        string      `json:"name"`
	Marketplace string      `json:"marketplace,omitempty"`
	Description string      `json:"description,omitempty"`
	Version     string      `json:"version,omitempty"`
	Dialect     string      `json:"dialect"`
	Source      string      `json:"source"`
	Ref         string      `json:"ref"`
	Commit      string      `json:"commit"`
	Path        string      `json:"path"`
	Parts       PluginParts `json:"parts"`
	// Runs is what the plugin's hooks, MCP servers and executable run, as
	// shown for approval; RunDigest its digest.
	Runs      []string `json:"runs"`
	RunDigest string   `json:"runDigest"`
	// Warnings name each part that cannot load, and why.
	Warnings []string `json:"warnings"`
}

// PluginChange is what a command did to one plugin.
type PluginChange struct {
	PluginOffer
	Action Action `json:"action"`
	From   string `json:"from,omitempty"`
	Dir    string `json:"dir"`
	// Approved says whether the parts that run code are on.
	Approved bool `json:"approved"`
	// ApprovalDropped is set when an update changed what runs.
	ApprovalDropped bool `json:"approvalDropped,omitempty"`
	// Changes name, per part, what an update added, removed or changed.
	Changes []string `json:"changes,omitempty"`
}

// PluginResult is what a command did to the root.
type PluginResult struct {
	Root     string         `json:"root"`
	State    string         `json:"state"`
	Plugins  []PluginChange `json:"plugins"`
	Warnings []string       `json:"warnings"`
	Skipped  []Skip         `json:"skipped"`
}

// Approver decides, for a plugin whose parts run code, whether they may:
// it is shown the commands. nil approves nothing.
type Approver func(name string, runs []string) bool

// PluginInstallOptions tune Install.
type PluginInstallOptions struct {
	// Plugins are the names to install from a marketplace; "*" is every
	// one. Empty installs a source that is one plugin, and refuses a
	// marketplace (it names its plugins).
	Plugins []string
	Approve Approver
}

// candidate is a plugin folder of a checkout, before staging.
type candidate struct {
	name, marketplace string
	co                *checkout
	path              string // slash path in the repository, "." for the root
	marketAt          string // the marketplace's folder, when the plugin lies in its repository
}

// marketplaceFiles are where a marketplace is declared, relative to the
// repository folder the source names, each with where agentplugins reads
// it: GitHub Copilot's .github/plugin/marketplace.json has Claude Code's
// shape, and is read as Claude's file when the repository has none.
var marketplaceFiles = []struct{ at, as string }{
	{".claude-plugin/marketplace.json", ".claude-plugin/marketplace.json"},
	{".agents/plugins/marketplace.json", ".agents/plugins/marketplace.json"},
	{".codex-plugin/marketplace.json", ".codex-plugin/marketplace.json"},
	{".github/plugin/marketplace.json", ".claude-plugin/marketplace.json"},
}

// candidates reads what spec offers: the entries of its marketplace, or
// the one plugin it is. Entries whose source is another repository are
// fetched; one that cannot be is a warning naming it.
func (p *Plugins) candidates(ctx context.Context, fetch *fetcher, spec string) ([]candidate, bool, []string, error) {
	src, ref, sub, err := parseArg(spec, p.github)
	if err != nil {
		return nil, false, nil, err
	}
	if r, s := splitSpec(spec); s != "" && ref == "" {
		if src, ref, sub, err = parseArg(r, p.github); err != nil {
			return nil, false, nil, err
		}
		ref = s
	}
	co, err := fetch.newest(ctx, src, ref)
	if err != nil {
		return nil, false, nil, err
	}
	top := "."
	if sub != "" {
		top = sub
	}
	tree, err := subtree(co, top)
	if err != nil {
		return nil, false, nil, err
	}
	market, entries, mwarns, isMarket, err := readMarketplace(co, top, tree)
	if err != nil {
		return nil, isMarket, nil, err
	}
	if !isMarket {
		return []candidate{{co: co, path: top, name: pluginFolderName(co, top)}}, false, nil, nil
	}
	var warns []string
	for _, w := range mwarns {
		warns = append(warns, w.String())
	}
	var out []candidate
	for _, e := range entries {
		c := candidate{name: e.Name, marketplace: market}
		if e.Source.URL == "" {
			rel := path.Clean(strings.TrimPrefix(filepath.ToSlash(e.Source.Path), "./"))
			if rel != "." && !cleanRel(rel) {
				warns = append(warns, fmt.Sprintf("plugin %s (marketplace %s): source path %q leaves the marketplace's repository; not installed", e.Name, market, e.Source.Path))
				continue
			}
			c.co, c.path, c.marketAt = co, path.Clean(path.Join(top, rel)), top
			out = append(out, c)
			continue
		}
		esrc, eref, esub, err := parseArg(e.Source.URL, p.github)
		if err == nil {
			if e.Source.Ref != "" {
				eref = e.Source.Ref
			}
			if e.Source.SubPath != "" {
				esub = path.Clean(strings.TrimPrefix(e.Source.SubPath, "./"))
			}
			c.co, err = fetch.newest(ctx, esrc, eref)
		}
		if err != nil {
			warns = append(warns, fmt.Sprintf("plugin %s (marketplace %s): source %s is unreachable: %v; not installed", e.Name, market, e.Source.URL, err))
			continue
		}
		c.path = "."
		if esub != "" && esub != "." {
			c.path = esub
		}
		out = append(out, c)
	}
	return out, true, warns, nil
}

// readMarketplace reads the marketplace of co's folder top (tree), if it
// holds one: its name, entries and warnings.
func readMarketplace(co *checkout, top string, tree *object.Tree) (string, []agentplugins.MarketplaceEntry, []agentplugins.Warning, bool, error) {
	tmp, err := os.MkdirTemp("", "helios-marketplace-")
	if err != nil {
		return "", nil, nil, false, err
	}
	defer os.RemoveAll(tmp)
	isMarket := false
	for _, mf := range marketplaceFiles {
		f, err := tree.File(mf.at)
		if err != nil {
			continue
		}
		dst := filepath.Join(tmp, filepath.FromSlash(mf.as))
		if exists(dst) {
			continue
		}
		data, err := readBlob(co, f.Hash, 4<<20)
		if err != nil {
			return "", nil, nil, false, fmt.Errorf("marketplace %s in %s: %w", mf.at, co.at(), err)
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return "", nil, nil, false, err
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			return "", nil, nil, false, err
		}
		isMarket = true
	}
	if !isMarket {
		return "", nil, nil, false, nil
	}
	market, entries, mwarns, err := agentplugins.ReadMarketplace(tmp)
	if err != nil {
		return "", nil, nil, true, fmt.Errorf("marketplace of %s: %w", co.at(), err)
	}
	return market, entries, mwarns, true, nil
}

// pluginFolderName is what a bare plugin folder is named after: its own
// folder, or the repository for its root.
func pluginFolderName(co *checkout, p string) string {
	if p == "." || p == "" {
		return co.src.name()
	}
	return path.Base(p)
}

func subtree(co *checkout, p string) (*object.Tree, error) {
	root, err := co.commit.Tree()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", co.at(), err)
	}
	if p == "." || p == "" {
		return root, nil
	}
	t, err := root.Tree(p)
	if err != nil {
		return nil, fmt.Errorf("no folder %s in %s", p, co.at())
	}
	return t, nil
}

// stage writes the plugin folder of c under dir/<c.name> and reads it as
// agentplugins does once installed. It returns the offer and the file
// digests; a folder that cannot be installed (a path escaping it, a
// symlink out, too large) is an error naming the plugin and the file.
func stage(c candidate, dir string) (PluginOffer, map[string]string, string, error) {
	t, err := subtree(c.co, c.path)
	if err != nil {
		return PluginOffer{}, nil, "", fmt.Errorf("plugin %s: %w", c.name, err)
	}
	files, err := plan(c.co, found{name: c.name, path: c.path, tree: t})
	if err != nil {
		return PluginOffer{}, nil, "", fmt.Errorf("plugin %s: %w", c.name, err)
	}
	name := c.name
	if err := checkName(name); err != nil {
		return PluginOffer{}, nil, "", fmt.Errorf("plugin %s: %w", c.name, err)
	}
	at := filepath.Join(dir, name)
	digests, err := write(c.co, files, at)
	if err != nil {
		return PluginOffer{}, nil, "", fmt.Errorf("plugin %s: %w", c.name, err)
	}
	o, err := describe(at, name)
	if err != nil {
		return PluginOffer{}, nil, "", err
	}
	o.Marketplace, o.Source, o.Ref, o.Commit, o.Path = c.marketplace, c.co.src.spec, c.co.ref, c.co.commit.Hash.String(), c.path
	return o, digests, at, nil
}

// describe reads an installed or staged plugin folder: its manifest, its
// parts and what it runs.
func describe(dir, name string) (PluginOffer, error) {
	m, warns, err := agentplugins.ReadPlugin(dir)
	if err != nil {
		return PluginOffer{}, fmt.Errorf("plugin %s: %w", name, err)
	}
	parts, w2 := agentplugins.Describe(dir, m)
	warns = append(warns, w2...)
	digest, runs, err := agentplugins.RunDigest(dir, parts)
	if err != nil {
		return PluginOffer{}, fmt.Errorf("plugin %s: %w", name, err)
	}
	o := PluginOffer{Name: name, Description: m.Description, Version: m.Version, Dialect: string(m.Dialect),
		Runs: runs, RunDigest: digest, Warnings: []string{}}
	if m.Name != "" && m.Name != name {
		o.Warnings = append(o.Warnings, fmt.Sprintf("plugin %s: its manifest names it %q; installed as %s", name, m.Name, name))
	}
	for _, w := range warns {
		o.Warnings = append(o.Warnings, w.String())
	}
	rel := func(ps []string) []string {
		out := []string{}
		for _, p := range ps {
			if r, err := filepath.Rel(dir, p); err == nil && filepath.IsAbs(p) {
				p = r
			}
			out = append(out, filepath.ToSlash(p))
		}
		slices.Sort(out)
		return out
	}
	o.Parts = PluginParts{Skills: skillFolders(dir, rel(parts.Skills)), Commands: rel(parts.Commands), Agents: rel(parts.Agents),
		Hooks: len(parts.Hooks) > 0 && string(parts.Hooks) != "null" && string(parts.Hooks) != "{}", MCPServers: []string{}}
	for s := range parts.MCPServers {
		o.Parts.MCPServers = append(o.Parts.MCPServers, s)
	}
	slices.Sort(o.Parts.MCPServers)
	if parts.Executable != "" {
		o.Parts.Executable = rel([]string{parts.Executable})[0]
	}
	if o.Runs == nil {
		o.Runs = []string{}
	}
	if pp := o.Parts; len(pp.Skills)+len(pp.Commands)+len(pp.Agents)+len(pp.MCPServers) == 0 && !pp.Hooks && pp.Executable == "" {
		o.Warnings = append(o.Warnings, fmt.Sprintf("plugin %s: loads nothing: no skills, commands, agents, hooks, MCP servers or executable in its folder", name))
	}
	return o, nil
}

// PluginListing is what List found in a source.
type PluginListing struct {
	Source      string        `json:"source"`
	Marketplace bool          `json:"marketplace"`
	Plugins     []PluginOffer `json:"plugins"`
	Warnings    []string      `json:"warnings"`
}

// List shows the plugins spec offers, each with its parts, and installs
// nothing.
func (p *Plugins) List(ctx context.Context, spec string) (PluginListing, error) {
	fetch := newFetcher()
	cands, market, warns, err := p.candidates(ctx, fetch, spec)
	if err != nil {
		return PluginListing{}, err
	}
	tmp, err := os.MkdirTemp("", "helios-plugin-list-")
	if err != nil {
		return PluginListing{}, err
	}
	defer os.RemoveAll(tmp)
	l := PluginListing{Source: spec, Marketplace: market, Plugins: []PluginOffer{}, Warnings: append([]string{}, warns...)}
	for i, c := range cands {
		o, _, _, err := stage(c, filepath.Join(tmp, fmt.Sprint(i)))
		if err != nil {
			l.Warnings = append(l.Warnings, err.Error())
			continue
		}
		l.Plugins = append(l.Plugins, o)
	}
	return l, nil
}

// pluginTxn is one command on a plugins root.
type pluginTxn struct {
	p       *Plugins
	fetch   *fetcher
	stage   string
	state   PluginState
	res     PluginResult
	staged  []string // plugin names whose folder is staged at stage/<name>
	removed []string
}

const pluginStagePrefix = ".helios-plugin-stage-"

// transact runs fn under the root's lock with the current state, then
// puts what fn staged in place and writes the state file. Whatever fails,
// the root and the state are left as they were.
func (p *Plugins) transact(ctx context.Context, fn func(*pluginTxn) error) (PluginResult, error) {
	guard := &Installer{root: p.root, lockFile: p.StateFile(), tree: p.tree}
	if err := guard.checkTree(); err != nil {
		return PluginResult{}, err
	}
	if err := os.MkdirAll(p.root, 0o755); err != nil {
		return PluginResult{}, err
	}
	unlock, err := lockDir(ctx, p.root)
	if err != nil {
		return PluginResult{}, err
	}
	defer unlock()
	st, err := ReadPluginState(p.StateFile())
	if err != nil {
		return PluginResult{}, err
	}
	if old, _ := filepath.Glob(filepath.Join(p.root, pluginStagePrefix+"*")); len(old) > 0 {
		for _, o := range old {
			os.RemoveAll(o)
		}
	}
	stageDir, err := os.MkdirTemp(p.root, pluginStagePrefix)
	if err != nil {
		return PluginResult{}, err
	}
	defer os.RemoveAll(stageDir)
	before, err := encodeState(st)
	if err != nil {
		return PluginResult{}, err
	}
	tx := &pluginTxn{p: p, fetch: newFetcher(), stage: stageDir, state: st,
		res: PluginResult{Root: p.root, State: p.StateFile(), Plugins: []PluginChange{}, Warnings: []string{}, Skipped: []Skip{}}}
	if err := fn(tx); err != nil {
		return PluginResult{}, err
	}
	if err := tx.commit(before); err != nil {
		return PluginResult{}, err
	}
	return tx.res, nil
}

// commit moves the staged plugins in (exchanging each with its old
// folder), the removed ones out, and writes the state; on any failure it
// undoes the moves made.
func (tx *pluginTxn) commit(before []byte) (err error) {
	root := tx.p.root
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
				return fmt.Errorf("install plugin %s: %w", name, err)
			}
			undo = append(undo, func() error { return exchange(staged, dst) })
			continue
		}
		if err := renameNew(staged, dst); err != nil {
			return fmt.Errorf("install plugin %s: %w", name, err)
		}
		undo = append(undo, func() error { return os.Rename(dst, staged) })
	}
	for _, name := range tx.removed {
		src, out := filepath.Join(root, name), filepath.Join(tx.stage, "removed-"+name)
		if !exists(src) {
			continue
		}
		if err := os.Rename(src, out); err != nil {
			return fmt.Errorf("uninstall plugin %s: %w", name, err)
		}
		undo = append(undo, func() error { return os.Rename(out, src) })
	}
	if len(undo) > 0 {
		if err := syncDir(root); err != nil {
			return err
		}
	}
	after, err := encodeState(tx.state)
	if err != nil {
		return err
	}
	if string(after) == string(before) {
		return nil
	}
	if err := writeFileAtomic(tx.p.StateFile(), after); err != nil {
		return fmt.Errorf("write plugin state %s: %w", tx.p.StateFile(), err)
	}
	return nil
}

// stagePlugin stages c under the transaction's stage folder.
func (tx *pluginTxn) stagePlugin(c candidate) (PluginOffer, map[string]string, error) {
	dir, err := os.MkdirTemp(tx.stage, "new-")
	if err != nil {
		return PluginOffer{}, nil, err
	}
	o, digests, at, err := stage(c, dir)
	if err != nil {
		os.RemoveAll(dir)
		return PluginOffer{}, nil, err
	}
	if err := os.Rename(at, filepath.Join(tx.stage, o.Name)); err != nil {
		os.RemoveAll(dir)
		return PluginOffer{}, nil, fmt.Errorf("plugin %s: %w", o.Name, err)
	}
	os.RemoveAll(dir)
	tx.staged = append(tx.staged, o.Name)
	return o, digests, nil
}

// approval asks approve about what o runs, and returns the approval to
// record: a plugin that runs nothing needs none asked (its digest is
// recorded, so an update that makes it run something asks again).
func approval(o PluginOffer, approve Approver) *PluginApproval {
	if len(o.Runs) == 0 || approve != nil && approve(o.Name, o.Runs) {
		return &PluginApproval{Digest: o.RunDigest, Commands: append([]string{}, o.Runs...)}
	}
	return nil
}

func approved(e PluginLocked, o PluginOffer) bool {
	return e.Approved != nil && e.Approved.Digest != "" && e.Approved.Digest == o.RunDigest
}

// Install installs the plugins spec offers: the one plugin it is, or the
// marketplace entries opts.Plugins names. A plugin of the same name from
// another source or marketplace is refused naming both, a plugin that
// cannot be installed is skipped with a warning, and the others are
// installed; nothing half-installed remains.
func (p *Plugins) Install(ctx context.Context, spec string, opts PluginInstallOptions) (PluginResult, error) {
	return p.transact(ctx, func(tx *pluginTxn) error {
		cands, market, warns, err := p.candidates(ctx, tx.fetch, spec)
		if err != nil {
			return err
		}
		tx.res.Warnings = append(tx.res.Warnings, warns...)
		if market {
			if len(opts.Plugins) == 0 {
				names := make([]string, len(cands))
				for i, c := range cands {
					names[i] = c.name
				}
				return fmt.Errorf("%s is a marketplace of %d plugin(s) (%s): name the ones to install with --plugin NAME, or --plugin '*' for all", spec, len(cands), some(names))
			}
			all := slices.Contains(opts.Plugins, "*")
			var picked []candidate
			for _, c := range cands {
				if all || slices.Contains(opts.Plugins, c.name) {
					picked = append(picked, c)
				}
			}
			for _, n := range opts.Plugins {
				if n != "*" && !slices.ContainsFunc(cands, func(c candidate) bool { return c.name == n }) {
					return fmt.Errorf("marketplace %s offers no plugin %q", spec, n)
				}
			}
			cands = picked
		}
		for _, c := range cands {
			if _, ok := tx.state.Plugins[c.name]; !ok && exists(filepath.Join(p.root, c.name)) {
				tx.skip(c.name, fmt.Sprintf("plugin %s: %s holds a folder %s does not list; not installed (move it away first)", c.name, p.root, PluginStateFile))
				continue
			}
			if e, ok := tx.state.Plugins[c.name]; ok && (e.Marketplace != c.marketplace || e.Source != c.co.src.spec || e.Path != c.path) {
				tx.skip(c.name, fmt.Sprintf("plugin %s is already installed from %s (marketplace %q, path %s); refusing the one from %s (marketplace %q, path %s): uninstall it first",
					c.name, e.Source, e.Marketplace, e.Path, c.co.src.spec, c.marketplace, c.path))
				continue
			}
			o, digests, err := tx.stagePlugin(c)
			if err != nil {
				tx.skip(c.name, err.Error())
				continue
			}
			prev, had := tx.state.Plugins[o.Name]
			e := PluginLocked{Source: o.Source, Ref: o.Ref, Commit: o.Commit, Path: o.Path, Marketplace: o.Marketplace, MarketplaceAt: c.marketAt, Files: digests, Enabled: true}
			if had {
				e.Enabled, e.DisabledSkills = prev.Enabled, prev.DisabledSkills
			}
			if had && approved(prev, o) {
				e.Approved = prev.Approved
			} else {
				e.Approved = approval(o, opts.Approve)
			}
			tx.state.Plugins[o.Name] = e
			action := Installed
			if had {
				action = Reinstalled
			}
			tx.done(o, e, action, prev.Commit)
		}
		return nil
	})
}

// skip leaves a plugin out, with a warning.
func (tx *pluginTxn) skip(name, reason string) {
	tx.res.Skipped = append(tx.res.Skipped, Skip{Name: name, Reason: reason})
	tx.res.Warnings = append(tx.res.Warnings, reason)
}

func (tx *pluginTxn) done(o PluginOffer, e PluginLocked, a Action, from string) {
	tx.res.Warnings = append(tx.res.Warnings, o.Warnings...)
	tx.res.Plugins = append(tx.res.Plugins, PluginChange{PluginOffer: o, Action: a, From: from,
		Dir: filepath.Join(tx.p.root, o.Name), Approved: approved(e, o)})
}

// Reinstalled is an install over the same plugin from the same source.
const Reinstalled Action = "reinstalled"
