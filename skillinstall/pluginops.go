package skillinstall

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/helios-agents/helios/kernel/skills/skillfs"
)

// PluginUpdateOptions tune Update.
type PluginUpdateOptions struct {
	// Force replaces local changes to a plugin's folder.
	Force bool
	// Approve is asked when an update changes what a plugin runs; without
	// its yes those parts stay off until `helios plugins approve`.
	Approve Approver
}

// selected returns the state's names asked for (all, sorted, when none
// are), refusing one the state does not hold.
func (tx *pluginTxn) selected(names []string) ([]string, error) {
	if len(names) == 0 {
		all := make([]string, 0, len(tx.state.Plugins))
		for n := range tx.state.Plugins {
			all = append(all, n)
		}
		slices.Sort(all)
		return all, nil
	}
	for _, n := range names {
		if _, ok := tx.state.Plugins[n]; !ok {
			return nil, fmt.Errorf("plugin %q is %w in %s", n, ErrNotLocked, tx.p.StateFile())
		}
	}
	return slices.Compact(slices.Clone(names)), nil
}

// unstage drops a staged plugin that turned out to be what is installed.
func (tx *pluginTxn) unstage(name string) {
	tx.staged = slices.DeleteFunc(tx.staged, func(n string) bool { return n == name })
	os.RemoveAll(filepath.Join(tx.stage, name))
}

// check compares the installed folder of name with the files of e.
func (tx *pluginTxn) check(name string, e PluginLocked) Check {
	return (&Installer{root: tx.p.root}).check(Locked{Name: name, Files: e.Files})
}

// Update moves plugins to the newest commit of their ref. A plugin whose
// files are what is installed is unchanged, whatever its version string
// says or does not; one that changed reports, per part, what was added,
// removed or changed, and when what it runs changed its approval is
// dropped (unless opts.Approve approves the new commands).
func (p *Plugins) Update(ctx context.Context, names []string, opts PluginUpdateOptions) (PluginResult, error) {
	return p.transact(ctx, func(tx *pluginTxn) error {
		sel, err := tx.selected(names)
		if err != nil {
			return err
		}
		for _, name := range sel {
			e := tx.state.Plugins[name]
			if c := tx.check(name, e); !c.OK && !opts.Force {
				tx.skip(name, fmt.Sprintf("plugin %s has local changes (%s): not updated; helios plugins verify lists them, --force replaces them", name, c.summary()))
				continue
			}
			src, err := parseSource(e.Source)
			if err != nil {
				return fmt.Errorf("plugin %s: %w", name, err)
			}
			co, err := tx.fetch.newest(ctx, src, e.Ref)
			if err != nil {
				tx.skip(name, fmt.Sprintf("plugin %s: %v; not updated", name, err))
				continue
			}
			dir := filepath.Join(p.root, name)
			old, err := describe(dir, name)
			if err != nil {
				old = PluginOffer{Name: name}
			}
			at, moved, err := movedIn(co, name, e)
			if err != nil {
				tx.skip(name, fmt.Sprintf("plugin %s: %v; not updated", name, err))
				continue
			}
			o, digests, err := tx.stagePlugin(candidate{name: name, marketplace: e.Marketplace, co: co, path: at})
			if err != nil {
				tx.skip(name, err.Error()+"; not updated")
				continue
			}
			e.Path = at
			if sameFiles(digests, e.Files) {
				tx.unstage(name)
				e.Commit = o.Commit
				tx.state.Plugins[name] = e
				tx.done(o, e, Unchanged, "")
				if moved != "" {
					tx.res.Plugins[len(tx.res.Plugins)-1].Changes = []string{moved}
				}
				continue
			}
			from := e.Commit
			n := e
			n.Commit, n.Files = o.Commit, digests
			dropped := false
			switch {
			case approved(e, o):
			case len(o.Runs) == 0 || opts.Approve != nil && opts.Approve(name, o.Runs):
				n.Approved = approval(o, opts.Approve)
			default:
				dropped = e.Approved != nil && e.Approved.Digest != ""
				n.Approved = nil
			}
			tx.state.Plugins[name] = n
			tx.done(o, n, Updated, from)
			ch := &tx.res.Plugins[len(tx.res.Plugins)-1]
			ch.ApprovalDropped = dropped
			ch.Changes = partChanges(old, o, e.Files, digests)
			if moved != "" {
				ch.Changes = append([]string{moved}, ch.Changes...)
			}
		}
		return nil
	})
}

