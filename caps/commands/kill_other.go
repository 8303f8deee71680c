//go:build !unix

package commands

import "os/exec"

// kill ends cmd.
func kill(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
