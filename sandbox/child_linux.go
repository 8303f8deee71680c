package sandbox

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// confineAndExec applies p to this thread and executes p.Argv from it. The
// thread stays locked: Landlock, the capability sets and seccomp bind the
// calling thread, and execve hands them to the new program.
func confineAndExec(p plan, status *os.File) error {
	runtime.LockOSThread() // never unlocked
	syscall.CloseOnExec(statusFD)
	// Helios's death kills the command: this process is the init of the
	// command's PID namespace (and becomes the command by exec), and when
	// it dies the kernel kills every process of the namespace.
	if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(unix.SIGKILL), 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_PDEATHSIG): %w", err)
	}
	if err := restrict(p); err != nil {
		return err
	}
	// No descriptor but 0, 1 and 2 reaches the command: one Helios
	// inherited (exec 9>>/outside/log) would write past Landlock.
	if err := unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC); err != nil {
		return fmt.Errorf("close_range: %w", err)
	}
	// Helios reads this; had it died before PR_SET_PDEATHSIG, the write
	// fails (EPIPE) and the command never runs.
	if _, err := status.WriteString(readyToken); err != nil {
		return err
	}
	err := syscall.Exec(p.Argv[0], p.Argv, os.Environ())
	return fmt.Errorf("exec %s: %w", p.Argv[0], err)
}