// movedIn is where plugin name of e lies in co: for a plugin of its
// marketplace's own repository, where the marketplace there lists it now
// (and "moved: <old> → <new>" when that is not e.Path); else e.Path. A
// marketplace that no longer lists it, or lists it from another
// repository, is an error: the plugin is not updated.
func movedIn(co *checkout, name string, e PluginLocked) (string, string, error) {
	if e.Marketplace == "" || e.MarketplaceAt == "" {
		return e.Path, "", nil
	}
	tree, err := subtree(co, e.MarketplaceAt)
	if err != nil {
		return "", "", fmt.Errorf("marketplace %s: %w", e.Marketplace, err)
	}
	market, entries, _, isMarket, err := readMarketplace(co, e.MarketplaceAt, tree)
	if err != nil {
		return "", "", err
	}
	if !isMarket || market != e.Marketplace {
		return "", "", fmt.Errorf("no marketplace %q in %s at %s any more", e.Marketplace, co.at(), e.MarketplaceAt)
	}
	for _, me := range entries {
		if me.Name != name {
			continue
		}
		if me.Source.URL != "" {
			return "", "", fmt.Errorf("marketplace %s now takes it from %s, another repository: uninstall it and install it from there", e.Marketplace, me.Source.URL)
		}
		rel := path.Clean(strings.TrimPrefix(filepath.ToSlash(me.Source.Path), "./"))
		if rel != "." && !cleanRel(rel) {
			return "", "", fmt.Errorf("marketplace %s: source path %q leaves the marketplace's repository", e.Marketplace, me.Source.Path)
		}
		at := path.Clean(path.Join(e.MarketplaceAt, rel))
		if at == e.Path {
			return at, "", nil
		}
		return at, "moved: " + e.Path + " → " + at, nil
	}
	return "", "", fmt.Errorf("marketplace %s no longer lists it", e.Marketplace)
}

// partChanges names, per part, what differs between two versions of a
// plugin: skills, commands and agents added, removed or with a changed
// file; hooks and MCP servers changed.
func partChanges(old, now PluginOffer, was, is map[string]string) []string {
	var out []string
	differs := func(prefix string, file bool) bool {
		for _, m := range []map[string]string{was, is} {
			for f := range m {
				if (file && f == prefix || !file && (prefix == "." || strings.HasPrefix(f, prefix+"/"))) && was[f] != is[f] {
					return true
				}
			}
		}
		return false
	}
	for _, k := range []struct {
		part     string
		old, now []string
		file     bool
	}{{"skills", old.Parts.Skills, now.Parts.Skills, false}, {"commands", old.Parts.Commands, now.Parts.Commands, true}, {"agents", old.Parts.Agents, now.Parts.Agents, true}} {
		var added, removed, changed []string
		for _, x := range k.now {
			if !slices.Contains(k.old, x) {
				added = append(added, x)
			} else if differs(x, k.file) {
				changed = append(changed, x)
			}
		}
		for _, x := range k.old {
			if !slices.Contains(k.now, x) {
				removed = append(removed, x)
			}
		}
		for _, c := range []struct {
			what string
			xs   []string
		}{{"added", added}, {"removed", removed}, {"changed", changed}} {
			if len(c.xs) > 0 {
				out = append(out, fmt.Sprintf("%s %s: %s", k.part, c.what, strings.Join(c.xs, ", ")))
			}
		}
	}
	if old.RunDigest != now.RunDigest {
		out = append(out, "hooks/MCP servers/executable changed: "+list(now.Runs))
	}
	return out
}

