// Command skillshape measures published SKILL.md files and writes the
// distributions package skillsfloor draws real-shaped skills from (its
// shape.json): sizes, keys, the YAML form of each value, lengths. It writes
// counts and quantiles only, never the files' text.
//
// Clone a few skill repositories, then, from the module root:
//
//	go run ./internal/skillsfloor/cmd/skillshape -per-repo 400 \
//	    -o internal/skillsfloor/shape.json \
//	    anthropics/skills=CLONE1 openai/skills=CLONE2 ...
//
// Each argument is NAME=DIR (NAME, e.g. owner/name@commit, is recorded) or
// DIR. SKILL.md files are found at any depth; a file seen before counts
// once; -per-repo N keeps N of each repository, chosen by content hash.
//
// -install DIR also writes the measured files as a skills root, each in its
// own folder as a user installs them (DIR/FOLDER/SKILL.md; a second folder
// of the same name gets a -2 suffix), to time Helios on the real files.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/helios-agents/helios/internal/skillsfloor"
)

func main() {
	perRepo := flag.Int("per-repo", 400, "measure at most `N` SKILL.md files of each repository (0: all)")
	out := flag.String("o", "", "write the shape to `FILE` (default: standard output)")
	install := flag.String("install", "", "also write the measured files as a skills root under `DIR`")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: skillshape [-per-repo N] [-o FILE] [NAME=]DIR...")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	var names, dirs []string
	for _, a := range flag.Args() {
		name, dir, ok := strings.Cut(a, "=")
		if !ok {
			name, dir = a, a
		}
		names, dirs = append(names, name), append(dirs, dir)
	}
	files, err := skillsfloor.CollectSkillFiles(dirs, *perRepo)
	if err != nil {
		fmt.Fprintln(os.Stderr, "skillshape:", err)
		os.Exit(1)
	}
	if *install != "" {
		if err := installFiles(*install, files); err != nil {
			fmt.Fprintln(os.Stderr, "skillshape:", err)
			os.Exit(1)
		}
	}
	sh := skillsfloor.Measure(files)
	sh.Measured.Repositories, sh.Measured.PerRepository = names, *perRepo
	data, err := json.MarshalIndent(sh, "", "  ")
	if err != nil {
		fmt.Fprintln(os.Stderr, "skillshape:", err)
		os.Exit(1)
	}
	data = append(compactNumbers.ReplaceAllFunc(data, func(b []byte) []byte {
		return spaces.ReplaceAll(b, nil)
	}), '\n')
	if *out == "" {
		os.Stdout.Write(data)
		return
	}
	if err := os.WriteFile(*out, data, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "skillshape:", err)
		os.Exit(1)
	}
}

// compactNumbers matches a JSON array of numbers as MarshalIndent spreads it
// over lines; spaces matches its white space. A quantile table reads better
// on one line.
var (
	compactNumbers = regexp.MustCompile(`\[(\s*-?[0-9.]+,)*\s*-?[0-9.]+\s*\]`)
	spaces         = regexp.MustCompile(`\s+`)
)

// installFiles writes files as a skills root under dir.
func installFiles(dir string, files []skillsfloor.SkillFile) error {
	used := map[string]bool{}
	for _, f := range files {
		folder := f.Folder
		for i := 2; used[folder] || strings.HasPrefix(folder, "."); i++ {
			folder = fmt.Sprintf("%s-%d", strings.TrimPrefix(f.Folder, "."), i)
		}
		used[folder] = true
		if err := os.MkdirAll(filepath.Join(dir, folder), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, folder, "SKILL.md"), f.Data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