// restrict confines the calling thread, each step failing the command when
// it cannot be applied: the protected paths' read-only mounts (in the
// namespace the parent made), no new privileges, Landlock, no
// capabilities, then the seccomp filter.
func restrict(p plan) error {
	if err := ownWorld(p); err != nil {
		return err
	}
	if len(p.Protect) > 0 {
		if err := protect(p.Protect); err != nil {
			return fmt.Errorf("protected paths: %w", err)
		}
	}
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
	if p.Unix == unixLandlock && len(p.UnixSockets) > 0 {
		rules = append(rules, landlock.PathAccess(ll.AccessFSResolveUnix, p.UnixSockets...))
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
	if err := dropCapabilities(); err != nil {
		return err
	}
	return loadFilter(p)
}

// protect applies the protected paths' mounts in this process's own mount
// namespace (whose mounts are slaves, see ownWorld). Each path is opened without
// following any symlink (the parent resolved them all: a link there now was
// swapped in since), cloned as a detached mount, made read-only (or, for a
// skills folder, writable) before it is attached, and attached on itself.
func protect(mounts []protectMount) error {
	for _, m := range mounts {
		if err := bindOnItself(m); err != nil {
			return fmt.Errorf("%s: %w", m.Path, err)
		}
	}
	return nil
}

func bindOnItself(m protectMount) error {
	at, err := unix.Openat2(unix.AT_FDCWD, m.Path, &unix.OpenHow{
		Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
	if err != nil {
		return fmt.Errorf("open: %w", err)
	}
	defer unix.Close(at)
	tree, err := unix.OpenTree(at, "", unix.AT_EMPTY_PATH|unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE)
	if err != nil {
		return fmt.Errorf("open_tree: %w", err)
	}
	defer unix.Close(tree)
	attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}
	flags := uint(unix.AT_EMPTY_PATH | unix.AT_RECURSIVE)
	if m.Writable {
		// Only the folder itself: a read-only mount below it stays so.
		attr = unix.MountAttr{Attr_clr: unix.MOUNT_ATTR_RDONLY}
		flags = unix.AT_EMPTY_PATH
	}
	if err := unix.MountSetattr(tree, "", flags, &attr); err != nil {
		return fmt.Errorf("mount_setattr: %w", err)
	}
	if err := unix.MoveMount(tree, "", at, "", unix.MOVE_MOUNT_F_EMPTY_PATH|unix.MOVE_MOUNT_T_EMPTY_PATH); err != nil {
		return fmt.Errorf("move_mount: %w", err)
	}
	return nil
}

// abiConfigs are go-landlock's configurations by ABI (index ABI-1).
var abiConfigs = []landlock.Config{landlock.V1, landlock.V2, landlock.V3, landlock.V4, landlock.V5,
	landlock.V6, landlock.V7, landlock.V8, landlock.V9, landlock.V10, landlock.V11}

// landlockConfig handles every file right of p.ABI but the device ioctls
// (they write nothing) and, unless p.Unix says Landlock decides, resolving
// path Unix sockets; the signal and abstract socket scopes p asks for.
// Sockets themselves are seccomp's. Not best effort: a kernel lacking a
// right fails the command.
func landlockConfig(p plan) (landlock.Config, error) {
	if p.ABI < 1 {
		return landlock.Config{}, errors.New("configure landlock: no ABI")
	}
	base := abiConfigs[min(p.ABI, len(abiConfigs))-1]
	handled := base.HandledAccessFS &^ ll.AccessFSIoctlDev
	if p.Unix != unixLandlock {
		handled &^= ll.AccessFSResolveUnix
	}
	cfg := landlock.Config{HandledAccessFS: handled}
	if p.ScopeSignals {
		cfg.Scoped |= ll.ScopeSignal
	}
	if p.ScopeAbstract {
		cfg.Scoped |= ll.ScopeAbstractUnixSocket
	}
	return cfg, nil
}

// dropCapabilities empties every capability set of this thread: the
// bounding set (so that no exec gains one back), the ambient, inheritable,
// permitted and effective sets. Root then keeps its user id but loses what
// made it root: no mknod, no network administration, no sethostname, no
// reading another process's memory, no override of file permissions. A
// process without CAP_SETPCAP (an ordinary user outside a user namespace)
// cannot shrink its bounding set; it has no capability to lose, and no
// new privileges stops any exec from granting one.
func dropCapabilities() error {
	last := lastCap()
	for c := 0; c <= last; c++ {
		err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0)
		if err != nil && !(errors.Is(err, unix.EPERM) && os.Geteuid() != 0) {
			return fmt.Errorf("drop capability %d from the bounding set: %w", c, err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("clear the ambient capabilities: %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var none [2]unix.CapUserData
	if err := unix.Capset(&hdr, &none[0]); err != nil {
		return fmt.Errorf("capset: %w", err)
	}
	var got [2]unix.CapUserData
	if err := unix.Capget(&hdr, &got[0]); err != nil {
		return fmt.Errorf("capget: %w", err)
	}
	if got != none {
		return fmt.Errorf("capabilities left after capset: %+v", got)
	}
	return nil
}

// lastCap is the highest capability this kernel knows.
func lastCap() int {
	if b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap"); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			return n
		}
	}
	return unix.CAP_LAST_CAP
}

// prepare sets what a confined command starts with: a new session (no
// controlling terminal; the command leads its own process group, as with
// Setpgid), and its own world: new user, mount, PID and IPC namespaces, and
// a net namespace with the network off. The user namespace maps only the
// caller's own ids (root to root: root there holds no capability over the
// machine). The child is the PID namespace's init: when it (the command,
// once executed) ends, the kernel kills every process it left. A non-root
// child keeps the two capabilities it needs to build its world and to
// empty its bounding set; it drops them before executing the command.
func (c *Cmd) prepare() {
	var attr syscall.SysProcAttr
	if c.Cmd.SysProcAttr != nil {
		attr = *c.Cmd.SysProcAttr
	}
	attr.Setsid, attr.Setpgid, attr.Setctty, attr.Foreground = true, false, false, false
	if c.namespaces {
		attr.Cloneflags |= syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID | syscall.CLONE_NEWIPC
		if c.noNetwork {
			attr.Cloneflags |= syscall.CLONE_NEWNET
		}
		uid, gid := os.Geteuid(), os.Getegid()
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
		attr.GidMappingsEnableSetgroups = false
		if uid != 0 {
			attr.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_SETPCAP}
		}
	}
	c.Cmd.SysProcAttr = &attr
}

// startHint explains a start that failed for want of a user namespace.
func startHint(err error, namespaces bool) error {
	if !namespaces || !(errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EINVAL)) {
		return err
	}
	return fmt.Errorf("%w: %w: a confined command needs a user namespace, which this machine refuses "+
		"(its user, mount, PID and IPC namespaces build the command's world; see the sysctls user.max_user_namespaces, kernel.unprivileged_userns_clone and kernel.apparmor_restrict_unprivileged_userns); %s",
		ErrUnenforceable, err, offKey)
}

// protectProcess keeps the kernel's memory and environment (the model's
// API key) from its own commands: running as root, it makes the process
// non-dumpable, so that reading its /proc files needs CAP_SYS_PTRACE, which
// commands never hold. (An ordinary user's process stays dumpable: a
// non-dumpable parent could not set up the user namespaces of its commands;
// there the user namespace and Landlock keep commands out.)
func protectProcess() error {
	if os.Geteuid() != 0 {
		return nil
	}
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_DUMPABLE): %w", err)
	}
	return nil
}

// kill kills the child, and its process group when it leads one.
func (c *Cmd) kill() {
	if a := c.Cmd.SysProcAttr; a != nil && (a.Setpgid || a.Setsid) {
		_ = syscall.Kill(-c.Cmd.Process.Pid, syscall.SIGKILL)
	}
	_ = c.Cmd.Process.Kill()
}
