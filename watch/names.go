package watch

import (
	"path/filepath"
	"strings"
)

// ignoredName reports a root child that is never an entry: hidden names
// (which includes emacs' .#lock files and vim's .x.swp) and editor temp
// names. A temp file renamed over a real name is still seen, as the
// creation of the real name.
func ignoredName(name string) bool {
	switch {
	case name == "", strings.HasPrefix(name, "."):
		return true
	case name == "4913": // vim's probe for whether it may write in the directory
		return true
	case strings.HasSuffix(name, "~"): // backups
		return true
	case len(name) > 1 && strings.HasPrefix(name, "#") && strings.HasSuffix(name, "#"): // emacs auto-save
		return true
	}
	switch filepath.Ext(name) {
	case ".swp", ".swx", ".swo", ".tmp":
		return true
	}
	return false
}

// isMarkdown reports a flat skill's name, as the skills scanner reads it.
func isMarkdown(name string) bool { return strings.HasSuffix(name, ".md") }
