package main

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"text/template"
	"unicode"

	"github.com/spf13/cobra"
)

// heliosModule is the module a generated plugin requires.
const heliosModule = "github.com/helios-agents/helios"

//go:embed plugintemplate/*.tmpl
var pluginTemplates embed.FS

// pluginFiles are written in this order: a refusal names the first of them
// that already exists.
var pluginFiles = []struct{ path, tmpl string }{
	{"go.mod", "go.mod.tmpl"},
	{"main.go", "main.go.tmpl"},
	{"main_test.go", "main_test.go.tmpl"},
	{"EXTENSION.md", "EXTENSION.md.tmpl"},
	{filepath.Join("skills", "{{.Name}}", "SKILL.md"), "SKILL.md.tmpl"},
}

// pluginNameRule is what a plugin name must be: it names the plugin's
// module, its capability and its skill, so it follows the strictest of the
// three.
const pluginNameRule = "1 to 64 characters: lowercase ASCII letters and digits, starting with a letter, with single hyphens between them (like release-notes)"

var pluginName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`) })

func pluginsInitCmd() *cobra.Command {
	var version, replace string
	var noTidy bool
	c := &cobra.Command{
		Use:   "init NAME [DIR]",
		Short: "Write a new plugin module, ready to build: main.go, a test, EXTENSION.md, a skill and go.mod",
		Long: "Write a plugin module named NAME into DIR (default ./NAME), which must be empty or absent: main.go (a tool:before " +
			"guard served with plugins/sdk), main_test.go, EXTENSION.md, skills/NAME/SKILL.md and a go.mod requiring " + heliosModule +
			" at this helios's version, then run `go mod tidy` there. A helios built from a checkout requires that checkout " +
			"(a replace directive to the folder it was built from, or the checkout holding it or the current folder); " +
			"--helios-version or --replace choose another.",
		Args: args(cobra.RangeArgs(1, 2)),
		RunE: func(cmd *cobra.Command, argv []string) error {
			name := argv[0]
			if len(name) > 64 || !pluginName().MatchString(name) {
				return usageError{fmt.Errorf("plugins init: invalid plugin name %q: a plugin name is %s", name, pluginNameRule)}
			}
			dir := name
			if len(argv) == 2 {
				dir = argv[1]
			}
			if replace != "" {
				abs, err := filepath.Abs(replace)
				if err != nil {
					return fmt.Errorf("plugins init: --replace: %w", err)
				}
				replace = abs
			}
			bi, _ := debug.ReadBuildInfo()
			v, replace, err := heliosRequirement(bi, version, replace, checkoutCandidates())
			if err != nil {
				return err
			}
			if err := writePlugin(dir, pluginData{Name: name, Version: v, Replace: modPath(replace), GoVersion: goVersion()}); err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "wrote plugin %s in %s\n", name, dir)
			if noTidy {
				fmt.Fprintf(out, "next: cd %s && go mod tidy && go build && go test ./...\n", dir)
				return nil
			}
			if err := goModTidy(dir, cmd.ErrOrStderr()); err != nil {
				return err
			}
			fmt.Fprintf(out, "next: cd %s && go build && go test ./...\n", dir)
			return nil
		},
	}
	c.Flags().StringVar(&version, "helios-version", "", "the "+heliosModule+" version go.mod requires (default: this helios's own)")
	c.Flags().StringVar(&replace, "replace", "", "a Helios checkout that go.mod's replace directive points at")
	c.Flags().BoolVar(&noTidy, "no-tidy", false, "do not run `go mod tidy` in the new module")
	return c
}

// pluginData fills the templates.
type pluginData struct {
	Name      string
	Version   string
	Replace   string
	GoVersion string
}

// placeholderVersion is required when a replace directive says where
// Helios is: the go command needs a version, and this one names none.
const placeholderVersion = "v0.0.0-00010101000000-000000000000"

// heliosRequirement is what go.mod requires and where it finds it: the
// --helios-version flag, else --replace, else what bi says of Helios.
// A released Helios (helios installed with go install …@vX, or an
// application embedding it) is required at its version; a helios built
// from a checkout has no published version (at most Go's pseudo-version of
// a local commit), so the generated module replaces Helios with that
// checkout: the first of places that is one (checkoutCandidates).
func heliosRequirement(bi *debug.BuildInfo, flag, replace string, places []string) (version, dir string, err error) {
	switch {
	case flag != "":
		return flag, replace, nil
	case replace != "":
		return placeholderVersion, replace, nil
	}
	if bi != nil {
		for _, d := range bi.Deps {
			if d.Path != heliosModule {
				continue
			}
			if d.Replace != nil && filepath.IsAbs(d.Replace.Path) {
				return placeholderVersion, d.Replace.Path, nil // an application replacing it with a folder
			}
			return d.Version, "", nil
		}
		if bi.Main.Path == heliosModule && !sourceBuild(bi) {
			return bi.Main.Version, "", nil
		}
	}
	for _, p := range places {
		if isHeliosCheckout(p) {
			return placeholderVersion, p, nil
		}
	}
	// A build from a modified checkout names its base commit.
	if bi != nil && bi.Main.Path == heliosModule {
		if v := strings.TrimSuffix(bi.Main.Version, "+dirty"); v != "" && v != devel {
			return v, "", nil
		}
	}
	return "", "", usageError{errors.New("plugins init: this helios is a development build and cannot find the checkout it was built from: " +
		"pass --replace with the path of your Helios checkout, or --helios-version vX.Y.Z")}
}

// checkoutCandidates are the folders that may be the Helios checkout this
// helios was built from, most telling first: the one its source files were
// compiled from (known unless built with -trimpath), then each folder above
// the executable (a checkout's bin/helios) and above the current folder.
func checkoutCandidates() []string {
	var out []string
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		out = append(out, filepath.Dir(filepath.Dir(filepath.Dir(file)))) // <checkout>/cmd/helios/pluginsinit.go
	}
	if exe, err := os.Executable(); err == nil {
		if exe, err = filepath.EvalSymlinks(exe); err == nil {
			out = append(out, ancestors(filepath.Dir(exe))...)
		}
	}
	if wd, err := os.Getwd(); err == nil {
		out = append(out, ancestors(wd)...)
	}
	return out
}

func ancestors(dir string) []string {
	var out []string
	for {
		out = append(out, dir)
		parent := filepath.Dir(dir)
		if parent == dir {
			return out
		}
		dir = parent
	}
}

// isHeliosCheckout reports a folder whose go.mod declares the Helios
// module.
func isHeliosCheckout(dir string) bool {
	data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return false
	}
	for line := range strings.Lines(string(data)) {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module"); ok {
			rest, _, _ = strings.Cut(rest, "//")
			return strings.Trim(strings.TrimSpace(rest), `"`+"`") == heliosModule
		}
	}
	return false
}

// modPath writes a folder as go.mod reads it: quoted when it holds a
// space, a quote, a bracket, a comment marker or an unprintable character
// (a checkout in "~/My Projects/helios" is a path like any other).
func modPath(dir string) string {
	if dir == "" {
		return ""
	}
	if strings.ContainsAny(dir, " \t\"'`()[]{},") || strings.Contains(dir, "//") || strings.Contains(dir, "/*") ||
		strings.IndexFunc(dir, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
		return strconv.Quote(dir)
	}
	return dir
}

