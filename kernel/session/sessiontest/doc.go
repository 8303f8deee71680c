// Package sessiontest is the conformance suite for session.Store: every
// store, built in or not, runs it from its own tests.
//
//	func TestMyStore(t *testing.T) {
//		sessiontest.RunWith(t, func(t *testing.T) session.Store {
//			return newMyStore(t)
//		}, sessiontest.RunOptions{Durable: true, Reopen: reopenMyStore})
//	}
//
// Each subtest gets a fresh store from the factory. Run it under -race: one
// subtest appends from several goroutines while others read.
package sessiontest
