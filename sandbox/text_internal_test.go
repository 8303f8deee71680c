package sandbox

import (
	"testing"

	"github.com/helios-agents/helios/kernel/modeltext/modeltexttest"
)

// The sandbox's sentences are checked against testdata/golden: a wording
// change is a reviewed diff (go test ./sandbox -run
// TestModelTextGolden -update).
func TestModelTextGolden(t *testing.T) {
	pol := Policy{Mode: WorkspaceWrite, WorkDir: "/w", TempDir: "/tmp/helios-1", Writable: []string{"/cache"}}
	pl := plan{ABI: 6, Protect: []protectMount{{}}, NoNetwork: true}
	sockets := pol
	sockets.UnixSockets = []string{"/run/docker.sock"}
	net := pol
	net.Network = true
	modeltexttest.Check(t, map[string]string{
		"describe.workspace-write":     describe(WorkspaceWrite, false, []string{"/cache"}, nil),
		"describe.workspace-write.net": describe(WorkspaceWrite, true, nil, nil),
		"describe.read-only.sockets":   describe(ReadOnly, false, nil, []string{"/run/docker.sock"}),
		"confined":                     confinedNote(pol, pl),
		"confined.sockets":             confinedNote(sockets, pl),
		"confined.network":             confinedNote(net, plan{ABI: 6}),
	})
}
