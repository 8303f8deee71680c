package skillfstest

import (
	"os"
	"path/filepath"
	"testing"
)

// RealTempDir is t.TempDir with its symlinks resolved, so that paths compare
// equal to what the guarded work-dir port reports.
func RealTempDir(t testing.TB) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatalf("resolve temp dir: %v", err)
	}
	return d
}

// WriteSkill writes root/folder/SKILL.md with the given frontmatter lines
// and body, making the folders, and returns the file's path.
func WriteSkill(t testing.TB, root, folder, frontmatter, body string) string {
	t.Helper()
	p := filepath.Join(root, folder, "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatalf("write skill: %v", err)
	}
	if err := os.WriteFile(p, []byte("---\n"+frontmatter+"\n---\n"+body), 0o644); err != nil {
		t.Fatalf("write skill: %v", err)
	}
	return p
}
