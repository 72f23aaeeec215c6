package pgstore

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/tidwall/gjson"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// txn is one transaction, at READ COMMITTED: each statement sees what was
// committed when it ran, and the documents and files it reads are locked
// (FOR UPDATE) until it ends, so what it read stays current. The counter
// row, which every committer updates, is taken last, just before COMMIT.
type txn struct {
	s   *Store
	tx  pgx.Tx
	now time.Time
	// found records, for each document and file read, whether it existed:
	// one that did not is inserted, so that a concurrent insert of the
	// same row makes one of the two run again.
	found     map[string]bool
	exclusive bool
}

// Begin starts a transaction with lock_timeout set to lockTimeout, and
// reads the database clock once for it.
func (s *Store) Begin(lockTimeout time.Duration) (store.BackendTx, error) {
	ctx := context.Background()
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return nil, dbErr(err, "begin a transaction on %s", s)
	}
	t := &txn{s: s, tx: tx, found: map[string]bool{}}
	ms := fmt.Sprintf("%dms", max(lockTimeout.Milliseconds(), 1))
	if err := tx.QueryRow(ctx, `SELECT set_config('lock_timeout', $1, true), now()`, ms).Scan(new(string), &t.now); err != nil {
		tx.Rollback(ctx)
		return nil, dbErr(err, "begin a transaction on %s", s)
	}
	return t, nil
}

func (t *txn) Now() time.Time { return t.now }

func (t *txn) lock() string {
	if t.exclusive {
		return "" // a rebuild reads what is committed; writers wait on the index
	}
	return " FOR UPDATE"
}

func (t *txn) ReadDoc(id string) ([]byte, error) {
	raw, err := scanText(t.tx.QueryRow(context.Background(), `SELECT raw FROM documents WHERE id = $1`+t.lock(), id), "read "+id)
	if err == nil {
		t.found["doc:"+id] = raw != nil
	}
	return raw, err
}

func (t *txn) DocExists(id string) (bool, error) {
	var ok bool
	if err := t.tx.QueryRow(context.Background(), `SELECT EXISTS (SELECT 1 FROM documents WHERE id = $1)`, id).Scan(&ok); err != nil {
		return false, dbErr(err, "read %s", id)
	}
	if _, seen := t.found["doc:"+id]; !seen {
		t.found["doc:"+id] = ok
	}
	return ok, nil
}

func (t *txn) ListDocs(k model.Kind) ([]string, error) { return listDocs(t.tx, k) }

func (t *txn) ReadFile(name string) ([]byte, error) {
	raw, err := scanBytes(t.tx.QueryRow(context.Background(), `SELECT content FROM files WHERE name = $1`+t.lock(), name), "read "+name)
	if err == nil {
		t.found["file:"+name] = raw != nil
	}
	return raw, err
}

func (t *txn) Peek(name string) ([]byte, error) {
	return scanBytes(t.tx.QueryRow(context.Background(), `SELECT content FROM files WHERE name = $1`, name), "read "+name)
}

func (t *txn) KV() store.KV { return reader{q: t.tx, name: t.s.name} }

// Exclusive locks the index against writers: a commit writes index rows,
// so none can commit until this transaction ends. Readers go on.
func (t *txn) Exclusive() error {
	if _, err := t.tx.Exec(context.Background(), `LOCK TABLE index_kv IN EXCLUSIVE MODE`); err != nil {
		return dbErr(err, "lock the index of %s", t.s)
	}
	t.exclusive = true
	return nil
}

func (t *txn) ReplaceIndex(ops []store.KVOp) error {
	ctx := context.Background()
	if _, err := t.tx.Exec(ctx, `DELETE FROM index_kv`); err != nil {
		return dbErr(err, "empty the index of %s", t.s)
	}
	rows := make([][]any, 0, len(ops))
	for _, op := range ops {
		if !op.D {
			rows = append(rows, []any{op.B, []byte(op.K), []byte(op.V)})
		}
	}
	_, err := t.tx.CopyFrom(ctx, pgx.Identifier{"index_kv"}, []string{"bucket", "key", "value"}, pgx.CopyFromRows(rows))
	return dbErr2(err, "write the index of %s", t.s)
}

