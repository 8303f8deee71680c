// Command skillsfloor is the I/O floor of a skills discovery, as a whole
// process: it lists a root, then opens, reads 4 KiB of and closes each
// <root>/<entry>/SKILL.md over GOMAXPROCS workers, parses nothing and prints
// how many files it read. `helios skills list --json` over the same root is
// compared with it (issue 11):
//
//	farm-bench --vs 'skillsfloor ROOT' -- helios --work-dir W skills list --json
package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: skillsfloor ROOT")
		os.Exit(2)
	}
	root := os.Args[1]
	entries, err := os.ReadDir(root)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var next, read atomic.Int64
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			buf := make([]byte, 4<<10)
			for {
				i := int(next.Add(1) - 1)
				if i >= len(entries) {
					return
				}
				f, err := os.Open(filepath.Join(root, entries[i].Name(), "SKILL.md"))
				if err != nil {
					continue
				}
				if _, err := f.Read(buf); err == nil || err == io.EOF {
					read.Add(1)
				}
				f.Close()
			}
		})
	}
	wg.Wait()
	fmt.Println(read.Load())
}
