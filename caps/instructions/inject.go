package instructions

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"

	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/session"
)

var (
	_ kernel.Injector       = (*Capability)(nil)
	_ contract.SessionEnder = (*Capability)(nil)
)

// Provenance names the instructions' messages in the session log.
const Provenance = "instructions"

// The Meta keys of an instructions message: what the model has read after
// it, so a session (resumed too) knows what changed without rereading the
// log.
const (
	// filesKey is a JSON object: each file in effect → the digest of its
	// text.
	filesKey = "instructions.files"
	// nestedKey is a JSON array: the folders below the work dir whose
	// files were appended, relative to the work dir.
	nestedKey = "instructions.nested"
)

// Inject decides, before a model request, what the model needs (it
// implements kernel.Injector):
//
//   - no instructions message yet: the instructions, once there are any;
//   - compaction hid the newest one: the instructions again, with the
//     nested folders' files loaded before;
//   - a loaded file changed, appeared, or is no longer in effect: an update
//     naming exactly those, appended; the first message is never touched;
//   - a tool touched a file in a folder below the work dir whose own
//     instruction file is not loaded: that file, appended once.
func (c *Capability) Inject(ctx context.Context, log session.Log) ([]session.Event, error) {
	c.mu.Lock()
	since := c.looked[log.ID()]
	c.mu.Unlock()
	prev, nested, ok, hidden, touched := lastState(log, since)
	if n := log.Len(); n > 0 {
		c.mu.Lock()
		c.looked[log.ID()] = log.At(n - 1).Seq
		c.mu.Unlock()
	}
	l := c.newLoader()
	res := l.budget(l.base())
	for _, d := range c.touchedDirs(touched) {
		if !slices.Contains(nested, d) {
			nested = append(nested, d)
		}
	}
	var nestedFiles []File
	for _, d := range nested {
		nestedFiles = append(nestedFiles, l.dir(filepath.Join(c.workDir, d))...)
	}
	c.log(l.warns)
	if !ok || hidden {
		// The first message, or again once compaction hid what was sent.
		reason, nestedReason := "session_start", "nested_traversal"
		if hidden {
			reason, nestedReason = "compact", "compact"
		}
		res.Message = renderFirst(res)
		if res.Message == "" && len(nestedFiles) == 0 {
			return nil, nil
		}
		var evs []session.Event
		state := map[string]string{}
		if res.Message != "" {
			for _, f := range res.Files {
				if f.State == Included {
					state[f.Path] = digest(f.text)
				}
			}
			evs = append(evs, event(res.Message, state, nil))
			c.loaded(ctx, log.ID(), res.Files, reason)
		}
		if len(nestedFiles) > 0 {
			for _, f := range nestedFiles {
				state[f.Path] = digest(f.text)
			}
			evs = append(evs, event(renderUpdate(nestedFiles, nil, true), state, nested))
			c.loaded(ctx, log.ID(), nestedFiles, nestedReason)
		}
		return evs, nil
	}

	now := map[string]string{}
	var changed []File
	for _, f := range res.Files {
		if f.State != Included {
			continue
		}
		d := digest(f.text)
		now[f.Path] = d
		if prev[f.Path] != d {
			changed = append(changed, f)
		}
	}
	isNested := false
	var fresh []File
	for _, f := range nestedFiles {
		d := digest(f.text)
		now[f.Path] = d
		if prev[f.Path] != d {
			changed = append(changed, f)
			isNested = true
		}
		if _, seen := prev[f.Path]; !seen {
			fresh = append(fresh, f)
		}
	}
	var removed []string
	for p := range prev {
		if _, ok := now[p]; !ok {
			removed = append(removed, p)
		}
	}
	if len(changed) == 0 && len(removed) == 0 {
		return nil, nil
	}
	slices.Sort(removed)
	c.loaded(ctx, log.ID(), fresh, "nested_traversal")
	return []session.Event{event(renderUpdate(changed, removed, isNested), now, nested)}, nil
}

