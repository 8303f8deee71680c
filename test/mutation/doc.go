// Package main is Helios's mutation-suite runner: it breaks each contract on
// purpose, in a named way, and requires the test suite to notice.
//
//	go run ./test/mutation                 # from the module root; `make mutate` does this
//	go run ./test/mutation -only M3,M16    # a few entries (make mutate ONLY=M3,M16)
//	go run ./test/mutation -list           # what the catalogue holds; runs nothing
//
// Flags:
//
//	-catalogue PATH  the catalogue (default test/mutation/catalogue.yaml); relative
//	                 paths are relative to the module root
//	-C DIR           the module root (default: walk up from the working directory
//	                 to the nearest go.mod)
//	-only IDS        comma-separated ids to run; an unknown id is an error
//	-list            print id, file and breaks of each entry; run nothing
//	-j N             mutants run at the same time (default: the number of CPUs)
//	-timeout D       limit for each mutant's go test, canary included (default 4m)
//	-v               a progress line on stderr as each run finishes
//	-focus           run only each entry's expected tests (go test -run ^(A|B)$),
//	                 in only the packages that hold them (as the baseline found
//	                 them); entries without expect run their packages whole.
//	                 `make mutate` uses it; without it a catch by another test
//	                 reads CAUGHT-ELSEWHERE rather than ESCAPED
//
// # What it does
//
// The catalogue (catalogue.yaml beside this file; its schema is documented at
// its top) lists mutations: an id, one line on the contract it breaks, a file,
// an exact text to find there (it must match exactly once) and its
// replacement. For each entry the runner writes the mutated file to a private
// temp dir and runs
//
//	go test -count=1 -vet=off -json -overlay=FILE <packages>
//
// from the module root, where FILE maps the original path to the mutant (also
// in GOFLAGS, with -ldflags=-w: tests that build binaries build the mutant,
// and links skip the debug information nobody reads here). The
// working tree is never written to, so mutants run several at a time (-j) and
// an interrupted run leaves nothing behind: the temp dir is removed on exit and
// on SIGINT/SIGTERM, and each go test runs in its own process group, which is
// killed when its -timeout passes or the run is interrupted.
//
// Verdicts, read from the test2json stream:
//
//	CAUGHT            a test failed; the table names the failing top-level tests
//	                  (a package that fails with no failing test, e.g. a panic in
//	                  TestMain, is named "<pkg> (package)")
//	CAUGHT-ELSEWHERE  tests failed, but none of the entry's expect list did: the
//	                  expectation is wrong or a test is missing
//	ESCAPED           every test passed
//	BUILD-FAILED      the mutant does not compile; it proves nothing
//	STALE             the find text no longer matches exactly once; not run
//	TIMEOUT           no result within -timeout
//
// Only CAUGHT passes. The last line is "mutate: N passed, M failed" and the
// exit status is 0 only when every selected entry was CAUGHT (1 when something
// failed, 2 for a usage or catalogue error).
//
// Before the catalogue the runner runs the baseline (the canary's and the
// selected entries' packages with no overlay; it must pass, or no verdict would
// mean anything) and the canary (a mutant of the canary package beside this
// file that must be CAUGHT; if it is not, the runner itself is broken and every
// ESCAPED would be a lie). The baseline has no -timeout: it may be the run that
// fills the build cache; go test still gets a limit of its own (40 minutes for
// the baseline, a minute past -timeout for a mutant) in place of its default
// 10 minutes, which the whole unit suite can pass on a busy machine.
//
// The unit suite keeps the catalogue honest between mutation runs:
// TestCatalogueIsFresh fails as soon as an entry's find text stops matching
// exactly once.
//
// # Adding a mutation
//
// Every contract adds its mutations when it lands:
//
//  1. Pick the next id (M21, ...) and write breaks: one line naming the
//     contract it violates.
//  2. Copy find from the code exactly, with enough context to match exactly
//     once. Go source is tab-indented: in a YAML block scalar keep the tabs
//     after the YAML indentation, but start the first line at its first
//     non-tab character (YAML rejects a leading tab there), or write a
//     double-quoted string with \t.
//  3. Write a replacement that compiles and breaks ONE contract, the way a
//     plausible bug would. A mutant that does not compile is BUILD-FAILED and
//     proves nothing.
//  4. List in expect the tests that must catch it, and packages if the default
//     set is wider than needed.
//  5. Run it alone: go run ./test/mutation -only M21.
//
// Never weaken a mutation that escapes so that it is caught: an ESCAPED
// mutant means a contract has no test. Write the missing test.
//
// # Why GOFLAGS=-cover is refused
//
// Coverage instrumentation rewrites the sources it compiles and silently drops
// the -overlay for them, so mutants would run the unmutated code and ESCAPE
// for no reason. The runner refuses to start (exit 2) when GOFLAGS, from the
// environment or go env -w, holds any -cover* flag.
//
// # Under a mutation run
//
// Every go test the runner starts sees HELIOS_MUTATION_RUN set to the entry's
// id ("baseline" for the baseline). This package's own tests skip themselves
// there: they run go test on a fixture and would only slow every mutant down.
package main
