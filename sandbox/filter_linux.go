package sandbox

import (
	"encoding/binary"
	"fmt"
	"unsafe"

	"github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// Return values of the filter.
const (
	retAllow  = unix.SECCOMP_RET_ALLOW
	retEACCES = unix.SECCOMP_RET_ERRNO | uint32(unix.EACCES)
	retEPERM  = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
)

// setIDBits are the setuid and setgid mode bits.
const setIDBits = unix.S_ISUID | unix.S_ISGID

// sysFchmodat2 is fchmodat2(2) (Linux 6.6), on every architecture.
const sysFchmodat2 = 452

// x32Bit marks the system calls of the x32 ABI, which share amd64's
// audit arch: a filter on amd64's numbers must refuse them all.
const x32Bit = 0x40000000

// compileFilter is the seccomp filter of p, in the kernel's layout. It
// always refuses the terminal ioctls that inject input (TIOCSTI) or paste
// a console selection (TIOCLINUX), even on a terminal fd the command
// inherited, every system call of a foreign ABI (32-bit x86's
// socketcall, x32) whose numbers the filter does not read, and (EPERM)
// setting a setuid or setgid bit by chmod, fchmod, fchmodat(2), or creating
// a file with one (creat, open, openat, mknod(at)). With the network on,
// of netlink sockets only NETLINK_ROUTE is allowed. With the network
// off it refuses, with EACCES, every socket but the Unix ones p.Unix
// allows (netlink too) (no IP socket at all: TCP Fast Open's sendto, UDP,
// raw, MPTCP are closed together), socket pairs that could send to an
// address (datagram ones) unless Landlock decides, and io_uring, which can
// open sockets past seccomp.
//
// Arguments are compared on their low 32 bits, which is what the kernel
// reads of an int: a caller setting the high bits gets no other answer.
//
// The parent compiles the program once per policy (see Sandbox.filter):
// the child only installs it.
func compileFilter(p plan) ([]byte, error) {
	native, err := arch.GetInfo("")
	if err != nil {
		return nil, fmt.Errorf("seccomp filter: %w", err)
	}
	nr := func(name string) (uint32, bool) {
		n, ok := native.SyscallNames[name]
		return uint32(n), ok
	}
	var f filterProg
	f.load(offArch)
	f.jumpIf(bpf.JumpNotEqual, uint32(native.ID), "deny", "")
	f.load(offNr)
	if native.ID == arch.X86_64.ID {
		f.jumpIf(bpf.JumpGreaterOrEqual, x32Bit, "deny", "")
	}
	if n, ok := nr("ioctl"); ok {
		f.jumpIf(bpf.JumpEqual, n, "ioctl", "")
	}
	if n, ok := nr("socketcall"); ok {
		f.jumpIf(bpf.JumpEqual, n, "deny", "") // its arguments are out of reach
	}
	// Setuid and setgid mode bits, by the index of the mode argument.
	modeCalls := []struct {
		name string
		arg  int
	}{{"chmod", 1}, {"fchmod", 1}, {"fchmodat", 2}, {"fchmodat2", 2}, {"creat", 1}, {"open", 2}, {"openat", 3}, {"mknod", 1}, {"mknodat", 2}}
	for _, c := range modeCalls {
		n, ok := nr(c.name)
		if c.name == "fchmodat2" && !ok {
			n, ok = sysFchmodat2, true // newer than the table: one number on every architecture
		}
		if ok {
			f.jumpIf(bpf.JumpEqual, n, fmt.Sprintf("mode%d", c.arg), "")
		}
	}
	if n, ok := nr("socket"); ok {
		f.jumpIf(bpf.JumpEqual, n, "socket", "")
	}
	if p.NoNetwork {
		for _, name := range []string{"socketpair", "io_uring_setup"} {
			if n, ok := nr(name); ok {
				f.jumpIf(bpf.JumpEqual, n, name, "")
			}
		}
	}
	f.ret(retAllow)

	f.label("ioctl")
	f.load(argLow(1))
	f.jumpIf(bpf.JumpEqual, unix.TIOCSTI, "eperm", "")
	f.jumpIf(bpf.JumpEqual, unix.TIOCLINUX, "eperm", "")
	f.ret(retAllow)

	for _, arg := range []int{1, 2, 3} {
		f.label(fmt.Sprintf("mode%d", arg))
		f.load(argLow(arg))
		f.jumpIf(bpf.JumpBitsSet, setIDBits, "eperm", "")
		f.ret(retAllow)
	}

	f.label("socket")
	f.load(argLow(0))
	if p.NoNetwork {
		if p.Unix == unixLandlock {
			f.jumpIf(bpf.JumpEqual, unix.AF_UNIX, "allow", "")
		}
		f.ret(retEACCES) // netlink too: no NETLINK_USERSOCK, no NETLINK_ROUTE
	} else {
		// The network is on: of netlink, only the routing one (ip, getaddrinfo).
		f.jumpIf(bpf.JumpNotEqual, unix.AF_NETLINK, "allow", "")
		f.load(argLow(2))
		f.jumpIf(bpf.JumpEqual, unix.NETLINK_ROUTE, "allow", "")
		f.ret(retEACCES)
	}

	if p.NoNetwork {
		f.label("socketpair")
		if p.Unix == unixLandlock {
			f.ret(retAllow)
		} else {
			// A stream or seqpacket pair reaches no one else: sending to an
			// address is refused or ignored on them. A datagram pair could
			// send to any socket's address.
			f.load(argLow(1))
			f.and(0xf) // the type, without SOCK_NONBLOCK and SOCK_CLOEXEC
			f.jumpIf(bpf.JumpEqual, unix.SOCK_STREAM, "allow", "")
			f.jumpIf(bpf.JumpEqual, unix.SOCK_SEQPACKET, "allow", "")
			f.ret(retEACCES)
		}

		f.label("io_uring_setup")
		f.ret(retEACCES)
	}

	f.label("allow")
	f.ret(retAllow)
	f.label("eperm")
	f.ret(retEPERM)
	f.label("deny")
	f.ret(retEACCES)

	insts, err := f.assemble()
	if err != nil {
		return nil, fmt.Errorf("seccomp filter: %w", err)
	}
	raw, err := bpf.Assemble(insts)
	if err != nil {
		return nil, fmt.Errorf("seccomp filter: %w", err)
	}
	out := make([]byte, 0, len(raw)*sockFilterSize)
	for _, r := range raw {
		out = binary.NativeEndian.AppendUint16(out, r.Op)
		out = append(out, r.Jt, r.Jf)
		out = binary.NativeEndian.AppendUint32(out, r.K)
	}
	return out, nil
}

// sockFilterSize is the size of a struct sock_filter.
const sockFilterSize = 8

// loadFilter installs the compiled filter of p on the calling thread.
func loadFilter(p plan) error {
	if len(p.Filter) == 0 || len(p.Filter)%sockFilterSize != 0 || len(p.Filter)/sockFilterSize > 0xffff {
		return fmt.Errorf("seccomp filter: a compiled program of %d bytes", len(p.Filter))
	}
	filter := make([]unix.SockFilter, len(p.Filter)/sockFilterSize)
	for i := range filter {
		b := p.Filter[i*sockFilterSize:]
		filter[i] = unix.SockFilter{Code: binary.NativeEndian.Uint16(b), Jt: b[2], Jf: b[3], K: binary.NativeEndian.Uint32(b[4:])}
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	if err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&prog)), 0, 0); err != nil {
		return fmt.Errorf("seccomp filter: %w", err)
	}
	return nil
}

