package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Report is what `helios sandbox check` prints: what the machine supports,
// the effective policy of the config, and each protection with the
// mechanism that enforces it on this machine.
type Report struct {
	Support Support `json:"support"`
	// Mode and Network are the effective policy; in mode "off" nothing is
	// confined and Network is meaningless.
	Mode    string `json:"mode"`
	Network bool   `json:"network"`
	WorkDir string `json:"workDir"`
	// Writable are the paths commands may write; "$TMPDIR" stands for the
	// session's temp dir, made under TempRoot.
	Writable []string `json:"writable"`
	TempRoot string   `json:"tempRoot"`
	// UnixSockets are the sockets commands may connect to with the network
	// off.
	UnixSockets []string `json:"unixSockets,omitempty"`
	// Protected are the paths that stay read-only inside the writable
	// ones (a missing .git is made empty to be kept so); a path ending in
	// "/skills (writable)" is the exception inside its folder.
	Protected []string `json:"protected,omitempty"`
	// RunsAsRoot says Helios runs as root; Dropped says what its commands lose.
	RunsAsRoot bool   `json:"root"`
	Dropped    string `json:"dropped,omitempty"`
	// Protections are the promises, each with its mechanism here.
	Protections []Protection `json:"protections,omitempty"`
	// Warnings point out a policy that confines less than it seems: a
	// work dir that holds the home directory or is the root.
	Warnings []string `json:"warnings,omitempty"`
	// Enforcement sums up the mechanisms ("" in mode off).
	Enforcement string `json:"enforcement"`
	// Enforceable is false when the mode cannot be enforced or a confined
	// test command failed; Error says why and which key to set.
	Enforceable bool   `json:"enforceable"`
	Error       string `json:"error,omitempty"`
}

// Protection is one promise made about confined commands and what keeps
// it on this machine.
type Protection struct {
	Name      string `json:"name"`
	Promise   string `json:"promise"`
	Mechanism string `json:"mechanism"`
}

// Report describes s for commands run in workDir, after running a confined
// command that does nothing there to prove it works (see Verify). In mode
// off the machine is probed anyway, to show what it could do.
func (s *Sandbox) Report(workDir string) Report {
	support := s.support
	if s.mode == Off {
		support = Probe()
	}
	root := s.cfg.TempRoot
	if root == "" {
		root = os.TempDir()
	}
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	r := Report{Support: support, Mode: s.mode.String(), Network: s.cfg.Network, WorkDir: workDir, TempRoot: root,
		UnixSockets: s.cfg.UnixSockets, RunsAsRoot: os.Geteuid() == 0, Enforceable: true}
	if s.mode == Off {
		return r
	}
	pol := s.Policy(workDir, "$TMPDIR")
	r.Writable = pol.WritablePaths()
	r.Warnings = widePaths(r.Writable)
	pl, err := makePlan(pol, support, false)
	if err != nil {
		r.Enforceable, r.Error = false, err.Error()
		return r
	}
	for _, m := range pl.Protect {
		p := m.Path
		if m.Writable {
			p += " (writable)"
		}
		r.Protected = append(r.Protected, p)
	}
	r.Protections = pl.protections(pol, r.RunsAsRoot)
	if r.RunsAsRoot {
		r.Dropped = "every capability of root (" + capsOf("CapEff") + "): they keep user id 0 but cannot override file permissions, " +
			"make devices, administer the network, set the hostname or read other processes' memory"
	}
	r.Enforcement = pl.mechanisms()
	if err := s.Verify(workDir); err != nil {
		r.Enforceable, r.Error = false, err.Error()
	}
	return r
}

