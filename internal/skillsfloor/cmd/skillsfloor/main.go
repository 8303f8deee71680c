// Command skillsfloor is the I/O floor of a skills discovery as a whole
// process (package skillsfloor): it prints how many SKILL.md files it read.
// `helios skills list --json` over the same root is compared with it:
//
//	skillsfloor -generate 10000 "$HOME/.helios/skills"
//	farm-bench --vs 'skillsfloor ROOT' -- helios --work-dir W skills list --json
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
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: skillsfloor [-generate N] ROOT")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	root := flag.Arg(0)
	if *generate > 0 {
		if err := skillsfloor.Generate(root, *generate); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	n, err := skillsfloor.Read(root)
	fmt.Println(n)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
