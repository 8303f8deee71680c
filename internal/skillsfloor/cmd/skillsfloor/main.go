// Command skillsfloor is the I/O floor of a skills discovery as a whole
// process (package skillsfloor): it prints how many SKILL.md files it read.
// `helios skills list --json` over the same root is compared with it:
//
//	farm-bench --vs 'skillsfloor ROOT' -- helios --work-dir W skills list --json
package main

import (
	"fmt"
	"os"

	"github.com/helios-agents/helios/internal/skillsfloor"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: skillsfloor ROOT")
		os.Exit(2)
	}
	n, err := skillsfloor.Read(os.Args[1])
	fmt.Println(n)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
