// Command skillsfloor is the I/O floor of a skills discovery as a whole
// process (package skillsfloor): it prints how many SKILL.md files it read.
// `helios skills list --json` over the same root is compared with it, each
// timed as a whole process, in turn:
//
//	skillsfloor -generate 10000 -shape real "$HOME/.helios/skills"
//	/usr/bin/time -f '%e s %U user %S sys' skillsfloor "$HOME/.helios/skills"
//	/usr/bin/time -f '%e s %U user %S sys' helios skills list --json >/dev/null
//
// BenchmarkSkillsListProcess (test/unit) does the same from `go test`.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/helios-agents/helios/internal/skillsfloor"
)

func main() {
	generate := flag.Int("generate", 0, "write `N` bundle skills under ROOT (as the benchmarks do) instead of reading it")
	shape := flag.String("shape", "synthetic", "with -generate: the corpus `SHAPE`, synthetic or real")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: skillsfloor [-generate N [-shape synthetic|real]] ROOT")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	root := flag.Arg(0)
	if *generate > 0 {
		for _, c := range skillsfloor.Corpora {
			if c.Name == *shape {
				if err := c.Generate(root, *generate); err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(1)
				}
				return
			}
		}
		fmt.Fprintf(os.Stderr, "skillsfloor: unknown shape %q (synthetic or real)\n", *shape)
		os.Exit(2)
	}
	n, err := skillsfloor.Read(root)
	fmt.Println(n)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
