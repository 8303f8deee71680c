package sandbox_test

import (
	"fmt"
	"net"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/helios-agents/helios/sandbox"
)

// dialEnv makes the test binary, run as a confined command, a client that
// opens one connection: "<network> <address>" ("mptcp" opens an MPTCP
// socket, "socketpair stream|dgram" a socket pair, "tfo <address>" sends
// with TCP Fast Open), and prints "connected" or "refused: <error>".
const dialEnv = "SANDBOX_TEST_DIAL"

func TestMain(m *testing.M) {
	sandbox.Main()
	if len(os.Args) > 1 && os.Args[1] == probeArg {
		os.Exit(probe(os.Args[2:])) // see confinement_test.go
	}
	if spec := os.Getenv(dialEnv); spec != "" {
		os.Exit(dial(spec))
	}
	os.Exit(m.Run())
}

func dial(spec string) int {
	var network, addr string
	fmt.Sscan(spec, &network, &addr)
	err := func() error {
		switch network {
		case "mptcp":
			fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 262 /* IPPROTO_MPTCP */)
			if err == nil {
				syscall.Close(fd)
			}
			return err
		case "socketpair":
			typ := syscall.SOCK_STREAM
			if addr == "dgram" {
				typ = syscall.SOCK_DGRAM
			}
			fds, err := syscall.Socketpair(syscall.AF_UNIX, typ, 0)
			if err == nil {
				syscall.Close(fds[0])
				syscall.Close(fds[1])
			}
			return err
		case "tfo":
			return tcpFastOpen(addr)
		}
		c, err := net.DialTimeout(network, addr, 5*time.Second)
		if err == nil {
			c.Close()
		}
		return err
	}()
	if err != nil {
		fmt.Println("refused:", err)
		return 1
	}
	fmt.Println("connected")
	return 0
}

// tcpFastOpen sends a request in the SYN to addr (an IPv4 "host:port"),
// as sendto(MSG_FASTOPEN) does without any connect.
func tcpFastOpen(addr string) error {
	a, err := net.ResolveTCPAddr("tcp4", addr)
	if err != nil {
		return err
	}
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		return fmt.Errorf("socket: %w", err)
	}
	defer syscall.Close(fd)
	to := &syscall.SockaddrInet4{Port: a.Port}
	copy(to.Addr[:], a.IP.To4())
	const msgFastopen = 0x20000000
	return syscall.Sendto(fd, []byte("GET / HTTP/1.0\r\n\r\n"), msgFastopen, to)
}
