//go:build !unix

package cmdhooks

import (
	"os"
	"os/exec"
)

// setGroup does nothing: without process groups only the shell is killed.
func setGroup(*exec.Cmd) {}

func killGroup(p *os.Process) { _ = p.Kill() }

func signalOf(*os.ProcessState) string { return "unknown" }
