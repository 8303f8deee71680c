-- Helios session store, schema version 1.
--
-- helios_sessions.version is the number of events, so the last Seq: every
-- Append checks it and moves it in the transaction that inserts the events.
-- An event's body is its JSON without seq, time, type and input (text may
-- hold NUL, which a text column cannot; JSON escapes it). input is kept
-- byte for byte, so it is text, not jsonb. event_id is the idempotency key
-- of a retried Append.
CREATE TABLE IF NOT EXISTS helios_sessions (
	id      text PRIMARY KEY,
	created timestamptz NOT NULL,
	version bigint NOT NULL DEFAULT 0 CHECK (version >= 0),
	fork_of text,
	fork_at bigint NOT NULL DEFAULT 0
);

CREATE TABLE IF NOT EXISTS helios_events (
	session_id text NOT NULL REFERENCES helios_sessions (id) ON DELETE CASCADE,
	seq        bigint NOT NULL CHECK (seq >= 1),
	event_id   text NOT NULL,
	time       timestamptz NOT NULL,
	type       text NOT NULL,
	body       text NOT NULL,
	input      text,
	PRIMARY KEY (session_id, seq),
	UNIQUE (session_id, event_id)
);

-- A session's title is its first user message.
CREATE INDEX IF NOT EXISTS helios_events_user ON helios_events (session_id, seq) WHERE type = 'user';

-- Who holds each session's writer lock (an advisory lock on that writer's
-- connection); read when another writer is refused. A row is current only
-- while its backend_pid holds the lock.
CREATE TABLE IF NOT EXISTS helios_writers (
	session_id  text PRIMARY KEY,
	host        text NOT NULL,
	pid         integer NOT NULL,
	since       timestamptz NOT NULL,
	backend_pid integer NOT NULL
);
