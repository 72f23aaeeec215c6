package pgstore

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/tidwall/gjson"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// txn is one transaction, at READ COMMITTED, on a connection of its own
// from the pool: each statement sees what was committed when it ran, and
// the documents and files it reads are locked (FOR UPDATE) until it ends,
// so what it read stays current. The counter row, which every committer
// updates, is taken when it begins to commit (LockLog); from then on no
// other transaction can change a row it reads, and it reads without locks.
//
// It runs BEGIN and COMMIT itself, each in a pipeline with the statements
// around it: BEGIN with the lock timeout, the clock and the first reads;
// COMMIT with the writes, the event, the counter, the index and the
// notification. A statement that fails leaves the rest of its pipeline
// unrun and the transaction aborted, which Rollback ends.
type txn struct {
	s    *Store
	conn *pgxpool.Conn
	now  time.Time
	// found records, for each document and file read, whether it existed:
	// one that did not is inserted, so that a concurrent insert of the
	// same row makes one of the two run again.
	found map[string]bool
	// ahead holds the documents and files read in the first round trip
	// ("doc:ID", "file:NAME"; nil when there is none), until first asked.
	ahead     map[string][]byte
	exclusive bool
	// logged: the counter is held, at seq and hash.
	logged    bool
	seq       int
	hash      string
	committed bool
}

// Begin starts a transaction with lock_timeout set to o.LockTimeout, reads
// the database clock once for it, and reads o's files and documents, in
// one round trip.
func (s *Store) Begin(o store.BeginOptions) (store.BackendTx, error) {
	ctx := context.Background()
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, dbErr(err, "begin a transaction on %s", s)
	}
	t := &txn{s: s, conn: conn, found: map[string]bool{}, ahead: map[string][]byte{}}
	ms := fmt.Sprintf("%dms", max(o.LockTimeout.Milliseconds(), 1))
	b := &pgx.Batch{}
	b.Queue(`BEGIN`)
	b.Queue(`SELECT set_config('lock_timeout', $1, true), now()`, ms).QueryRow(func(r pgx.Row) error { return r.Scan(new(string), &t.now) })
	for _, name := range o.Files {
		b.Queue(`SELECT content FROM files WHERE name = $1 FOR UPDATE`, name).QueryRow(func(r pgx.Row) error {
			raw, err := scanBytes(r, "read "+name)
			t.ahead["file:"+name] = raw
			return err
		})
	}
	for _, id := range o.Docs {
		b.Queue(`SELECT raw FROM documents WHERE id = $1 FOR UPDATE`, id).QueryRow(func(r pgx.Row) error {
			raw, err := scanText(r, "read "+id)
			t.ahead["doc:"+id] = raw
			return err
		})
	}
	if err := conn.SendBatch(ctx, b).Close(); err != nil {
		t.Rollback()
		return nil, dbErr(err, "begin a transaction on %s", s)
	}
	return t, nil
}

func (t *txn) Now() time.Time { return t.now }

func (t *txn) lock() string {
	if t.exclusive || t.logged {
		return "" // a rebuild reads what is committed; writers wait on the index
	}
	return " FOR UPDATE"
}

// readAhead serves key from what Begin read, once.
func (t *txn) readAhead(key string) ([]byte, bool) {
	raw, ok := t.ahead[key]
	if ok {
		delete(t.ahead, key)
		t.found[key] = raw != nil
	}
	return raw, ok
}

func (t *txn) ReadDoc(id string) ([]byte, error) {
	if raw, ok := t.readAhead("doc:" + id); ok {
		return raw, nil
	}
	raw, err := scanText(t.conn.QueryRow(context.Background(), `SELECT raw FROM documents WHERE id = $1`+t.lock(), id), "read "+id)
	if err == nil {
		t.found["doc:"+id] = raw != nil
	}
	return raw, err
}

