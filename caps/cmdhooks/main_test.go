package cmdhooks_test

import (
	"fmt"
	"net"
	"os"
	"testing"

	"github.com/helios-agents/helios/sandbox"
)

// probeArg makes the test binary the probe of TestHooksAreNotConfined
// instead of running the tests.
const probeArg = "cmdhooks-reach-probe"

// TestMain lets the test binary act as the sandbox's re-executed child (so
// the Bash calls of these tests really run confined) and as a probe.
func TestMain(m *testing.M) {
	sandbox.Main()
	if len(os.Args) == 3 && os.Args[1] == probeArg {
		os.Exit(reach(os.Args[2]))
	}
	os.Exit(m.Run())
}

// reach tries what a confined command may not do with the network off:
// write file (outside the work dir) and listen on TCP at 127.0.0.1 (and
// accept a connection there). It prints what it did or why it could not,
// and fails when either failed.
func reach(file string) int {
	var failed bool
	if err := os.WriteFile(file, []byte("written from outside the box\n"), 0o644); err != nil {
		fmt.Println("write:", err)
		failed = true
	} else {
		fmt.Println("wrote", file)
	}
	if addr, err := listen(); err != nil {
		fmt.Println("listen:", err)
		failed = true
	} else {
		fmt.Println("listened on", addr)
	}
	if failed {
		return 1
	}
	return 0
}

func listen() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	accepted := make(chan error, 1)
	go func() {
		c, err := l.Accept()
		if err == nil {
			c.Close()
		}
		accepted <- err
	}()
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		return "", err
	}
	c.Close()
	return l.Addr().String(), <-accepted
}
