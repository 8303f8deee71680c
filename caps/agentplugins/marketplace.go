package agentplugins

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
)

// marketplaceFiles are the marketplace files in the order they are looked
// for: Claude Code's, then the one Codex and Agent Plugins read.
var marketplaceFiles = []string{
	".claude-plugin/marketplace.json",
	".agents/plugins/marketplace.json",
	".codex-plugin/marketplace.json",
	".github/plugin/marketplace.json",
}

// ErrNoMarketplace is returned by ReadMarketplace for a folder without a
// marketplace file.
var ErrNoMarketplace = errors.New("no marketplace file")

type rawMarketplace struct {
	Name     string `json:"name"`
	Metadata struct {
		PluginRoot string `json:"pluginRoot"`
	} `json:"metadata"`
	Plugins []struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Source      json.RawMessage `json:"source"`
	} `json:"plugins"`
}

// rawSource is a source object: Claude Code's {"source":"github","repo":…},
// {"source":"url","url":…}, {"source":"git-subdir","url":…,"path":…} and
// Codex's {"source":"local","path":…}.
type rawSource struct {
	Source string `json:"source"`
	Repo   string `json:"repo"`
	URL    string `json:"url"`
	Ref    string `json:"ref"`
	Path   string `json:"path"`
}

// ReadMarketplace reads the marketplace in dir (the first present of
// .claude-plugin/marketplace.json, .agents/plugins/marketplace.json,
// .codex-plugin/marketplace.json). An entry it cannot use is a warning naming
// the entry; the others are still listed.
func ReadMarketplace(dir string) (string, []MarketplaceEntry, []Warning, error) {
	var raw rawMarketplace
	var file string
	for _, f := range marketplaceFiles {
		data, err := readInside(dir, f)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", nil, nil, fmt.Errorf("marketplace %s: %w", f, err)
		}
		if err := json.Unmarshal(data, &raw); err != nil {
			return "", nil, nil, fmt.Errorf("marketplace %s: not JSON: %w", f, err)
		}
		file = f
		break
	}
	if file == "" {
		return "", nil, nil, fmt.Errorf("read marketplace %s: %w", dir, ErrNoMarketplace)
	}
	var warns []Warning
	var entries []MarketplaceEntry
	seen := map[string]bool{}
	for i, p := range raw.Plugins {
		where := fmt.Sprintf("%s plugins[%d]", file, i)
		if p.Name == "" {
			warns = append(warns, Warning{Plugin: "?", Part: "marketplace", Path: where, Reason: "no \"name\""})
			continue
		}
		if seen[p.Name] {
			warns = append(warns, Warning{Plugin: p.Name, Part: "marketplace", Path: where, Reason: "listed twice; the first entry is used"})
			continue
		}
		src, err := parseSource(p.Source, raw.Metadata.PluginRoot)
		if err != nil {
			warns = append(warns, Warning{Plugin: p.Name, Part: "marketplace", Path: where + ".source", Reason: err.Error()})
			continue
		}
		if src.Path != "" {
			if _, err := inside(dir, src.Path); err != nil {
				warns = append(warns, Warning{Plugin: p.Name, Part: "marketplace", Path: where + ".source", Reason: fmt.Sprintf("%q: %v", src.Path, err)})
				continue
			}
		}
		seen[p.Name] = true
		entries = append(entries, MarketplaceEntry{Name: p.Name, Description: p.Description, Source: src})
	}
	return raw.Name, entries, warns, nil
}

func parseSource(raw json.RawMessage, pluginRoot string) (Source, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return Source{}, errors.New("no \"source\"")
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if s == "" {
			return Source{}, errors.New("empty \"source\"")
		}
		if isRemote(s) {
			return Source{URL: s}, nil
		}
		// A bare name is relative to metadata.pluginRoot, as Claude Code reads it.
		if pluginRoot != "" && !strings.HasPrefix(s, "./") && !strings.HasPrefix(s, "../") {
			s = path.Join(pluginRoot, s)
		}
		return Source{Path: path.Clean(s)}, nil
	}
	var o rawSource
	if err := json.Unmarshal(raw, &o); err != nil {
		return Source{}, errors.New("\"source\" is neither a path nor an object")
	}
	switch o.Source {
	case "github":
		if o.Repo == "" {
			return Source{}, errors.New("github source without \"repo\"")
		}
		return Source{URL: "https://github.com/" + o.Repo + ".git", Ref: o.Ref, SubPath: o.Path}, nil
	case "url", "git", "git-subdir":
		if o.URL == "" {
			return Source{}, fmt.Errorf("%s source without \"url\"", o.Source)
		}
		if !isRemote(o.URL) {
			// obra/superpowers lists itself as {"source":"url","url":"./"}.
			return Source{Path: path.Join(path.Clean(o.URL), o.Path)}, nil
		}
		return Source{URL: o.URL, Ref: o.Ref, SubPath: o.Path}, nil
	case "local", "":
		if o.Path == "" {
			return Source{}, errors.New("local source without \"path\"")
		}
		return Source{Path: path.Clean(o.Path)}, nil
	default:
		return Source{}, fmt.Errorf("source kind %q is not supported", o.Source)
	}
}

func isRemote(s string) bool {
	return strings.Contains(s, "://") || strings.HasPrefix(s, "git@")
}
