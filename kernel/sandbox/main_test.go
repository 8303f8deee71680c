package sandbox_test

import (
	"fmt"
	"net"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/helios-agents/helios/kernel/sandbox"
)

// dialEnv makes the test binary, run as a confined command, a client that
// opens one connection: "<network> <address>" ("mptcp" opens an MPTCP
// socket), and prints "connected" or "refused: <error>".
const dialEnv = "SANDBOX_TEST_DIAL"

func TestMain(m *testing.M) {
	sandbox.Main()
	if spec := os.Getenv(dialEnv); spec != "" {
		os.Exit(dial(spec))
	}
	os.Exit(m.Run())
}

func dial(spec string) int {
	var network, addr string
	fmt.Sscan(spec, &network, &addr)
	if network == "mptcp" {
		fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 262 /* IPPROTO_MPTCP */)
		if err != nil {
			fmt.Println("refused:", err)
			return 1
		}
		syscall.Close(fd)
		fmt.Println("connected")
		return 0
	}
	c, err := net.DialTimeout(network, addr, 5*time.Second)
	if err == nil {
		c.Close()
	}
	if err != nil {
		fmt.Println("refused:", err)
		return 1
	}
	fmt.Println("connected")
	return 0
}