// loaded tells OnLoaded of the included files among files.
func (c *Capability) loaded(ctx context.Context, sessionID string, files []File, reason string) {
	if c.cfg.OnLoaded == nil {
		return
	}
	in := kernel.InstructionsLoadedIn{SessionID: sessionID}
	for _, f := range files {
		if f.State != Included {
			continue
		}
		typ := "Project"
		switch {
		case filepath.Base(f.abs) == localName:
			typ = "Local"
		case strings.HasPrefix(f.Path, "~/"):
			typ = "User"
		}
		in.Files = append(in.Files, kernel.InstructionFile{Path: f.abs, MemoryType: typ, LoadReason: reason})
	}
	if len(in.Files) > 0 {
		c.cfg.OnLoaded(ctx, in)
	}
}

func event(text string, files map[string]string, nested []string) session.Event {
	f, _ := json.Marshal(files)
	meta := map[string]string{filesKey: string(f)}
	if len(nested) > 0 {
		n, _ := json.Marshal(nested)
		meta[nestedKey] = string(n)
	}
	return session.Event{Type: session.Injected, Provenance: Provenance, Text: text, Meta: meta}
}

// lastState scans the log backwards to the newest instructions message:
// the files it left in effect, the nested folders loaded, whether there
// was one, whether compaction hid it from the model, and the paths the
// file tools named since then and since the Seq since.
func lastState(log session.Log, since int64) (files map[string]string, nested []string, ok, hidden bool, touched []string) {
	var spans [][2]int64 // compactions newer than the event looked at
	for ev := range log.Backward() {
		switch {
		case ev.Type == session.Compaction:
			spans = append(spans, [2]int64{ev.From, ev.To})
		case ev.Type == session.Injected && ev.Provenance == Provenance:
			_ = json.Unmarshal([]byte(ev.Meta[filesKey]), &files) // ours; unreadable means "nothing known"
			_ = json.Unmarshal([]byte(ev.Meta[nestedKey]), &nested)
			for _, sp := range spans {
				if sp[0] <= ev.Seq && ev.Seq <= sp[1] {
					hidden = true
				}
			}
			return files, nested, true, hidden, touched
		case ev.Type == session.ToolUse && ev.Seq > since && fileTools[ev.ToolName]:
			if p := pathArg(ev.Input); p != "" {
				touched = append(touched, p)
			}
		}
	}
	return nil, nil, false, false, touched
}

// EndSession forgets what was looked at in a closed session (it
// implements contract.SessionEnder).
func (c *Capability) EndSession(id string) {
	c.mu.Lock()
	delete(c.looked, id)
	c.mu.Unlock()
}

// fileTools are the tools whose file reaches a nested folder's
// instructions: those that read, write or edit one.
var fileTools = map[string]bool{"Read": true, "Write": true, "Edit": true}

// pathArg is the file a tool call names: the builtin tools' "path", or
// Claude Code's "file_path".
func pathArg(input json.RawMessage) string {
	var a struct {
		Path     string `json:"path"`
		FilePath string `json:"file_path"`
	}
	if json.Unmarshal(input, &a) != nil {
		return ""
	}
	if a.Path != "" {
		return a.Path
	}
	return a.FilePath
}

// touchedDirs are the folders below the work dir, relative to it, between
// the work dir and each touched file, holding an instruction file: the
// nearer folders after the farther ones.
func (c *Capability) touchedDirs(paths []string) []string {
	var dirs []string
	for i := len(paths) - 1; i >= 0; i-- { // oldest first
		p := paths[i]
		if !filepath.IsAbs(p) {
			p = filepath.Join(c.workDir, p)
		}
		rel, ok := inside(c.workDir, filepath.Dir(filepath.Clean(p)))
		if !ok || rel == "." {
			continue
		}
		d := ""
		for _, seg := range strings.Split(rel, string(filepath.Separator)) {
			d = filepath.Join(d, seg)
			if !slices.Contains(dirs, d) && c.hasFile(d) {
				dirs = append(dirs, d)
			}
		}
	}
	return dirs
}

// hasFile reports whether the folder d (relative to the work dir) holds an
// instruction file of its own.
func (c *Capability) hasFile(d string) bool {
	for _, name := range dirNames {
		if fi, err := c.cfg.Port.Stat(filepath.Join(d, name)); err == nil && fi.Mode().IsRegular() {
			return true
		}
	}
	return false
}
