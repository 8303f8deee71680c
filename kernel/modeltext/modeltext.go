package modeltext

import (
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"text/template"
)

// Files is the model text of one package: every *.md and *.md.tmpl file of
// an embedded file system.
type Files struct {
	set func() *template.Template
}

// New returns the texts of fsys, parsed on first use. A file that does not
// parse is a programming error, reported by a panic at first use (the
// package's golden test renders every text).
func New(fsys fs.FS) *Files {
	return &Files{set: sync.OnceValue(func() *template.Template {
		t := template.New("").Option("missingkey=error")
		for _, pattern := range []string{"*.md", "*.md.tmpl"} {
			if names, _ := fs.Glob(fsys, pattern); len(names) > 0 {
				t = template.Must(t.ParseFS(fsys, pattern))
			}
		}
		return t
	})}
}

// Text renders the file name with data and trims its trailing newlines: a
// file ends with one, the text it holds does not. A missing file or a
// failing template is a programming error and panics.
func (f *Files) Text(name string, data any) string {
	t := f.set().Lookup(name)
	if t == nil {
		panic(fmt.Sprintf("modeltext: no file %q", name))
	}
	var b strings.Builder
	if err := t.Execute(&b, data); err != nil {
		panic(fmt.Sprintf("modeltext: render %s: %v", name, err))
	}
	return strings.TrimRight(b.String(), "\n")
}