// Commit writes w and the documents, then takes the counter row, seals
// the event against the last one's hash, writes it with the index changes,
// signals the listeners and commits: three round trips.
func (t *txn) Commit(w []store.Write, seal func(seq int, prev string) ([]byte, []store.KVOp, error)) (int, error) {
	ctx := context.Background()
	b := &pgx.Batch{}
	for _, wr := range w {
		t.queue(b, wr)
	}
	var seq int
	var prev string
	if seal != nil {
		b.Queue(`UPDATE log_counter SET seq = seq + 1 RETURNING seq, hash`).QueryRow(func(r pgx.Row) error { return r.Scan(&seq, &prev) })
	}
	if err := t.tx.SendBatch(ctx, b).Close(); err != nil {
		return 0, dbErr(err, "write to %s", t.s)
	}
	if seal != nil {
		line, ops, err := seal(seq, prev)
		if err != nil {
			return 0, err
		}
		hash, _, _, ok := store.LineHash(line)
		if !ok {
			return 0, store.Errorf(store.CodeInternal, "the sealed event %d does not match its hash", seq)
		}
		b := &pgx.Batch{}
		b.Queue(`INSERT INTO events (seq, line) VALUES ($1, $2)`, seq, string(line))
		b.Queue(`UPDATE log_counter SET hash = $1`, hash)
		for _, op := range ops {
			if op.D {
				b.Queue(`DELETE FROM index_kv WHERE bucket = $1 AND key = $2`, op.B, []byte(op.K))
			} else {
				b.Queue(`INSERT INTO index_kv (bucket, key, value) VALUES ($1, $2, $3) ON CONFLICT (bucket, key) DO UPDATE SET value = EXCLUDED.value`, op.B, []byte(op.K), []byte(op.V))
			}
		}
		b.Queue(`SELECT pg_notify($1, $2)`, channel, fmt.Sprint(seq))
		if err := t.tx.SendBatch(ctx, b).Close(); err != nil {
			return 0, dbErr(err, "write event %d to %s", seq, t.s)
		}
	}
	if err := t.tx.Commit(ctx); err != nil {
		return 0, dbErr(err, "commit to %s", t.s)
	}
	return seq, nil
}

// queue adds the statement of one write to b. A document or file the
// transaction found missing is inserted (a concurrent insert of it makes
// this one run again); one it found is updated (it holds the row's lock).
func (t *txn) queue(b *pgx.Batch, wr store.Write) {
	switch {
	case wr.Doc != "" && wr.Remove:
		b.Queue(`DELETE FROM documents WHERE id = $1`, wr.Doc)
	case wr.Doc != "" && t.found["doc:"+wr.Doc]:
		b.Queue(`UPDATE documents SET raw = $2, revision = $3 WHERE id = $1`, wr.Doc, string(wr.Content), wr.Revision)
	case wr.Doc != "":
		b.Queue(`INSERT INTO documents (id, kind, revision, raw) VALUES ($1, $2, $3, $4)`, wr.Doc, string(wr.Kind), wr.Revision, string(wr.Content))
	case wr.Remove:
		b.Queue(`DELETE FROM files WHERE name = $1`, wr.Path)
	case wr.Append:
		b.Queue(`INSERT INTO files (name, content) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET content = files.content || EXCLUDED.content`, wr.Path, wr.Content)
	default:
		if found, read := t.found["file:"+wr.Path]; read && !found {
			b.Queue(`INSERT INTO files (name, content) VALUES ($1, $2)`, wr.Path, wr.Content)
		} else {
			b.Queue(`INSERT INTO files (name, content) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET content = EXCLUDED.content`, wr.Path, wr.Content)
		}
	}
}

func (t *txn) Rollback() { t.tx.Rollback(context.Background()) }

// Load writes a whole store into this empty database: the documents and
// files of w, and the event lines with the counter at the last of them.
// It refuses a database that holds any document, file or event.
func (t *txn) Load(w []store.Write, lines [][]byte) error {
	ctx := context.Background()
	var docs, files, seq int
	err := t.tx.QueryRow(ctx, `SELECT (SELECT count(*) FROM documents), (SELECT count(*) FROM files), seq FROM log_counter FOR UPDATE`).Scan(&docs, &files, &seq)
	if err != nil {
		return dbErr(err, "read %s", t.s)
	}
	if docs+files+seq > 0 {
		return store.Errorf(store.CodeGuardFailed, "%s is not empty: it holds %d documents, %d files and %d events", t.s, docs, files, seq).
			WithHint("import only into a freshly migrated database; `proofloop export --to DIR` first keeps a copy")
	}
	b := &pgx.Batch{}
	for _, wr := range w {
		t.queue(b, wr)
	}
	if err := t.tx.SendBatch(ctx, b).Close(); err != nil {
		return dbErr(err, "load %s", t.s)
	}
	rows := make([][]any, len(lines))
	var hash string
	last := 0
	for i, line := range lines {
		seq := int(gjson.GetBytes(line, "seq").Int())
		if seq <= last {
			return store.Errorf(store.CodeStoreDamaged, "event line %d has seq %d, after seq %d", i+1, seq, last)
		}
		last = seq
		hash, _, _, _ = store.LineHash(line)
		rows[i] = []any{int64(seq), string(line)}
	}
	if _, err := t.tx.CopyFrom(ctx, pgx.Identifier{"events"}, []string{"seq", "line"}, pgx.CopyFromRows(rows)); err != nil {
		return dbErr(err, "load the event log into %s", t.s)
	}
	_, err = t.tx.Exec(ctx, `UPDATE log_counter SET seq = $1, hash = $2`, last, hash)
	return dbErr2(err, "load %s", t.s)
}
