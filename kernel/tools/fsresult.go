package tools

import (
	"errors"
	"io/fs"
	"syscall"

	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/workfs"
)

// fsResult tells the model why a file operation on path failed: a refusal
// with the guard's reason (outside the work dir, or a protected path), a
// missing file, or the error itself.
func fsResult(path string, err error) contract.ToolResult {
	var esc *workfs.EscapeError
	var prot *workfs.ProtectedError
	var link *workfs.SymlinkError
	switch {
	case errors.As(err, &esc):
		return contract.ErrorResult("refused: %q is outside the work dir %s: %s. File tools only reach files inside the work dir.",
			path, esc.Dir, esc.Reason)
	case errors.As(err, &prot):
		where := prot.Protected
		if prot.Via != "" {
			where += " (where " + prot.Via + " leads)"
		}
		return contract.ErrorResult("refused: %q is in %s, which is read-only for you: %s, %s, %s and %s and %s (except their %s folders) are protected, and where they lead. Read them if you need to; change them only by asking the user.",
			path, where, workfs.ConfigName, workfs.LockName, workfs.GitName, workfs.StateDirs[0], workfs.StateDirs[1], workfs.SkillsName)
	case errors.As(err, &link) && link.Link != "":
		return contract.ErrorResult("refused: %q goes through the symlink %s; Write and Edit follow no symlinks, even inside the work dir. Name the file it points to instead.", path, link.Link)
	case errors.As(err, &link):
		return contract.ErrorResult("refused: %q went through a symlink while it was being written (something changed it during the call); Write and Edit follow no symlinks.", path)
	case errors.Is(err, workfs.ErrNoOpenat2):
		return contract.ErrorResult("refused: %q: %v; Write and Edit cannot run here, use Bash to change files.", path, workfs.ErrNoOpenat2)
	case errors.Is(err, fs.ErrNotExist):
		return contract.ErrorResult("no such file: %q", path)
	case errors.Is(err, fs.ErrPermission):
		return contract.ErrorResult("permission denied: %q", path)
	case errors.Is(err, syscall.ENOTDIR):
		return contract.ErrorResult("%q: a parent of it is a file, not a directory", path)
	case errors.Is(err, syscall.EISDIR):
		return contract.ErrorResult("%q is a directory", path)
	}
	return contract.ErrorResult("%v", err)
}