func list(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return strings.Join(xs, "; ")
}

// Sync installs exactly the locked commits, each file checked against its
// digest; a plugin already as locked is unchanged.
func (p *Plugins) Sync(ctx context.Context) (PluginResult, error) {
	return p.transact(ctx, func(tx *pluginTxn) error {
		sel, _ := tx.selected(nil)
		for _, name := range sel {
			e := tx.state.Plugins[name]
			src, err := parseSource(e.Source)
			if err != nil {
				return fmt.Errorf("plugin %s: %w", name, err)
			}
			co, err := tx.fetch.exact(ctx, src, e.Ref, e.Commit)
			if err != nil {
				return fmt.Errorf("plugin %s: %w", name, err)
			}
			if c := tx.check(name, e); c.OK {
				o, err := describe(filepath.Join(p.root, name), name)
				if err != nil {
					return err
				}
				o.Source, o.Ref, o.Commit, o.Path, o.Marketplace = e.Source, e.Ref, e.Commit, e.Path, e.Marketplace
				tx.done(o, e, Unchanged, "")
				continue
			}
			o, digests, err := tx.stagePlugin(candidate{name: name, marketplace: e.Marketplace, co: co, path: e.Path})
			if err != nil {
				return err
			}
			if !sameFiles(digests, e.Files) {
				return fmt.Errorf("plugin %s: %s path %s does not hold the locked files (%s); nothing synced", name, co.at(), e.Path,
					(&Check{Changed: diffKeys(e.Files, digests)}).summary())
			}
			a := Installed
			if exists(filepath.Join(p.root, name)) {
				a = Restored
			}
			tx.done(o, e, a, "")
		}
		return nil
	})
}

// diffKeys names the files whose digests differ between a and b.
func diffKeys(a, b map[string]string) []string {
	var out []string
	for _, m := range []map[string]string{a, b} {
		for k := range m {
			if a[k] != b[k] && !slices.Contains(out, k) {
				out = append(out, k)
			}
		}
	}
	slices.Sort(out)
	return out
}

// PluginReport is what VerifyPlugins found.
type PluginReport struct {
	Root    string  `json:"root"`
	State   string  `json:"state"`
	OK      bool    `json:"ok"`
	Plugins []Check `json:"plugins"`
}

// Verify compares every installed plugin's folder with its locked files.
func (p *Plugins) Verify(ctx context.Context) (PluginReport, error) {
	st, err := ReadPluginState(p.StateFile())
	if err != nil {
		return PluginReport{}, fmt.Errorf("verify: %w", err)
	}
	r := PluginReport{Root: p.root, State: p.StateFile(), OK: true, Plugins: []Check{}}
	names := make([]string, 0, len(st.Plugins))
	for n := range st.Plugins {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		if err := ctx.Err(); err != nil {
			return PluginReport{}, err
		}
		c := (&Installer{root: p.root}).check(Locked{Name: n, Files: st.Plugins[n].Files})
		r.OK = r.OK && c.OK
		r.Plugins = append(r.Plugins, c)
	}
	return r, nil
}

// Uninstall deletes plugins' folders and their state entries.
func (p *Plugins) Uninstall(ctx context.Context, names []string) (PluginResult, error) {
	return p.transact(ctx, func(tx *pluginTxn) error {
		sel, err := tx.selected(names)
		if err != nil {
			return err
		}
		for _, n := range sel {
			e := tx.state.Plugins[n]
			delete(tx.state.Plugins, n)
			tx.remove(n)
			tx.res.Plugins = append(tx.res.Plugins, PluginChange{PluginOffer: PluginOffer{Name: n, Source: e.Source, Ref: e.Ref, Commit: e.Commit, Path: e.Path, Marketplace: e.Marketplace},
				Action: Removed, Dir: filepath.Join(p.root, n)})
		}
		return nil
	})
}

func (tx *pluginTxn) remove(name string) { tx.removed = append(tx.removed, name) }

