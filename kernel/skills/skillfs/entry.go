package skillfs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/skills"
)

// readEntry turns one child of a root into a skill, or explains why not. It
// reads only the head of the skill file: up to the end of its frontmatter.
// mode is the entry's type as listed.
func (d *DirSource) readEntry(ctx context.Context, open opener, path string, mode fs.FileMode) entryState {
	var st entryState
	warn := func(p, msg string) {
		st.warnings = append(st.warnings, contract.Warning{Source: d.Source, Path: p, Message: msg})
	}
	if mode&fs.ModeSymlink != 0 {
		fi, err := d.FS.Stat(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			warn(path, "broken symlink; skipped")
			return st
		case err != nil:
			st.fail(d.Source, path, "cannot follow symlink; skipped", err)
			return st
		}
		mode = fi.Mode().Type()
	}
	var file, baseDir, folder string
	var f io.ReadCloser
	var id skills.FileID
	switch {
	case mode.IsDir():
		var err error
		f, id, file, err = openSkillFile(open, d.FS, path)
		if err != nil {
			if errors.Is(err, errNoSkillFile) {
				warn(path, "folder has no SKILL.md; skipped")
			} else {
				st.fail(d.Source, path, "cannot read the skill folder; skipped", err)
			}
			return st
		}
		baseDir, folder = path, filepath.Base(path)
	case mode.IsRegular() && strings.HasSuffix(path, ".md"):
		file, baseDir, folder = path, filepath.Dir(path), strings.TrimSuffix(filepath.Base(path), ".md")
		var err error
		if f, id, err = open.openRegular(file); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				err = fmt.Errorf("%w: %w", errVanished, err)
			}
			st.fail(d.Source, file, "cannot read; skipped", err)
			return st
		}
	case mode.IsRegular():
		return st // scripts or notes beside flat skills are not skills
	default:
		warn(path, fmt.Sprintf("not a regular file or directory (%s); skipped", mode))
		return st
	}

	limit := d.Limits.frontmatter()
	bufp := headBufs.Get().(*[]byte)
	defer putHeadBuf(bufp)
	data, end, over, err := readHead(f, limit, *bufp)
	*bufp = data
	f.Close()
	switch {
	case err != nil:
		st.fail(d.Source, file, "cannot read; skipped", err)
		return st
	case over:
		warn(file, fmt.Sprintf("frontmatter is not closed within the first %d bytes (the limit skills.maxFrontmatter); skipped", limit))
		return st
	}
	meta, _, findings := parseSkill(file, folder, data, end)
	if len(findings) > 0 {
		st.warnings = make([]contract.Warning, 0, len(findings))
	}
	usable := true
	for _, f := range findings {
		if f.Severity == Ignored {
			continue // only `skills validate` names them
		}
		msg := f.Message
		if f.Severity == Unusable {
			usable = false
			msg += "; skipped"
		}
		warn(file, msg)
	}
	if !usable {
		return st
	}
	fsys, maxSize, entry, name := d.FS, d.Limits.fileSize(), filepath.Base(path), meta.Name
	st.skill = &skills.Skill{
		Name:                   meta.Name,
		Description:            meta.Description,
		Source:                 d.Source,
		BaseDir:                baseDir,
		File:                   file,
		DisableModelInvocation: meta.DisableModelInvocation,
		AllowedTools:           meta.AllowedTools,
		FileID:                 id,
		Load: func(ctx context.Context) (skills.Content, error) {
			c, err := loadFile(ctx, fsys, file, folder, maxSize)
			return skills.CheckFresh(c, err, name, func() { d.stale(entry) })
		},
	}
	return st
}

var (
	errNoSkillFile = errors.New("no SKILL.md")
	errNotRegular  = errors.New("not a regular file")
)

// opener opens the skill files of a discovery, each checked to be a regular
// file (a FIFO or a device would block or never end), and tells the
// identity of the file opened (from the same fstat: no extra system call).
type opener interface {
	openRegular(file string) (io.ReadCloser, skills.FileID, error)
}

// fsOpener opens through an FS.
type fsOpener struct{ fsys FS }

func (o fsOpener) openRegular(file string) (io.ReadCloser, skills.FileID, error) {
	f, fi, err := openRegularStat(o.fsys, file)
	if err != nil {
		return nil, skills.FileID{}, err
	}
	return f, fileID(fi), nil
}

// openSkillFile opens dir/SKILL.md, or dir/skill.md when there is no
// SKILL.md. A folder that is gone by now vanished mid-read.
func openSkillFile(open opener, fsys FS, dir string) (io.ReadCloser, skills.FileID, string, error) {
	var firstErr error
	for _, name := range []string{"SKILL.md", "skill.md"} {
		p := dir + string(filepath.Separator) + name // dir is clean, and never the root of the file system
		f, id, err := open.openRegular(p)
		if err == nil {
			return f, id, p, nil
		}
		if errors.Is(err, errNotRegular) {
			return nil, id, "", fmt.Errorf("%s: %w", p, err)
		}
		if !errors.Is(err, fs.ErrNotExist) && firstErr == nil {
			firstErr = err
		}
	}
	if firstErr != nil {
		return nil, skills.FileID{}, "", firstErr
	}
	if _, err := fsys.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil, skills.FileID{}, "", fmt.Errorf("%s: %w", dir, errVanished)
	}
	return nil, skills.FileID{}, "", errNoSkillFile
}

// openRegular opens file and checks that it is a regular file (a FIFO or a
// device would block or never end).
func openRegular(fsys FS, file string) (fs.File, error) {
	f, _, err := openRegularStat(fsys, file)
	return f, err
}

// openRegularStat is openRegular, with what the open file's stat said.
func openRegularStat(fsys FS, file string) (fs.File, fs.FileInfo, error) {
	f, err := fsys.Open(file)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, errNotRegular
	}
	return f, fi, nil
}