func (t *txn) DocExists(id string) (bool, error) {
	if raw, ok := t.ahead["doc:"+id]; ok {
		return raw != nil, nil
	}
	var ok bool
	if err := t.conn.QueryRow(context.Background(), `SELECT EXISTS (SELECT 1 FROM documents WHERE id = $1)`, id).Scan(&ok); err != nil {
		return false, dbErr(err, "read %s", id)
	}
	if _, seen := t.found["doc:"+id]; !seen {
		t.found["doc:"+id] = ok
	}
	return ok, nil
}

func (t *txn) ListDocs(k model.Kind) ([]string, error) { return listDocs(t.conn, k) }

func (t *txn) ReadFile(name string) ([]byte, error) {
	if raw, ok := t.readAhead("file:" + name); ok {
		return raw, nil
	}
	raw, err := scanBytes(t.conn.QueryRow(context.Background(), `SELECT content FROM files WHERE name = $1`+t.lock(), name), "read "+name)
	if err == nil {
		t.found["file:"+name] = raw != nil
	}
	return raw, err
}

func (t *txn) Peek(name string) ([]byte, error) {
	return scanBytes(t.conn.QueryRow(context.Background(), `SELECT content FROM files WHERE name = $1`, name), "read "+name)
}

func (t *txn) KV() store.KV { return reader{q: t.conn, name: t.s.name} }

// Exclusive locks the index against writers: a commit writes index rows,
// so none can commit until this transaction ends. Readers go on.
func (t *txn) Exclusive() error {
	if _, err := t.conn.Exec(context.Background(), `LOCK TABLE index_kv IN EXCLUSIVE MODE`); err != nil {
		return dbErr(err, "lock the index of %s", t.s)
	}
	t.exclusive = true
	return nil
}

func (t *txn) ReplaceIndex(ops []store.KVOp) error {
	ctx := context.Background()
	if _, err := t.conn.Exec(ctx, `DELETE FROM index_kv`); err != nil {
		return dbErr(err, "empty the index of %s", t.s)
	}
	rows := make([][]any, 0, len(ops))
	for _, op := range ops {
		if !op.D {
			rows = append(rows, []any{op.B, []byte(op.K), []byte(op.V)})
		}
	}
	_, err := t.conn.CopyFrom(ctx, pgx.Identifier{"index_kv"}, []string{"bucket", "key", "value"}, pgx.CopyFromRows(rows))
	return dbErr2(err, "write the index of %s", t.s)
}

// LockLog takes the counter row and reads get, in one round trip.
func (t *txn) LockLog(get []store.KVKey) (map[store.KVKey][]byte, error) {
	b := &pgx.Batch{}
	b.Queue(`SELECT seq, hash FROM log_counter FOR UPDATE`).QueryRow(func(r pgx.Row) error { return r.Scan(&t.seq, &t.hash) })
	vals := map[store.KVKey][]byte{}
	if len(get) > 0 {
		queueGetMany(b, get, vals)
	}
	if err := t.conn.SendBatch(context.Background(), b).Close(); err != nil {
		return nil, dbErr(err, "lock the log of %s", t.s)
	}
	t.logged = true
	return vals, nil
}

// sealed is the statement that writes an event: its line, the counter, the
// index changes (deleted keys, then upserted ones: no key is in both) and
// the notification to listeners. A part with no index change to make is
// left out, since a new backend plans every part it is sent, even one over
// empty lists.
func sealed(seq int, line, hash string, del, up kvCols) (string, []any) {
	sql := `WITH e AS (INSERT INTO events (seq, line) VALUES ($1, $2)),
c AS (UPDATE log_counter SET seq = $1, hash = $3)`
	args := []any{seq, line, hash}
	if len(del.b) > 0 {
		sql += fmt.Sprintf(`,
d AS (DELETE FROM index_kv WHERE (bucket, key) IN (SELECT * FROM unnest($%d::text[], $%d::bytea[])))`, len(args)+1, len(args)+2)
		args = append(args, del.b, del.k)
	}
	if len(up.b) > 0 {
		sql += fmt.Sprintf(`,
u AS (INSERT INTO index_kv (bucket, key, value) SELECT * FROM unnest($%d::text[], $%d::bytea[], $%d::bytea[])
	ON CONFLICT (bucket, key) DO UPDATE SET value = EXCLUDED.value)`, len(args)+1, len(args)+2, len(args)+3)
		args = append(args, up.b, up.k, up.v)
	}
	args = append(args, channel)
	return sql + fmt.Sprintf("\nSELECT pg_notify($%d, $1::text)", len(args)), args
}

