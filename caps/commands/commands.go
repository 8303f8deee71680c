package commands

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/helios-agents/helios/sandbox"
	"github.com/helios-agents/helios/workfs"
)

// Sources of a command.
const (
	SourceProject = "project"
	SourceUser    = "user"
)

// ErrNotFound is returned by Expand for a name no folder holds.
var ErrNotFound = errors.New("no such command")

// Command is one command file.
type Command struct {
	Name         string   `json:"name"`                   // "a:b" for a/b.md
	Description  string   `json:"description,omitempty"`  // frontmatter, else the body's first line
	ArgumentHint string   `json:"argumentHint,omitempty"` // argument-hint
	AllowedTools []string `json:"allowedTools,omitempty"` // allowed-tools, one entry per tool
	Model        string   `json:"model,omitempty"`        // model
	Source       string   `json:"source"`                 // SourceProject, SourceUser or "plugin:<plugin>"
	Path         string   `json:"path"`                   // the file
	// Err says why the file cannot be used (broken frontmatter, too large,
	// a name with spaces); the command is listed but not expanded.
	Err error `json:"-"`

	body string
}

// Runner starts the processes of !`cmd`; *sandbox.Sandbox is one. It is
// the consumer's view of the Bash tool's sandbox.
type Runner interface {
	Command(id, dir string, argv ...string) (cmd *sandbox.Cmd, note string, err error)
}

// Config says where commands come from and how !`cmd` runs.
type Config struct {
	// Work is the guarded port of the work dir; nil reads no project
	// folders and attaches no project file.
	Work *workfs.FS
	// Home is the user's home folder; "" means os.UserHomeDir (none if that
	// fails).
	Home string
	// Runner runs !`cmd`; nil refuses every such command.
	Runner Runner
	// Shell runs the command text as "Shell -c text"; "" means bash if it
	// is on PATH, else sh.
	Shell string
	// Timeout bounds each !`cmd`; zero means 30 s.
	Timeout time.Duration
	// Plugins are the command folders (or single .md files) of installed
	// agent plugins, read after the user's folders. A plugin's command is
	// named "<plugin>:<name>", as Claude Code namespaces it, and its Source
	// is "plugin:<plugin>".
	Plugins []PluginCommands
}

// PluginCommands is one command folder or file of an installed plugin.
type PluginCommands struct {
	// Plugin is the plugin's name.
	Plugin string
	// Path is the folder or .md file, absolute.
	Path string
}

// Set reads the command folders of one work dir and home. It keeps no
// state between calls and is safe for concurrent use.
type Set struct {
	cfg Config
}

// maxFile bounds a command file and an attached file.
const maxFile = 256 << 10

// maxDepth bounds how deep subfolders are read.
const maxDepth = 8

