package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// staleError marks an entry whose file is gone or whose find text does not
// match exactly once: the catalogue has to follow the code before the entry
// means anything.
type staleError struct{ reason string }

func (e *staleError) Error() string { return "stale: " + e.reason }

// mutant is one entry applied: the mutated file and the overlay that puts it
// in place of the original, both in the runner's temp dir.
type mutant struct {
	original string // absolute path in the working tree; never written
	path     string
	overlay  string
}

// writeMutant writes e's mutant and its overlay under dir, which must exist
// and be private to e. Nothing under root is written.
func writeMutant(root, dir string, e *entry) (mutant, error) {
	m := mutant{original: filepath.Join(root, filepath.FromSlash(e.File))}
	src, err := os.ReadFile(m.original)
	if errors.Is(err, fs.ErrNotExist) {
		return mutant{}, &staleError{reason: e.File + " does not exist"}
	}
	if err != nil {
		return mutant{}, fmt.Errorf("read %s: %w", e.File, err)
	}
	out, err := mutate(string(src), e.Find, e.Replace)
	if err != nil {
		return mutant{}, err
	}
	m.path = filepath.Join(dir, filepath.Base(m.original))
	m.overlay = filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(m.path, []byte(out), 0o600); err != nil {
		return mutant{}, fmt.Errorf("write mutant: %w", err)
	}
	if err := writeOverlay(m.overlay, m.original, m.path); err != nil {
		return mutant{}, err
	}
	return m, nil
}

// mutate replaces the single occurrence of find in src.
func mutate(src, find, replace string) (string, error) {
	switch lines := matchLines(src, find); len(lines) {
	case 1:
		return strings.Replace(src, find, replace, 1), nil
	case 0:
		return "", &staleError{reason: "find text matches 0 times, want 1"}
	default:
		return "", &staleError{reason: fmt.Sprintf("find text matches %d times (lines %s), want 1",
			len(lines), joinInts(lines))}
	}
}

// matchLines returns the line numbers where find starts, for overlapping
// matches too: text that overlaps itself is ambiguous as well.
func matchLines(src, find string) []int {
	var lines []int
	for off := 0; off < len(src); {
		i := strings.Index(src[off:], find)
		if i < 0 {
			break
		}
		lines = append(lines, 1+strings.Count(src[:off+i], "\n"))
		off += i + 1
	}
	return lines
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ", ")
}

// writeOverlay writes the go command's -overlay file.
func writeOverlay(path, original, replacement string) error {
	data, err := json.Marshal(struct{ Replace map[string]string }{
		Replace: map[string]string{original: replacement},
	})
	if err != nil {
		return fmt.Errorf("write overlay: %w", err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return fmt.Errorf("write overlay: %w", err)
	}
	return nil
}

// pathRewriter turns the mutant's temp path back into the catalogue's path in
// compiler messages, which name the overlay file.
func (m mutant) pathRewriter(root, file string) *strings.Replacer {
	pairs := []string{}
	// The relative form (../../tmp/...) first: it contains the absolute one.
	if rel, err := filepath.Rel(root, m.path); err == nil {
		pairs = append(pairs, rel, file)
	}
	pairs = append(pairs, m.path, file)
	return strings.NewReplacer(pairs...)
}
