package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync/atomic"
)

// childArg is argv[1] of the re-executed child. It is shaped as a flag, so
// that a program that forgot to call Main fails at flag parsing instead of
// running as itself.
const childArg = "-helios-sandbox-exec"

// readyToken is what the child writes on its status pipe once confined,
// just before executing the program.
const readyToken = "confined\n"

// statusFD is the child's status pipe (Cmd.ExtraFiles[0]).
const statusFD = 3

// ErrNoMain is wrapped by New in a confining mode when the program never
// called Main: its confined commands could not start.
var ErrNoMain = errors.New("the program never called sandbox.Main()")

// mainCalled records that Main ran, for New to check. It is the one piece
// of package state: whether this process's main is an entry point.
var mainCalled atomic.Bool

// Main is the sandbox's entry point in the re-executed child. Call it first
// thing in main, and in TestMain of tests whose kernel runs commands; New
// refuses to confine in a program that did not (ErrNoMain). In the child
// it confines the process and executes the program, never returning;
// anywhere else it returns at once.
func Main() {
	mainCalled.Store(true)
	if len(os.Args) < 3 || os.Args[1] != childArg {
		return
	}
	os.Exit(child(os.Args[2]))
}

// checkMain says what to add when Main was not called.
func checkMain() error {
	if mainCalled.Load() {
		return nil
	}
	return fmt.Errorf("%w: add sandbox.Main() (package github.com/helios-agents/helios/sandbox) "+
		"as the first statement of main, and of TestMain in tests: the model's commands run confined in a "+
		"re-executed copy of the program, which starts there (or set tools.sandbox.mode to \"off\")", ErrNoMain)
}

// child confines itself by the plan in enc and executes the plan's argv.
// It reports on the status pipe: readyToken then nothing (the exec closed
// the pipe), or an error.
func child(enc string) int {
	status := os.NewFile(statusFD, "sandbox-status")
	if status == nil {
		fmt.Fprintln(os.Stderr, "confine command: no status pipe")
		return 126
	}
	var p plan
	if err := json.Unmarshal([]byte(enc), &p); err != nil || len(p.Argv) == 0 {
		fmt.Fprintf(status, "bad plan %q: %v", enc, err)
		return 126
	}
	if err := confineAndExec(p, status); err != nil {
		fmt.Fprintf(status, "%v", err)
		return 126
	}
	return 127 // not reached: confineAndExec returns only errors
}

// selfExe is the running program, even when its file was replaced or
// removed since it started. A variable only for the tests.
var selfExe = "/proc/self/exe"
