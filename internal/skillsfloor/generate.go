package skillsfloor

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Generate writes n bundles under root, each a SKILL.md of
// SyntheticSkills(n) and a scripts/ folder with one script.
func Generate(root string, n int) error {
	return write(root, SyntheticSkills(n))
}

// SyntheticSkills returns n synthetic SKILL.md files, all alike: frontmatter
// with name, a sentence-long description, license and metadata (one-line
// plain values), a body of about 430 bytes.
func SyntheticSkills(n int) []SkillFile {
	const body = `# Release artifacts

Use this skill to build, check and publish the release artifacts of one
component.

## Steps

1. Run ` + "`scripts/build.sh`" + ` from this skill's directory; it writes dist/.
2. Check every file in dist/ against references/checklist.md.
3. If a check fails, stop and report the failing item with its path.
4. Otherwise publish with ` + "`scripts/build.sh --publish`" + ` and paste the
   printed URLs into the release notes.
`
	out := make([]SkillFile, n)
	for i := range out {
		name := fmt.Sprintf("release-%05d", i)
		md := fmt.Sprintf("---\nname: %s\ndescription: Build, check and publish the release artifacts of component %d. Use when asked to cut, verify or ship a release of it.\nlicense: Apache-2.0\nmetadata:\n  author: bench\n  version: \"1.%d\"\n---\n%s", name, i, i%10, body)
		out[i] = SkillFile{Folder: name, Data: []byte(md)}
	}
	return out
}

// write writes each file as root/FOLDER/SKILL.md, with a scripts/ folder
// of one script beside it (a bundle, as published skills are).
func write(root string, files []SkillFile) error {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return err
	}
	var errs []error
	for _, f := range files {
		dir := filepath.Join(root, f.Folder)
		if err := os.MkdirAll(filepath.Join(dir, "scripts"), 0o755); err != nil {
			return err
		}
		errs = append(errs,
			os.WriteFile(filepath.Join(dir, "SKILL.md"), f.Data, 0o644),
			os.WriteFile(filepath.Join(dir, "scripts", "build.sh"), []byte("#!/bin/sh\nset -eu\nmkdir -p dist\n"), 0o755))
	}
	return errors.Join(errs...)
}
