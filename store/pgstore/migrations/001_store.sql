-- The tables of the PostgreSQL store. Each holds what a file of a contents
-- root holds; the README's "Shared store" section maps one to the other.

-- problem/<id>.json, statement/<id>.json, debate/<id>.json. raw is the
-- document byte for byte as the file store would write it (so an export
-- gives identical files); body is the same document as jsonb, for queries.
CREATE TABLE documents (
	id       text PRIMARY KEY,
	kind     text NOT NULL,
	revision integer NOT NULL CHECK (revision >= 1),
	raw      text NOT NULL,
	body     jsonb GENERATED ALWAYS AS (raw::jsonb) STORED
);
CREATE INDEX documents_kind ON documents (kind, id);

-- The event log's counter: one row, updated last in every committing
-- transaction. Not a sequence: a sequence hands out numbers outside the
-- transaction and skips those of transactions that roll back.
CREATE TABLE log_counter (
	one  boolean PRIMARY KEY DEFAULT true CHECK (one),
	seq  bigint NOT NULL CHECK (seq >= 0),
	hash text NOT NULL
);
INSERT INTO log_counter (seq, hash) VALUES (0, '');

-- events.jsonl: line is the sealed line, byte for byte as the file store
-- writes it (text, not jsonb, which would reorder it and break its hash).
CREATE TABLE events (
	seq  bigint PRIMARY KEY CHECK (seq >= 1),
	line text NOT NULL
);

-- Every other file of a root: config.json, leases/<id>.json (their times
-- come from the database clock), proofs/<id>.jsonl, .debates/<name>.md.
CREATE TABLE files (
	name    text PRIMARY KEY,
	content bytea NOT NULL
);

-- The derived index (index.db's buckets), written in the same transaction
-- as the documents and rebuilt by doctor --reindex. Keys hold NUL bytes.
CREATE TABLE index_kv (
	bucket text NOT NULL,
	key    bytea NOT NULL,
	value  bytea NOT NULL,
	PRIMARY KEY (bucket, key)
);

---- create above / drop below ----

DROP TABLE index_kv;
DROP TABLE files;
DROP TABLE events;
DROP TABLE log_counter;
DROP TABLE documents;