// New returns the commands of cfg.
func New(cfg Config) *Set {
	if cfg.Home == "" {
		cfg.Home, _ = os.UserHomeDir()
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	return &Set{cfg: cfg}
}

// folder is one commands folder: rel is below the work dir for a project
// folder, an absolute path for a user folder.
type folder struct {
	source, dir string
	// prefix is the plugin whose name leads each command's ("" for none).
	prefix string
}

// folders lists the folders in precedence order: project first.
func (s *Set) folders() []folder {
	var out []folder
	if s.cfg.Work != nil {
		out = append(out, folder{SourceProject, ".helios/commands", ""}, folder{SourceProject, ".claude/commands", ""})
	}
	if s.cfg.Home != "" {
		out = append(out,
			folder{SourceUser, filepath.Join(s.cfg.Home, ".helios", "commands"), ""},
			folder{SourceUser, filepath.Join(s.cfg.Home, ".claude", "commands"), ""})
	}
	for _, p := range s.cfg.Plugins {
		out = append(out, folder{source: "plugin:" + p.Plugin, dir: p.Path, prefix: p.Plugin})
	}
	return out
}

// List reads every folder and returns the commands by name, the first of
// each name in folder order, and a warning for each shadowed file and each
// folder or entry that could not be read.
func (s *Set) List() ([]Command, []string) {
	var (
		out      []Command
		warnings []string
		seen     = map[string]string{}
	)
	for _, f := range s.folders() {
		cmds, warns := s.read(f)
		warnings = append(warnings, warns...)
		for _, c := range cmds {
			if first, ok := seen[c.Name]; ok {
				warnings = append(warnings, fmt.Sprintf("command %q: %s is shadowed by %s", c.Name, c.Path, first))
				continue
			}
			seen[c.Name] = c.Path
			out = append(out, c)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, warnings
}

// Get returns the command called name ("/name" is accepted too).
func (s *Set) Get(name string) (Command, []string, error) {
	name = strings.TrimPrefix(name, "/")
	cmds, warnings := s.List()
	for _, c := range cmds {
		if c.Name == name {
			return c, warnings, nil
		}
	}
	return Command{}, warnings, fmt.Errorf("command %q: %w", name, ErrNotFound)
}

// read returns the commands of one folder, in walk order.
func (s *Set) read(f folder) ([]Command, []string) {
	var (
		cmds     []Command
		warnings []string
	)
	var walk func(dir string, names []string)
	walk = func(dir string, names []string) {
		entries, err := s.readDir(f, dir)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) || len(names) > 0 {
				warnings = append(warnings, fmt.Sprintf("commands folder %s: %v", s.display(f, dir), err))
			}
			return
		}
		for _, e := range entries {
			p := path.Join(dir, e.Name())
			if strings.HasPrefix(e.Name(), ".") {
				continue
			}
			fi, err := s.stat(f, p)
			if err != nil {
				warnings = append(warnings, fmt.Sprintf("command %s: %v", s.display(f, p), err))
				continue
			}
			switch {
			case fi.IsDir():
				if len(names) < maxDepth {
					walk(p, append(names[:len(names):len(names)], e.Name()))
				}
			case fi.Mode().IsRegular() && strings.HasSuffix(e.Name(), ".md"):
				parts := append(names[:len(names):len(names)], strings.TrimSuffix(e.Name(), ".md"))
				cmds = append(cmds, s.load(f, p, parts, fi.Size()))
			}
		}
	}
	var start []string
	if f.prefix != "" {
		start = []string{f.prefix}
		// A plugin may name one command file rather than a folder.
		if fi, err := s.stat(f, f.dir); err == nil && fi.Mode().IsRegular() && strings.HasSuffix(f.dir, ".md") {
			parts := append(start, strings.TrimSuffix(filepath.Base(f.dir), ".md"))
			return []Command{s.load(f, f.dir, parts, fi.Size())}, nil
		}
	}
	walk(f.dir, start)
	return cmds, warnings
}

// load reads one command file; a problem is kept in Command.Err.
func (s *Set) load(f folder, p string, parts []string, size int64) Command {
	c := Command{Name: strings.Join(parts, ":"), Source: f.source, Path: s.display(f, p)}
	for _, part := range parts {
		if part == "" || strings.ContainsFunc(part, func(r rune) bool { return unicode.IsSpace(r) || r == ':' }) {
			c.Err = fmt.Errorf("%s: the name %q holds a space or a colon and cannot be typed as /%s", c.Path, part, c.Name)
			return c
		}
	}
	if size > maxFile {
		c.Err = fmt.Errorf("%s: %d bytes, over the %d-byte limit of a command file", c.Path, size, maxFile)
		return c
	}
	data, err := s.readFile(f, p)
	if err != nil {
		c.Err = err
		return c
	}
	parseInto(&c, data)
	return c
}

func (s *Set) readDir(f folder, dir string) ([]fs.DirEntry, error) {
	if f.source == SourceProject {
		return s.cfg.Work.ReadDir(dir)
	}
	return os.ReadDir(dir)
}

func (s *Set) stat(f folder, p string) (fs.FileInfo, error) {
	if f.source == SourceProject {
		return s.cfg.Work.Stat(p)
	}
	return os.Stat(p)
}

func (s *Set) readFile(f folder, p string) ([]byte, error) {
	if f.source == SourceProject {
		return s.cfg.Work.ReadFile(p)
	}
	return os.ReadFile(p)
}

// display is the path shown for p: absolute, so a person can open it.
func (s *Set) display(f folder, p string) string {
	if f.source == SourceProject {
		return filepath.Join(s.cfg.Work.Dir(), filepath.FromSlash(p))
	}
	return p
}