// protections lists each promise of pl with its mechanism.
func (pl plan) protections(pol Policy, root bool) []Protection {
	out := []Protection{{
		Name:      "files",
		Promise:   "read everywhere, write only in " + strings.Join(pol.WritablePaths(), ", "),
		Mechanism: fmt.Sprintf("Landlock ABI %d (file access rights, truncation included)", pl.ABI),
	}}
	if len(pl.Protect) > 0 {
		how := "read-only bind mounts in a private mount namespace, made before Landlock"
		if !root {
			how += " (inside a user namespace mapping only your own ids)"
		}
		out = append(out, Protection{
			Name:      "protected paths",
			Promise:   "helios.config.json, helios-lock.json, .git, .helios and .agents (but their skills folders) stay read-only in every writable folder, and so does ~/.helios",
			Mechanism: how,
		})
	}
	switch {
	case !pl.NoNetwork:
		out = append(out, Protection{Name: "network", Promise: "allowed (tools.sandbox.network is true): every socket, Unix ones too; of netlink sockets only NETLINK_ROUTE",
			Mechanism: "seccomp filter on socket(2) for netlink"})
	default:
		out = append(out, Protection{
			Name:      "network",
			Promise:   "no IP socket at all (TCP, TCP Fast Open, UDP, raw, MPTCP), no netlink socket (NETLINK_USERSOCK, NETLINK_ROUTE), no io_uring",
			Mechanism: "seccomp filter on socket(2) and io_uring_setup(2), a net namespace of its own",
		})
		unix := Protection{Name: "unix sockets", Promise: "no Unix socket but stream and seqpacket socket pairs", Mechanism: "seccomp filter on socket(2) and socketpair(2)"}
		if pl.Unix == unixLandlock {
			unix.Promise = "no path socket but " + orNone(pl.UnixSockets) + "; no abstract socket made outside the command"
			unix.Mechanism = fmt.Sprintf("Landlock ABI %d (resolving path sockets, abstract socket scope)", pl.ABI)
		}
		out = append(out, unix)
	}
	out = append(out,
		Protection{Name: "terminal", Promise: "a new session without a controlling terminal; TIOCSTI and TIOCLINUX refused on any terminal fd", Mechanism: "setsid(2), seccomp filter on ioctl(2)"},
		Protection{Name: "privileges", Promise: "no capability (effective, permitted, inheritable, ambient, bounding) and no new privileges through exec", Mechanism: "capset(2), PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS"},
	)
	world, apart := "user, mount, PID and IPC namespaces", "its processes and SysV IPC"
	if pl.NoNetwork {
		world, apart = "user, mount, PID, IPC and net namespaces", "its processes, SysV IPC and network interfaces"
	}
	out = append(out,
		Protection{Name: "namespaces", Promise: "the command's own world: " + apart + " apart from the machine's",
			Mechanism: world + " (clone(2); root there maps to root but holds no capability over the machine)"},
		Protection{Name: "read-only root", Promise: "the whole file system read-only but the writable paths: chmod, chown, utime and xattrs fail outside them, root or not",
			Mechanism: "mount_setattr(2) MOUNT_ATTR_RDONLY on / (recursive), the writable paths bound back as they were"},
		Protection{Name: "/proc", Promise: "a fresh /proc showing only the command's processes", Mechanism: "proc mounted in the new PID namespace"},
		Protection{Name: "/dev", Promise: "only null, zero, full, random, urandom: no terminal (/dev/pts, /dev/tty), no disk", Mechanism: "a read-only tmpfs with those devices bound in"},
		Protection{Name: "descriptors", Promise: "no descriptor but 0, 1 and 2 reaches the command (one Helios inherited, e.g. exec 9>>log)", Mechanism: "close_range(2) CLOSE_RANGE_CLOEXEC before exec"},
		Protection{Name: "lifetime", Promise: "when the call ends (normally, timeout, cancel) or Helios dies, every process it started is gone",
			Mechanism: "the command is its PID namespace's init (the kernel kills the rest with it), PR_SET_PDEATHSIG"},
		Protection{Name: "setuid bits", Promise: "no setuid or setgid mode bit set (chmod, fchmod, fchmodat, or a file created with one)", Mechanism: "seccomp filter on chmod(2), fchmodat(2), open(2), creat(2), mknod(2) and their variants"},
	)
	procs := Protection{
		Name:      "processes",
		Promise:   "no reading /proc/<pid>/environ, mem, fd or maps of a process outside the command's tree",
		Mechanism: "no CAP_SYS_PTRACE, Landlock's ptrace restriction",
	}
	if root {
		procs.Mechanism += ", the kernel process non-dumpable"
	}
	if pl.ScopeSignals {
		procs.Promise += ", no signal to one"
		procs.Mechanism += fmt.Sprintf(", Landlock ABI %d signal scope", pl.ABI)
	}
	return append(out, procs)
}

func orNone(paths []string) string {
	if len(paths) == 0 {
		return "none"
	}
	return strings.Join(paths, ", ")
}

// capsOf reads a capability set of this process from /proc/self/status.
func capsOf(field string) string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return field + " unknown"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			return field + " " + strings.TrimSpace(v)
		}
	}
	return field + " unknown"
}

// widePaths warns about writable paths that hold the home directory (or
// are the root): commands may then rewrite the user's shell profile.
func widePaths(paths []string) []string {
	home, _ := os.UserHomeDir()
	if real, err := filepath.EvalSymlinks(home); err == nil {
		home = real
	}
	var out []string
	for _, p := range paths {
		rel, err := filepath.Rel(p, home)
		if p == "/" || (home != "" && err == nil && rel != ".." && !strings.HasPrefix(rel, "../")) {
			out = append(out, fmt.Sprintf("%s is writable and holds the home directory %s: commands can change files there (~/.bashrc, ~/.ssh)", p, home))
		}
	}
	return out
}
