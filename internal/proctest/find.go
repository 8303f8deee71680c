package proctest

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Running returns the pids of the live processes whose command line is
// exactly argv (a zombie is not live). Tests give the processes they look
// for a unique argument, so that nothing else matches.
func Running(argv ...string) []int {
	want := strings.Join(argv, "\x00") + "\x00"
	paths, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	var pids []int
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil || string(data) != want {
			continue
		}
		pid, err := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		if err == nil && Alive(pid) {
			pids = append(pids, pid)
		}
	}
	slices.Sort(pids)
	return pids
}
