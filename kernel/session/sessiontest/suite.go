package sessiontest

import (
	"testing"

	"github.com/helios-agents/helios/kernel/session"
	"github.com/stretchr/testify/require"
)

// RunOptions says what the store under test promises beyond the contract
// every store keeps.
type RunOptions struct {
	// Durable says sessions outlive the store value: a new store over the
	// same storage (see Reopen) sees every acknowledged event. The suite
	// then checks that through Reopen.
	Durable bool
	// Reopen returns a new store over the storage of s, as a restarted
	// process would make it; s's Logs are all closed by then. Required
	// when Durable.
	Reopen func(t *testing.T, s session.Store) session.Store
}

// Run runs the conformance suite against stores from newStore, one fresh
// store per subtest.
func Run(t *testing.T, newStore func(t *testing.T) session.Store) {
	RunWith(t, newStore, RunOptions{})
}

// RunWith is Run with options. What every store must do:
//
//   - Create gives a new, empty session with a valid, unique ID.
//   - Append numbers events from 1 with no gap, in the order given (also
//     when several goroutines append at once: a batch stays contiguous),
//     sets Time, and returns the events as stored. It refuses, appending
//     nothing of the batch: an event without a Type, a Compaction whose span
//     is not 1 <= From <= To < its own Seq, Input that is not valid JSON, a
//     canceled context, a closed Log (ErrClosed).
//   - Stored events read back exactly as Append returned them (Meta,
//     Provenance, ToolUseID, IsError, Usage, Input byte for byte), through At,
//     Backward and a reopened Log; they do not change when the caller
//     reuses the Meta map or Input bytes it appended.
//   - At, Len and Backward agree; Backward is newest first, stops when
//     told, and may be used while Append runs, even from its own loop.
//   - A second Open of an open session either fails or shares the log: two
//     Logs never hand out the same Seq.
//   - List: every session, Updated newest first; Title is the first User
//     message (exactly, when it is one short line); Events counts them.
//   - Fork copies events with Seq <= at keeping Seq and Time, leaves the
//     original alone, continues Seqs after the copy, and its Info names the
//     origin (ForkOf, ForkAt).
//   - Unknown IDs are ErrNotFound; IDs that could escape a directory
//     ("", "..", "../x", "a/b", ...) are ErrInvalidID.
//   - A session reopened with tool calls left without a result (the
//     process died during the call) is answered by RepairInterrupted with
//     one interrupted error result per call, stored like any event: a
//     second reopen and repair writes none.
//
// The List order check needs the store's clock to move between Appends;
// where two Appends got equal times it checks only that List is sorted.
func RunWith(t *testing.T, newStore func(t *testing.T) session.Store, opts RunOptions) {
	t.Helper()
	require.False(t, opts.Durable && opts.Reopen == nil, "sessiontest: RunOptions.Durable needs Reopen")
	tests := []struct {
		name string
		run  func(t *testing.T, s session.Store)
	}{
		{"CreateAppend", testCreateAppend},
		{"AppendBatch", testAppendBatch},
		{"AppendRefusesInvalid", testAppendRefusesInvalid},
		{"AppendCanceled", testAppendCanceled},
		{"Readers", testReaders},
		{"BackwardDuringAppend", testBackwardDuringAppend},
		{"RoundTrip", testRoundTrip},
		{"CallerBuffersReused", testCallerBuffersReused},
		{"Reopen", testReopen},
		{"SecondOpen", testSecondOpen},
		{"Closed", testClosed},
		{"List", testList},
		{"ListParent", testListParent},
		{"Fork", testFork},
		{"ForkAll", testForkAll},
		{"NotFound", testNotFound},
		{"InvalidIDs", testInvalidIDs},
		{"ConcurrentAppends", testConcurrentAppends},
		{"RepairInterrupted", testRepairInterrupted},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, newStore(t)) })
	}
	if opts.Durable {
		t.Run("Durable", func(t *testing.T) { testDurable(t, newStore(t), opts.Reopen) })
	}
}

// helpers
