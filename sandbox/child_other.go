//go:build !linux

package sandbox

import (
	"errors"
	"os"
)

func probe() Support {
	return Support{LandlockError: "Landlock exists only on Linux", SeccompError: "seccomp exists only on Linux"}
}

func confineAndExec(plan, *os.File) error {
	return errors.New("confinement exists only on Linux")
}

func compileFilter(plan) ([]byte, error) {
	return nil, errors.New("seccomp exists only on Linux")
}

func (c *Cmd) prepare() {}

func startHint(err error, _ bool) error { return err }

func protectProcess() error { return nil }

func (c *Cmd) kill() { _ = c.Cmd.Process.Kill() }
