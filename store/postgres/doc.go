// Package postgres is a session store (session.Store) in PostgreSQL, for
// applications that run agents on several hosts: any host can resume any
// session, and two hosts never write one session at once (contract C15).
//
// New opens a pgxpool over the URL and creates or migrates the schema: the
// embedded, versioned SQL files under migrations/, applied in one
// transaction under a transaction-level advisory lock, so concurrent openers
// are safe. A database whose schema is newer than this Helios knows is
// refused, naming both versions.
//
// One writer per session. Create, Open and Fork take a session-level
// advisory lock on a pooled connection that the Log keeps until Close: it
// goes away with the connection, so a writer that dies (even by SIGKILL)
// releases it as soon as the server notices the closed socket. A second
// Open fails at once with a *session.HeldError naming the holder's host,
// pid and since when (also within one process: one Log per session).
//
// Each Append is one transaction on the lock's connection that checks the
// session's version (its number of events) and moves it. When the
// connection was lost, the next Append reconnects and takes the lock again;
// if another writer appended meanwhile, it fails with session.ErrConflict
// and never interleaves. Events carry an event id: when the connection
// breaks during the commit, Append fails with ErrInDoubt, and appending the
// same events again stores them exactly once (found by their ids when the
// first commit did land).
//
// Only the assembly imports this package; the kernel sees session.Store.
package postgres
