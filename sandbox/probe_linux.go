package sandbox

import (
	"errors"
	"os"
	"strings"
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
	s.UserNSError = userNSRefused(os.Geteuid())
	return s
}

// userNSRefused says which setting refuses user namespaces to uid ("" when
// none does; a refusal at clone time is reported by the command's start).
func userNSRefused(uid int) string {
	read := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(b))
	}
	if read("/proc/sys/user/max_user_namespaces") == "0" {
		return "the sysctl user.max_user_namespaces is 0"
	}
	if uid == 0 {
		return ""
	}
	if read("/proc/sys/kernel/unprivileged_userns_clone") == "0" {
		return "the sysctl kernel.unprivileged_userns_clone is 0"
	}
	if read("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == "1" {
		return "the sysctl kernel.apparmor_restrict_unprivileged_userns is 1 (AppArmor refuses them to unconfined programs)"
	}
	return ""
}
