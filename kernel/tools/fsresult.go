package tools

import (
	"errors"
	"io/fs"
	"syscall"

	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/workfs"
)

// fsResult tells the model why a file operation on path failed: a refusal
// with the guard's reason (outside the work dir, or a protected path), a
// missing file, or the error itself.
func fsResult(path string, err error) contract.ToolResult {
	var esc *workfs.EscapeError
	var prot *workfs.ProtectedError
	switch {
	case errors.As(err, &esc):
		return contract.ErrorResult("refused: %q is outside the work dir %s: %s. File tools only reach files inside the work dir.",
			path, esc.Dir, esc.Reason)
	case errors.As(err, &prot):
		return contract.ErrorResult("refused: %q is in %s, which is read-only for you: %s, %s, %s and %s and %s (except their %s folders) are protected. Read them if you need to; change them only by asking the user.",
			path, prot.Protected, workfs.ConfigName, workfs.LockName, workfs.GitName, workfs.StateDirs[0], workfs.StateDirs[1], workfs.SkillsName)
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
