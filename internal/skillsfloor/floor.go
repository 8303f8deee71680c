package skillsfloor

import (
	"errors"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
)

// Read reads the floor of root and returns how many SKILL.md files it read,
// with every error met (a worker stops at its first).
func Read(root string) (int, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return 0, err
	}
	dir, err := openRoot(root)
	if err != nil {
		return 0, err
	}
	defer dir.close()
	var next, read atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, runtime.GOMAXPROCS(0))
	for w := range errs {
		wg.Go(func() {
			buf := make([]byte, 4<<10)
			for {
				i := int(next.Add(1) - 1)
				if i >= len(entries) {
					return
				}
				if err := dir.readHead(entries[i].Name()+"/SKILL.md", buf); err != nil {
					errs[w] = err
					return
				}
				read.Add(1)
			}
		})
	}
	wg.Wait()
	return int(read.Load()), errors.Join(errs...)
}
