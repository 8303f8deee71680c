package sandbox

import (
	"fmt"
	"os"
	"runtime"
	"syscall"
	"unsafe"

	"github.com/elastic/go-seccomp-bpf"
	"github.com/elastic/go-seccomp-bpf/arch"
	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// confineAndExec applies p to this thread and executes p.Argv from it. The
// thread stays locked: Landlock and seccomp bind the calling thread, and
// execve hands its restrictions to the new program.
func confineAndExec(p plan, status *os.File) error {
	runtime.LockOSThread() // never unlocked
	syscall.CloseOnExec(statusFD)
	if err := restrict(p); err != nil {
		return err
	}
	if _, err := status.WriteString(readyToken); err != nil {
		return err
	}
	err := syscall.Exec(p.Argv[0], p.Argv, os.Environ())
	return fmt.Errorf("exec %s: %w", p.Argv[0], err)
}

// restrict confines the calling thread: no new privileges, Landlock, then
// the seccomp socket filter.
func restrict(p plan) error {
	cfg, err := landlockConfig(p)
	if err != nil {
		return err
	}
	rules := []landlock.Rule{landlock.RODirs("/"), landlock.RWFiles(devices...).IgnoreIfMissing()}
	if len(p.WritableDirs) > 0 {
		rules = append(rules, landlock.RWDirs(p.WritableDirs...).WithRefer())
	}
	if len(p.WritableFiles) > 0 {
		rules = append(rules, landlock.RWFiles(p.WritableFiles...))
	}
	fd, flags, err := cfg.NewRulesetFD(rules...)
	if err != nil {
		return fmt.Errorf("landlock ruleset: %w", err)
	}
	if fd < 0 {
		return fmt.Errorf("landlock ruleset: nothing to enforce with ABI %d", p.ABI)
	}
	defer unix.Close(fd)
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	if err := ll.LandlockRestrictSelf(fd, flags); err != nil {
		return fmt.Errorf("landlock_restrict_self: %w", err)
	}
	if p.Seccomp {
		if err := loadSocketFilter(p.LandlockTCP); err != nil {
			return err
		}
	}
	return nil
}

// abiConfigs are go-landlock's configurations by ABI (index ABI-1).
var abiConfigs = []landlock.Config{landlock.V1, landlock.V2, landlock.V3, landlock.V4, landlock.V5,
	landlock.V6, landlock.V7, landlock.V8, landlock.V9, landlock.V10, landlock.V11}

// landlockConfig handles every file right of p.ABI but the device ioctls
// and Unix socket connects (neither writes anything; Unix sockets stay
// usable), and the network rights p asks for. Not best effort: a kernel
// lacking a right fails the command.
func landlockConfig(p plan) (landlock.Config, error) {
	if p.ABI < 1 {
		return landlock.Config{}, fmt.Errorf("landlock: no ABI")
	}
	base := abiConfigs[min(p.ABI, len(abiConfigs))-1]
	cfg := landlock.Config{HandledAccessFS: base.HandledAccessFS &^ (ll.AccessFSIoctlDev | ll.AccessFSResolveUnix)}
	if p.LandlockTCP {
		cfg.HandledAccessNet |= ll.AccessNetBindTCP | ll.AccessNetConnectTCP
	}
	if p.LandlockUDP {
		cfg.HandledAccessNet |= ll.AccessNetBindUDP | ll.AccessNetConnectSendUDP
	}
	if p.ScopeSignals {
		cfg.Scoped |= ll.ScopeSignal
	}
	return cfg, nil
}

// Socket families and protocols the filter lets through.
const (
	afUnix    = unix.AF_UNIX
	afInet    = unix.AF_INET
	afInet6   = unix.AF_INET6
	afNetlink = unix.AF_NETLINK
)

// loadSocketFilter installs a seccomp filter on the calling thread: a
// socket may be Unix or netlink (neither leaves the machine) or, when
// Landlock refuses TCP connect and bind, a plain TCP socket; everything else
// (UDP, raw, packet, SCTP, MPTCP, ...) fails with EACCES. io_uring is
// refused too (it can create sockets past seccomp), and so is every system
// call of a foreign ABI (32-bit x86's socketcall would bypass the filter).
func loadSocketFilter(tcpByLandlock bool) error {
	deny := seccomp.ActionErrno | seccomp.Action(unix.EACCES)
	arg := func(n uint32, op seccomp.Operation, v uint64) seccomp.Condition {
		return seccomp.Condition{Argument: n, Operation: op, Value: v}
	}
	conds := []seccomp.ArgumentConditions{{
		arg(0, seccomp.NotEqual, afUnix), arg(0, seccomp.NotEqual, afNetlink),
		arg(0, seccomp.NotEqual, afInet), arg(0, seccomp.NotEqual, afInet6),
	}}
	for _, fam := range []uint64{afInet, afInet6} {
		if !tcpByLandlock {
			conds = append(conds, seccomp.ArgumentConditions{arg(0, seccomp.Equal, fam)})
			continue
		}
		conds = append(conds,
			// The type's low four bits must be SOCK_STREAM (1).
			seccomp.ArgumentConditions{arg(0, seccomp.Equal, fam), arg(1, seccomp.BitsNotSet, unix.SOCK_STREAM)},
			seccomp.ArgumentConditions{arg(0, seccomp.Equal, fam), arg(1, seccomp.BitsSet, 0xe)},
			// The protocol must be 0 or TCP (not MPTCP or SCTP).
			seccomp.ArgumentConditions{arg(0, seccomp.Equal, fam), arg(2, seccomp.NotEqual, 0), arg(2, seccomp.NotEqual, unix.IPPROTO_TCP)},
		)
	}
	var withArgs []seccomp.NameWithConditions
	for _, c := range conds {
		withArgs = append(withArgs, seccomp.NameWithConditions{Name: "socket", Conditions: c})
	}
	native, err := arch.GetInfo("")
	if err != nil {
		return fmt.Errorf("seccomp filter: %w", err)
	}
	denied := []string{"io_uring_setup"}
	if _, ok := native.SyscallNames["socketcall"]; ok {
		// 32-bit x86 and others multiplex socket(2) through socketcall,
		// whose arguments a filter cannot read.
		denied = append(denied, "socketcall")
	}
	policy := seccomp.Policy{
		DefaultAction: seccomp.ActionAllow,
		Syscalls: []seccomp.SyscallGroup{
			{Action: deny, NamesWithCondtions: withArgs},
			{Action: deny, Names: denied},
		},
	}
	insts, err := policy.Assemble()
	if err != nil {
		return fmt.Errorf("seccomp filter: %w", err)
	}
	prologue := []bpf.Instruction{
		bpf.LoadAbsolute{Off: 4, Size: 4}, // seccomp_data.arch
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(native.ID), SkipTrue: 1},
		bpf.RetConstant{Val: uint32(deny)},
	}
	raw, err := bpf.Assemble(append(prologue, insts...))
	if err != nil {
		return fmt.Errorf("seccomp filter: %w", err)
	}
	filter := make([]unix.SockFilter, len(raw))
	for i, r := range raw {
		filter[i] = unix.SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	if err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&prog)), 0, 0); err != nil {
		return fmt.Errorf("seccomp filter: %w", err)
	}
	return nil
}

// kill kills the child, and its process group when it leads one.
func (c *Cmd) kill() {
	if a := c.Cmd.SysProcAttr; a != nil && a.Setpgid {
		_ = syscall.Kill(-c.Cmd.Process.Pid, syscall.SIGKILL)
	}
	_ = c.Cmd.Process.Kill()
}
