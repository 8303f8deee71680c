package instructions

import (
	_ "embed"
	"strings"
	"text/template"
)

//go:embed message.md.tmpl
var messageText string

var messages = template.Must(template.New("message").Funcs(template.FuncMap{
	"join": strings.Join,
	"attr": attr,
}).Parse(messageText))

type shown struct {
	Path, Text string
}

// renderFirst is the message of a session's start: the included files,
// and what the budget cut.
func renderFirst(r Result) string {
	var data struct {
		Files  []shown
		Cut    []string
		Budget int
	}
	data.Budget = r.Budget
	for _, f := range r.Files {
		switch f.State {
		case Included:
			data.Files = append(data.Files, shown{f.Path, strings.TrimRight(f.text, "\n")})
		case Cut:
			data.Cut = append(data.Cut, f.Path)
		}
	}
	if len(data.Files) == 0 {
		return ""
	}
	return render("first", data)
}

// renderUpdate is an update: the files new or changed, those no longer in
// effect.
func renderUpdate(files []File, removed []string, nested bool) string {
	var data struct {
		Files   []shown
		Removed []string
		Nested  bool
	}
	for _, f := range files {
		data.Files = append(data.Files, shown{f.Path, strings.TrimRight(f.text, "\n")})
	}
	data.Removed, data.Nested = removed, nested
	return render("update", data)
}

func render(name string, data any) string {
	var b strings.Builder
	if err := messages.ExecuteTemplate(&b, name, data); err != nil {
		panic("instructions: " + name + " template: " + err.Error()) // the template is ours and fixed
	}
	return b.String()
}

// attr escapes a path for an attribute value: paths are names, and names
// are data.
var attrEscaper = strings.NewReplacer(`&`, "&amp;", `"`, "&quot;", `<`, "&lt;", `>`, "&gt;", "\n", " ")

func attr(s string) string { return attrEscaper.Replace(s) }
