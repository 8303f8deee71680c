package sandbox

import (
	"errors"
	"syscall"

	"github.com/elastic/go-seccomp-bpf"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

func probe() Support {
	var s Support
	v, err := ll.LandlockGetABIVersion()
	switch {
	case errors.Is(err, syscall.ENOSYS):
		s.LandlockError = "the kernel was built without Landlock"
	case errors.Is(err, syscall.EOPNOTSUPP):
		s.LandlockError = "Landlock is disabled at boot (add landlock to the lsm= kernel parameter)"
	case err != nil:
		s.LandlockError = err.Error()
	default:
		s.LandlockABI = v
	}
	if s.Seccomp = seccomp.Supported(); !s.Seccomp {
		s.SeccompError = "the kernel does not offer seccomp filters"
	}
	return s
}
