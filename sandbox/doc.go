// Package sandbox starts the processes the model asks for (the Bash tool's
// shell) with an allowlisted environment and, on Linux, confined: files by
// Landlock; the protected paths of the writable folders (helios.config.json,
// .git, .helios and .agents but their skills folders) by read-only bind
// mounts in a private mount namespace; sockets, the terminal injection
// ioctls and foreign system call ABIs by a seccomp filter; privileges by
// emptying every capability set and no_new_privs; the terminal by a new
// session. With the network off a command opens no IP socket and no Unix
// socket but stream socket pairs and the allowed ones.
//
// Confinement is applied by re-executing the program's own binary in a
// small entry point, [Main], which confines itself and then executes the
// shell: the kernel process is never confined. A program whose kernel runs
// confined commands must therefore call Main first thing in main (and test
// binaries in TestMain). Without it, New refuses to make a confining
// sandbox ([ErrNoMain], naming the line to add), so the program learns it
// when it assembles its kernel; and should a child still run a program
// lacking the entry point, it never reports that it is confined and the
// command is refused: confinement fails closed, as it does when any step
// of the child's plan cannot be applied.
//
// Modes: [WorkspaceWrite] (the default on Linux: read everywhere, write the
// work dir, the session's temp dir and configured paths), [ReadOnly] (write
// only the session's temp dir) and [Off] (unconfined). Network is off unless
// Config.Network is set. A mode the machine cannot enforce is an error the
// model reads, naming what is missing and the key to set.
package sandbox
