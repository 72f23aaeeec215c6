// Package pgstore keeps a proofloop store in PostgreSQL: the documents, the
// event log, the other files of a contents root and the derived index, in
// tables of one database, for agents on many machines. It is a
// store.Backend: package store runs the same transactions over it as over
// the file store, and this package gives them the database's means: a
// transaction per command, row locks on what it reads (so commands on
// different documents do not wait for each other), a gapless event seq
// from a counter row, the database clock, and LISTEN/NOTIFY for waiting.
package pgstore

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

//go:embed migrations/*.sql
var migrations embed.FS

// VersionTable is the table that records the schema version (tern's layout).
const VersionTable = "proofloop_schema_version"

// channel is the NOTIFY channel every commit signals, with its seq.
const channel = "proofloop_events"

// IsDSN reports whether a --store value names a PostgreSQL database.
func IsDSN(v string) bool {
	return strings.HasPrefix(v, "postgres://") || strings.HasPrefix(v, "postgresql://")
}

// Redact is v with all but its scheme hidden, for a message about a value
// that failed to parse: the rest may hold a password, a user or a host,
// and a parser's own message would echo them. A "scheme" that is not one
// (user:secret@host://...) is hidden too.
func Redact(v string) string {
	if scheme, _, ok := strings.Cut(v, "://"); ok && schemeRe().MatchString(scheme) {
		return scheme + "://..."
	}
	return "..."
}

var schemeRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]{0,31}$`) })

// badDSN is the refusal of a connection string that does not parse; it
// names only the scheme, and leaves out the parser's error, which quotes
// the string.
func badDSN(dsn string) error {
	return store.Errorf(store.CodeUsage, "bad PostgreSQL connection string %s: it does not parse", Redact(dsn)).
		WithHint("the form is postgres://USER@HOST:PORT/DB, with any %, @, : or / in a part percent-encoded; the password comes from PGPASSWORD or ~/.pgpass")
}

// Store is a PostgreSQL database holding a proofloop store.
type Store struct {
	reader
	pool *pgxpool.Pool
}

var _ store.Backend = (*Store)(nil)

// Open connects to the database at dsn (a libpq URL; the password comes
// from it, PGPASSWORD or .pgpass). It does not migrate the tables (Migrate
// does): a command on a database without them fails with not_found.
func Open(dsn string) (*Store, error) { return connect(dsn) }

func connect(dsn string) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, badDSN(dsn)
	}
	// One round trip per statement: a command is a short process, so
	// preparing each statement first (pgx's default) would cost a round
	// trip more for each, never repaid. It also works through a
	// transaction-pooling proxy.
	cfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeExec
	// A transaction may read through a second connection (a reader, the
	// config) while `run -j N` holds N transactions: connections are made
	// only when asked for, so a high bound costs nothing and keeps a
	// process from waiting on itself.
	cfg.MaxConns = 64
	if path := os.Getenv(TraceEnv); path != "" {
		cfg.ConnConfig.Tracer = tracer{path}
	}
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		return nil, badDSN(dsn)
	}
	// No ping: the first statement connects, and a failure to connect is
	// told apart there (connectErr), so a command pays no round trip for it.
	s := &Store{pool: pool}
	s.reader = reader{q: pool, name: s.String()}
	return s, nil
}

// connectErr is the refusal of a connection that could not be made: bad
// input (exit 2) for a wrong user or password or no such database, else a
// conflict (exit 5) to retry once the server is reachable.
func connectErr(ce *pgconn.ConnectError) error {
	c := ce.Config
	name := fmt.Sprintf("postgres://%s@%s:%d/%s", c.User, c.Host, c.Port, c.Database)
	var pe *pgconn.PgError
	if errors.As(ce, &pe) && (strings.HasPrefix(pe.Code, "28") || pe.Code == "3D000") {
		return store.Errorf(store.CodeInvalidInput, "cannot connect to %s: %s", name, pe.Message).
			WithHint("check the URL, and the password in PGPASSWORD or ~/.pgpass")
	}
	return store.Errorf(store.CodeConflict, "cannot connect to %s", name).
		WithHint("check that the server is up and reachable, then retry").Wrap(ce)
}

// Migrate connects to dsn and brings its tables up to this binary's schema.
// It holds an advisory lock while it runs, so two machines migrating at
// once do not both apply a migration.
func Migrate(dsn string) error {
	s, err := connect(dsn)
	if err != nil {
		return err
	}
	defer s.Close()
	ctx := context.Background()
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return dbErr(err, "connect to %s", s)
	}
	defer conn.Release()
	if err := migrate(ctx, conn.Conn()); err != nil {
		return dbErr(err, "migrate %s", s)
	}
	return nil
}

// Close closes the connections.
func (s *Store) Close() error {
	s.pool.Close()
	return nil
}

// String names the database for messages, never with its password.
func (s *Store) String() string {
	c := s.pool.Config().ConnConfig
	return fmt.Sprintf("postgres://%s@%s:%d/%s", c.User, c.Host, c.Port, c.Database)
}

// dbErr gives a database error its contract code. A serialization failure,
// a deadlock or a lost race to insert a row wraps store.ErrRetry, so that
// the transaction runs again; a lost connection is a conflict (exit 5),
// whose message says that the command may have committed.
func dbErr(err error, format string, args ...any) error {
	if e := (*store.Error)(nil); errors.As(err, &e) {
		return err
	}
	if ce := (*pgconn.ConnectError)(nil); errors.As(err, &ce) {
		return connectErr(ce)
	}
	msg := fmt.Sprintf(format, args...)
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "40001", "40P01", "23505": // serialization, deadlock, unique key
			return store.Errorf(store.CodeConflict, "%s", msg).Wrap(fmt.Errorf("%w: %w", store.ErrRetry, err))
		case "55P03": // lock_not_available: lock_timeout passed
			return store.Errorf(store.CodeLockTimeout, "%s: a document it needs stayed locked by another command", msg).
				WithHint("retry later").Wrap(err)
		case "42P01": // undefined_table
			return store.Errorf(store.CodeNotFound, "%s: the database has no proofloop tables", msg).
				WithHint("run `proofloop db migrate --store URL` once, as a role that may create tables")
		case "57P01", "57P02", "57P03": // the server is shutting down or starting
			return lost(msg, err)
		case "25006", "42501": // read_only_sql_transaction, insufficient_privilege
			// Not damage: this role, or this server (a read replica, a
			// session set read-only), may not write the tables.
			return store.Errorf(store.CodeStoreUnwritable, "%s: the store cannot be written here: %s", msg, pe.Message).
				WithHint("nothing was written; this database role or server may not write proofloop's tables (a read-only transaction, a replica, a role without INSERT and UPDATE): connect as a role that may, or to the primary").Wrap(err)
		}
		return store.Errorf(store.CodeInternal, "%s", msg).Wrap(err)
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return store.Errorf(store.CodeInternal, "%s", msg).Wrap(err)
	}
	return lost(msg, err)
}

// lost is the error of a command whose connection failed. If it failed
// during COMMIT, the command may have committed.
func lost(msg string, err error) error {
	return store.Errorf(store.CodeConflict, "%s: the connection to PostgreSQL failed, so the command may or may not have taken effect", msg).
		WithHint("check with `proofloop events --since N` or `proofloop show`, then retry if it did not (--expect-revision makes a retry safe)").Wrap(err)
}

// ReadDoc reads a document as committed; nil when there is none.
func (s reader) ReadDoc(id string) ([]byte, error) {
	return scanText(s.q.QueryRow(context.Background(), `SELECT raw FROM documents WHERE id = $1`, id), "read "+id)
}

// ReadFileNow reads a file as committed (nil when there is none) and the
// database clock, in one statement.
func (s *Store) ReadFileNow(name string) ([]byte, time.Time, error) {
	var raw []byte
	var now time.Time
	err := s.pool.QueryRow(context.Background(), `SELECT (SELECT content FROM files WHERE name = $1), now()`, name).Scan(&raw, &now)
	if err != nil {
		return nil, time.Time{}, dbErr(err, "read %s", name)
	}
	return raw, now, nil
}

// ListDocs lists the ids of the documents of kind k, in order.
func (s reader) ListDocs(k model.Kind) ([]string, error) { return listDocs(s.q, k) }

// ReadFile reads a file as committed; nil when there is none.
func (s reader) ReadFile(name string) ([]byte, error) {
	return scanBytes(s.q.QueryRow(context.Background(), `SELECT content FROM files WHERE name = $1`, name), "read "+name)
}

// ListFiles lists the names of the files under dir, in order.
func (s reader) ListFiles(dir string) ([]string, error) {
	rows, err := s.q.Query(context.Background(), `SELECT name FROM files WHERE starts_with(name, $1) ORDER BY name`, dir+"/")
	if err != nil {
		return nil, dbErr(err, "list %s", dir)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, dbErr(err, "list %s", dir)
	}
	return names, nil
}

// Events calls fn with each event above seq since, in order.
func (s reader) Events(since int, fn func(seq int, line []byte) error) error {
	rows, err := s.q.Query(context.Background(), `SELECT seq, line FROM events WHERE seq > $1 ORDER BY seq`, since)
	if err != nil {
		return dbErr(err, "read the event log")
	}
	defer rows.Close()
	for rows.Next() {
		var seq int
		var line string
		if err := rows.Scan(&seq, &line); err != nil {
			return dbErr(err, "read the event log")
		}
		if err := fn(seq, []byte(line)); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return dbErr(err, "read the event log")
	}
	return nil
}

// EventLines returns the lines of the given seqs, in their order.
func (s reader) EventLines(seqs []int) ([][]byte, error) {
	rows, err := s.q.Query(context.Background(), `SELECT seq, line FROM events WHERE seq = ANY($1)`, seqs)
	if err != nil {
		return nil, dbErr(err, "read the event log")
	}
	at := map[int][]byte{}
	for rows.Next() {
		var seq int
		var line string
		if err := rows.Scan(&seq, &line); err != nil {
			return nil, dbErr(err, "read the event log")
		}
		at[seq] = []byte(line)
	}
	if err := rows.Err(); err != nil {
		return nil, dbErr(err, "read the event log")
	}
	out := make([][]byte, len(seqs))
	for i, seq := range seqs {
		if out[i] = at[seq]; out[i] == nil {
			return nil, store.Errorf(store.CodeStoreDamaged, "the index names event %d, which the log of %s does not have", seq, s.name).
				WithHint("run `proofloop doctor --reindex`")
		}
	}
	return out, nil
}

// Tail is the seq and hash of the last event.
func (s *Store) Tail() (int, string, error) {
	var seq int
	var hash string
	if err := s.pool.QueryRow(context.Background(), `SELECT seq, hash FROM log_counter`).Scan(&seq, &hash); err != nil {
		return 0, "", dbErr(err, "read the counter of %s", s)
	}
	return seq, hash, nil
}

// Now is the database's clock.
func (s *Store) Now() (time.Time, error) {
	var t time.Time
	if err := s.pool.QueryRow(context.Background(), `SELECT now()`).Scan(&t); err != nil {
		return time.Time{}, dbErr(err, "read the clock of %s", s)
	}
	return t, nil
}

// Wait returns once the log has an event above since, or ctx ends (nil
// then too). It listens for the NOTIFY that every commit sends, and looks
// at the counter only after LISTEN, so a commit in between is not missed.
func (s *Store) Wait(ctx context.Context, since int) error {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return dbErr(err, "connect to %s", s)
	}
	// A connection that listened is not given back to the pool: its
	// pending notifications would wake the next user.
	pc := conn.Hijack()
	defer pc.Close(context.Background())
	if _, err := pc.Exec(ctx, "LISTEN "+channel); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return dbErr(err, "listen on %s", s)
	}
	var last int
	if err := pc.QueryRow(ctx, `SELECT seq FROM log_counter`).Scan(&last); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return dbErr(err, "read the counter of %s", s)
	}
	for last <= since {
		n, err := pc.WaitForNotification(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			return dbErr(err, "wait for events on %s", s)
		}
		fmt.Sscan(n.Payload, &last)
	}
	return nil
}

// View runs fn on a snapshot of the index (a read-only repeatable-read
// transaction).
func (s *Store) View(fn func(store.Snapshot) error) error {
	ctx := context.Background()
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return dbErr(err, "read the index of %s", s)
	}
	defer tx.Rollback(ctx)
	if err := fn(reader{q: tx, name: s.name}); err != nil {
		return err
	}
	return dbErr2(tx.Commit(ctx), "read the index of %s", s)
}

// dbErr2 is dbErr for an error that may be nil.
func dbErr2(err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	return dbErr(err, format, args...)
}

type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

func listDocs(q querier, k model.Kind) ([]string, error) {
	rows, err := q.Query(context.Background(), `SELECT id FROM documents WHERE kind = $1 ORDER BY id`, string(k))
	if err != nil {
		return nil, dbErr(err, "list %s", k.Dir())
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, dbErr(err, "list %s", k.Dir())
	}
	return ids, nil
}

func scanText(row pgx.Row, what string) ([]byte, error) {
	var v string
	if err := row.Scan(&v); errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	} else if err != nil {
		return nil, dbErr(err, "%s", what)
	}
	return []byte(v), nil
}

func scanBytes(row pgx.Row, what string) ([]byte, error) {
	var v []byte
	if err := row.Scan(&v); errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	} else if err != nil {
		return nil, dbErr(err, "%s", what)
	}
	if v == nil {
		v = []byte{}
	}
	return v, nil
}

// reader reads the tables through a pool (each query sees what is
// committed) or a transaction.
type reader struct {
	q    querier
	name string
}

func (k reader) Get(bucket string, key []byte) ([]byte, error) {
	return scanBytes(k.q.QueryRow(context.Background(), `SELECT value FROM index_kv WHERE bucket = $1 AND key = $2`, bucket, key), "read the index")
}

func (k reader) Scan(bucket string, prefix []byte, fn func(k, v []byte) error) error {
	var rows pgx.Rows
	var err error
	if prefix == nil {
		prefix = []byte{} // nil would be sent as NULL
	}
	if end := successor(prefix); end != nil {
		rows, err = k.q.Query(context.Background(), `SELECT key, value FROM index_kv WHERE bucket = $1 AND key >= $2 AND key < $3 ORDER BY key`, bucket, prefix, end)
	} else {
		rows, err = k.q.Query(context.Background(), `SELECT key, value FROM index_kv WHERE bucket = $1 AND key >= $2 ORDER BY key`, bucket, prefix)
	}
	if err != nil {
		return dbErr(err, "read the index")
	}
	defer rows.Close()
	for rows.Next() {
		var key, v []byte
		if err := rows.Scan(&key, &v); err != nil {
			return dbErr(err, "read the index")
		}
		if err := fn(key, v); err != nil {
			return err
		}
	}
	return dbErr2(rows.Err(), "read the index")
}

// GetMany reads the keys of get in one statement; the result holds those
// present.
func (k reader) GetMany(get []store.KVKey) (map[store.KVKey][]byte, error) {
	b := &pgx.Batch{}
	vals := map[store.KVKey][]byte{}
	queueGetMany(b, get, vals)
	if err := k.q.SendBatch(context.Background(), b).Close(); err != nil {
		return nil, dbErr(err, "read the index")
	}
	return vals, nil
}

// queueGetMany adds to b the statement that reads the keys of get into
// vals. It asks for the keys of its buckets as two lists (bucket = ANY,
// key = ANY: the primary key's index probes each pair) and keeps the pairs
// asked for. A join with unnest said the same, but planning it cost a new
// backend (every command through the CLI has one) about 1 ms of its CPU,
// three times this.
func queueGetMany(b *pgx.Batch, get []store.KVKey, vals map[store.KVKey][]byte) {
	asked := make(map[store.KVKey]bool, len(get))
	var buckets []string
	var keys [][]byte
	seenB, seenK := map[string]bool{}, map[string]bool{}
	for _, k := range get {
		asked[k] = true
		if !seenB[k.Bucket] {
			seenB[k.Bucket] = true
			buckets = append(buckets, k.Bucket)
		}
		if !seenK[k.Key] {
			seenK[k.Key] = true
			keys = append(keys, []byte(k.Key))
		}
	}
	b.Queue(`SELECT bucket, key, value FROM index_kv WHERE bucket = ANY($1::text[]) AND key = ANY($2::bytea[])`, buckets, keys).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			var bucket string
			var key, v []byte
			if err := rows.Scan(&bucket, &key, &v); err != nil {
				return err
			}
			if k := (store.KVKey{Bucket: bucket, Key: string(key)}); asked[k] {
				if v == nil {
					v = []byte{}
				}
				vals[k] = v
			}
		}
		return rows.Err()
	})
}

// successor is the least key above every key that begins with prefix; nil
// when there is none (an empty prefix, or one of 0xff bytes).
func successor(prefix []byte) []byte {
	end := []byte(string(prefix))
	for len(end) > 0 {
		if end[len(end)-1] < 0xff {
			end[len(end)-1]++
			return end
		}
		end = end[:len(end)-1]
	}
	return nil
}
