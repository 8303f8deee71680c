// Package sandbox starts the processes the model asks for (the Bash tool's
// shell) with an allowlisted environment and, on Linux, confined: Landlock
// rules for files and TCP, and a seccomp filter refusing the socket families
// Landlock does not cover (UDP, raw, packet, ...). Unix sockets stay usable.
//
// Confinement is applied by re-executing the program's own binary in a
// small entry point, [Main], which confines itself and then executes the
// shell: the kernel process is never confined. A program whose kernel runs
// confined commands must therefore call Main first thing in main (and test
// binaries in TestMain). Without it, the child never reports that it is
// confined and the command is refused: confinement fails closed.
//
// Modes: [WorkspaceWrite] (the default on Linux: read everywhere, write the
// work dir, the session's temp dir and configured paths), [ReadOnly] (write
// only the session's temp dir) and [Off] (unconfined). Network is off unless
// Config.Network is set. A mode the machine cannot enforce is an error the
// model reads, naming what is missing and the key to set.
package sandbox
