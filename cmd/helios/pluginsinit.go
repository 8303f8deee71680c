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
	"strings"
	"text/template"

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

var pluginName = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)

func pluginsInitCmd() *cobra.Command {
	var version, replace string
	var noTidy bool
	c := &cobra.Command{
		Use:   "init NAME [DIR]",
		Short: "Write a new plugin module, ready to build: main.go, a test, EXTENSION.md, a skill and go.mod",
		Long: "Write a plugin module named NAME into DIR (default ./NAME), which must be empty or absent: main.go (a tool:before " +
			"guard served with plugins/sdk), main_test.go, EXTENSION.md, skills/NAME/SKILL.md and a go.mod requiring " + heliosModule +
			" at this helios's version, then run `go mod tidy` there. A development build of helios has no version: pass " +
			"--helios-version, or --replace with the path of a Helios checkout.",
		Args: args(cobra.RangeArgs(1, 2)),
		RunE: func(cmd *cobra.Command, argv []string) error {
			name := argv[0]
			if len(name) > 64 || !pluginName.MatchString(name) {
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
			v, err := heliosVersion(version, replace != "")
			if err != nil {
				return err
			}
			if err := writePlugin(dir, pluginData{Name: name, Version: v, Replace: replace, GoVersion: goVersion()}); err != nil {
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

// heliosVersion is the version go.mod requires: the flag, else this
// binary's own module version (helios built by `go install ...@vX`, or an
// application that embeds it as a dependency). A development build has
// none; then only a replace makes the requirement resolvable.
func heliosVersion(flag string, replaced bool) (string, error) {
	if flag != "" {
		return flag, nil
	}
	if info, ok := debug.ReadBuildInfo(); ok {
		v := ""
		if info.Main.Path == heliosModule {
			v = info.Main.Version
		}
		for _, d := range info.Deps {
			if d.Path == heliosModule {
				v = d.Version
			}
		}
		// A build from a modified checkout names its base commit.
		if v = strings.TrimSuffix(v, "+dirty"); v != "" && v != "(devel)" {
			return v, nil
		}
	}
	if replaced {
		return "v0.0.0-00010101000000-000000000000", nil
	}
	return "", usageError{errors.New("plugins init: this helios is a development build and does not know its version: pass --helios-version vX.Y.Z, or --replace with the path of your Helios checkout")}
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