// Commit seals the event against the counter (taken now, a round trip,
// when LockLog did not take it), then sends w, the event with its index
// changes, and COMMIT in one round trip.
func (t *txn) Commit(w []store.Write, seal func(seq int, prev string) ([]byte, []store.KVOp, error)) (int, error) {
	ctx := context.Background()
	if !t.logged && (seal != nil || len(w) > 0) {
		if _, err := t.LockLog(nil); err != nil {
			return 0, err
		}
	}
	b := &pgx.Batch{}
	for _, wr := range w {
		t.queue(b, wr)
	}
	seq := 0
	if seal != nil {
		seq = t.seq + 1
		line, ops, err := seal(seq, t.hash)
		if err != nil {
			return 0, err
		}
		hash, _, _, ok := store.LineHash(line)
		if !ok {
			return 0, store.Errorf(store.CodeInternal, "the sealed event %d does not match its hash", seq)
		}
		del, up := lastOps(ops)
		sql, args := sealed(seq, string(line), hash, del, up)
		b.Queue(sql, args...)
	}
	b.Queue(`COMMIT`)
	if err := t.conn.SendBatch(ctx, b).Close(); err != nil {
		if seq > 0 {
			return 0, dbErr(err, "write event %d to %s", seq, t.s)
		}
		return 0, dbErr(err, "commit to %s", t.s)
	}
	t.committed = true
	return seq, nil
}

// kvCols are index changes as columns, for unnest.
type kvCols struct {
	b    []string
	k, v [][]byte
}

// lastOps splits ops into deletions and upserts, keeping the last op of
// each key: applied in order, that one decides the key.
func lastOps(ops []store.KVOp) (del, up kvCols) {
	last := map[store.KVKey]int{}
	for i, op := range ops {
		last[store.KVKey{Bucket: op.B, Key: op.K}] = i
	}
	del.b, del.k, up.b, up.k, up.v = []string{}, [][]byte{}, []string{}, [][]byte{}, [][]byte{}
	for i, op := range ops {
		switch {
		case last[store.KVKey{Bucket: op.B, Key: op.K}] != i:
		case op.D:
			del.b, del.k = append(del.b, op.B), append(del.k, []byte(op.K))
		default:
			up.b, up.k, up.v = append(up.b, op.B), append(up.k, []byte(op.K)), append(up.v, []byte(op.V))
		}
	}
	return del, up
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

// Rollback ends the transaction unless it committed, and gives the
// connection back to the pool (which closes one that failed).
func (t *txn) Rollback() {
	if t.conn == nil {
		return
	}
	if pc := t.conn.Conn().PgConn(); !t.committed && !pc.IsClosed() && pc.TxStatus() != 'I' {
		t.conn.Exec(context.Background(), `ROLLBACK`)
	}
	t.conn.Release()
	t.conn = nil
}

// Load writes a whole store into this empty database: the documents and
// files of w, and the event lines with the counter at the last of them.
// It refuses a database that holds any document, file or event.
func (t *txn) Load(w []store.Write, lines [][]byte) error {
	ctx := context.Background()
	var docs, files, seq int
	err := t.conn.QueryRow(ctx, `SELECT (SELECT count(*) FROM documents), (SELECT count(*) FROM files), seq FROM log_counter FOR UPDATE`).Scan(&docs, &files, &seq)
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
	if err := t.conn.SendBatch(ctx, b).Close(); err != nil {
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
	if _, err := t.conn.CopyFrom(ctx, pgx.Identifier{"events"}, []string{"seq", "line"}, pgx.CopyFromRows(rows)); err != nil {
		return dbErr(err, "load the event log into %s", t.s)
	}
	_, err = t.conn.Exec(ctx, `UPDATE log_counter SET seq = $1, hash = $2`, last, hash)
	return dbErr2(err, "load %s", t.s)
}