// SetEnabled turns a plugin on or off as a whole.
func (p *Plugins) SetEnabled(ctx context.Context, name string, on bool) (PluginResult, error) {
	return p.edit(ctx, name, func(e *PluginLocked, _ PluginOffer) error {
		e.Enabled = on
		return nil
	})
}

// SetSkill turns one skill of a plugin off (on=false) or back on. A name
// the plugin has no skill of is an error listing the ones it has.
func (p *Plugins) SetSkill(ctx context.Context, name, skill string, on bool) (PluginResult, error) {
	return p.edit(ctx, name, func(e *PluginLocked, o PluginOffer) error {
		have := skillNames(filepath.Join(p.root, name), o.Parts.Skills)
		if !slices.Contains(have, skill) && !slices.Contains(e.DisabledSkills, skill) {
			return fmt.Errorf("plugin %s has no skill %q (its skills: %s)", name, skill, list(have))
		}
		e.DisabledSkills = slices.DeleteFunc(e.DisabledSkills, func(s string) bool { return s == skill })
		if !on {
			e.DisabledSkills = append(e.DisabledSkills, skill)
		}
		return nil
	})
}

// Approve records the approval of what a plugin runs now.
func (p *Plugins) Approve(ctx context.Context, name string) (PluginResult, error) {
	return p.edit(ctx, name, func(e *PluginLocked, o PluginOffer) error {
		e.Approved = &PluginApproval{Digest: o.RunDigest, Commands: append([]string{}, o.Runs...)}
		return nil
	})
}

// edit changes one plugin's state entry and reports the plugin.
func (p *Plugins) edit(ctx context.Context, name string, fn func(*PluginLocked, PluginOffer) error) (PluginResult, error) {
	return p.transact(ctx, func(tx *pluginTxn) error {
		if _, err := tx.selected([]string{name}); err != nil {
			return err
		}
		e := tx.state.Plugins[name]
		o, err := describe(filepath.Join(p.root, name), name)
		if err != nil {
			return err
		}
		if err := fn(&e, o); err != nil {
			return err
		}
		tx.state.Plugins[name] = e
		o.Source, o.Ref, o.Commit, o.Path, o.Marketplace = e.Source, e.Ref, e.Commit, e.Path, e.Marketplace
		tx.done(o, e, Unchanged, "")
		return nil
	})
}

// skillFolders are the skill folders (slash paths relative to dir) under
// the skill roots of a plugin: a root holding a SKILL.md is one skill,
// otherwise each child folder holding one is.
func skillFolders(dir string, roots []string) []string {
	out := []string{}
	for _, r := range roots {
		root := filepath.Join(dir, filepath.FromSlash(r))
		if _, err := os.Stat(filepath.Join(root, "SKILL.md")); err == nil {
			out = append(out, r)
			continue
		}
		es, _ := os.ReadDir(root)
		for _, de := range es {
			if _, err := os.Stat(filepath.Join(root, de.Name(), "SKILL.md")); err == nil && de.IsDir() {
				out = append(out, join(r, de.Name()))
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// skillNames are the frontmatter names of the skills under the skill
// roots of a plugin (slash paths relative to dir): a root holding a
// SKILL.md is one skill, otherwise each child folder holding one is.
func skillNames(dir string, roots []string) []string {
	var out []string
	one := func(folder string) {
		data, err := os.ReadFile(filepath.Join(folder, "SKILL.md"))
		if err != nil {
			return
		}
		meta, _, _ := skillfs.ParseSkill(filepath.Join(folder, "SKILL.md"), filepath.Base(folder), data)
		if meta.Name != "" {
			out = append(out, meta.Name)
		}
	}
	for _, r := range roots {
		root := filepath.Join(dir, filepath.FromSlash(r))
		if _, err := os.Stat(filepath.Join(root, "SKILL.md")); err == nil {
			one(root)
			continue
		}
		es, _ := os.ReadDir(root)
		for _, de := range es {
			if de.IsDir() {
				one(filepath.Join(root, de.Name()))
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