// Offsets in struct seccomp_data.
const (
	offNr   = 0
	offArch = 4
	offArgs = 16
)

// argLow is the offset of the low 32 bits of argument i.
func argLow(i int) uint32 {
	off := uint32(offArgs + 8*i)
	if binary.NativeEndian.Uint16([]byte{0, 1}) == 1 { // big endian
		off += 4
	}
	return off
}

// filterProg is a BPF program whose jumps name labels; assemble turns
// them into the relative offsets BPF wants.
type filterProg struct {
	insts  []bpf.Instruction
	jumps  map[int][2]string // index of a JumpIf: its true and false labels ("" is the next one)
	labels map[string]int
}

func (f *filterProg) load(off uint32) {
	f.insts = append(f.insts, bpf.LoadAbsolute{Off: off, Size: 4})
}

func (f *filterProg) and(v uint32) {
	f.insts = append(f.insts, bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: v})
}

func (f *filterProg) ret(v uint32) {
	f.insts = append(f.insts, bpf.RetConstant{Val: v})
}

func (f *filterProg) jumpIf(cond bpf.JumpTest, v uint32, yes, no string) {
	if f.jumps == nil {
		f.jumps = map[int][2]string{}
	}
	f.jumps[len(f.insts)] = [2]string{yes, no}
	f.insts = append(f.insts, bpf.JumpIf{Cond: cond, Val: v})
}

func (f *filterProg) label(name string) {
	if f.labels == nil {
		f.labels = map[string]int{}
	}
	f.labels[name] = len(f.insts)
}

func (f *filterProg) assemble() ([]bpf.Instruction, error) {
	out := append([]bpf.Instruction(nil), f.insts...)
	for i, l := range f.jumps {
		skip := func(name string) (uint8, error) {
			if name == "" {
				return 0, nil
			}
			at, ok := f.labels[name]
			if !ok || at <= i || at-i-1 > 255 {
				return 0, fmt.Errorf("bad jump from %d to %q", i, name)
			}
			return uint8(at - i - 1), nil
		}
		j := out[i].(bpf.JumpIf)
		var err error
		if j.SkipTrue, err = skip(l[0]); err != nil {
			return nil, err
		}
		if j.SkipFalse, err = skip(l[1]); err != nil {
			return nil, err
		}
		out[i] = j
	}
	return out, nil
}
