package main

import (
	"runtime/debug"
	"strings"
	"time"
)

// version is this build's version, for `helios --version` and the MCP
// server's serverInfo: the module version it was built as (`go install
// github.com/helios-agents/helios/cmd/helios@v1.2.3`, or the pseudo-version
// Go stamps on a build in a checkout), else the checkout's commit from the
// build's VCS stamp, with "+dirty" for uncommitted changes, else "(devel)"
// (a build without VCS information, e.g. -buildvcs=false).
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return devel
	}
	return versionOf(bi)
}

const devel = "(devel)"

func versionOf(bi *debug.BuildInfo) string {
	if v := bi.Main.Version; v != "" && v != devel {
		return v
	}
	var rev, at string
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return devel
	}
	rev = rev[:min(12, len(rev))]
	// The pseudo-version Go itself would stamp for that commit.
	v := devel + "-" + rev
	if t, err := time.Parse(time.RFC3339, at); err == nil {
		v = "v0.0.0-" + t.UTC().Format("20060102150405") + "-" + rev
	}
	if dirty {
		v += "+dirty"
	}
	return v
}

// sourceBuild reports a helios built from a checkout rather than installed
// as a released module: no module version, or a VCS stamp (which only a
// build in a checkout has).
func sourceBuild(bi *debug.BuildInfo) bool {
	if v := bi.Main.Version; v == "" || v == devel {
		return true
	}
	for _, s := range bi.Settings {
		if strings.HasPrefix(s.Key, "vcs") {
			return true
		}
	}
	return false
}