// goVersion is the go directive: the language version of the toolchain
// that built this helios, which built Helios itself.
func goVersion() string {
	v := strings.TrimPrefix(runtime.Version(), "go")
	v, _, _ = strings.Cut(v, " ")
	if v == "" || !strings.ContainsAny(v[:1], "0123456789") {
		return "1.26"
	}
	return v
}

// writePlugin renders every file into dir, which must be empty or absent.
func writePlugin(dir string, d pluginData) error {
	type file struct {
		path string
		data []byte
	}
	var files []file
	for _, f := range pluginFiles {
		path, err := render(f.path, f.path, d)
		if err != nil {
			return err
		}
		tmpl, err := pluginTemplates.ReadFile("plugintemplate/" + f.tmpl)
		if err != nil {
			return fmt.Errorf("plugins init: %w", err)
		}
		data, err := render(f.tmpl, string(tmpl), d)
		if err != nil {
			return err
		}
		files = append(files, file{filepath.Join(dir, string(path)), data})
	}
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return fmt.Errorf("plugins init: %w", err)
	case len(entries) > 0:
		for _, f := range files {
			if _, err := os.Lstat(f.path); err == nil {
				return fmt.Errorf("plugins init: %s is not empty: it would overwrite %s", dir, f.path)
			}
		}
		return fmt.Errorf("plugins init: %s is not empty (it holds %s): choose an empty or new folder", dir, entries[0].Name())
	}
	for _, f := range files {
		if err := os.MkdirAll(filepath.Dir(f.path), 0o755); err != nil {
			return fmt.Errorf("plugins init: %w", err)
		}
		if err := os.WriteFile(f.path, f.data, 0o644); err != nil {
			return fmt.Errorf("plugins init: %w", err)
		}
	}
	return nil
}

func render(name, text string, d pluginData) ([]byte, error) {
	t, err := template.New(name).Option("missingkey=error").Parse(text)
	if err != nil {
		return nil, fmt.Errorf("plugins init: template %s: %w", name, err)
	}
	var b bytes.Buffer
	if err := t.Execute(&b, d); err != nil {
		return nil, fmt.Errorf("plugins init: template %s: %w", name, err)
	}
	return b.Bytes(), nil
}

// goModTidy resolves the new module's requirements and writes its go.sum.
func goModTidy(dir string, stderr io.Writer) error {
	gobin, err := exec.LookPath("go")
	if err != nil {
		fmt.Fprintf(stderr, "helios: go is not on PATH: run `go mod tidy` in %s before building\n", dir)
		return nil
	}
	tidy := exec.Command(gobin, "mod", "tidy")
	tidy.Dir = dir
	tidy.Stdout, tidy.Stderr = stderr, stderr
	if err := tidy.Run(); err != nil {
		return fmt.Errorf("plugins init: the files are written, but `go mod tidy` failed in %s (fix it, then run it again): %w", dir, err)
	}
	return nil
}
