package store

import (
	"context"
	"errors"
	"os"
	"time"

	"github.com/proofloop/proofloop/model"
)

// Backend keeps a store's state somewhere else than files under the root:
// package pgstore keeps it in PostgreSQL, for many machines. A Store opened
// with OpenBackend runs the same transactions over it as the file store:
// the same schema checks, rules, patches, hash chain and index; only where
// the bytes live, how a transaction excludes others (row locks instead of
// the root's flock) and whose clock it reads differ.
//
// Names are the file store's: documents are read by id, and every other
// file (config.json, leases/<id>.json, proofs/<id>.jsonl,
// .debates/<name>.md) by its path inside a root.
type Backend interface {
	// String names the backend for messages; never with a password.
	String() string
	Close() error
	// Begin starts a transaction, and reads o's documents and files in the
	// same round trip.
	Begin(o BeginOptions) (BackendTx, error)

	// The readers below see the last committed state and take no lock.
	// A missing document or file is nil with no error.
	ReadDoc(id string) ([]byte, error)
	ListDocs(k model.Kind) ([]string, error)
	ReadFile(name string) ([]byte, error)
	// ReadFileNow is ReadFile and Now in one round trip: what a command
	// reads first (config.json, and the clock its offset is taken from).
	ReadFileNow(name string) ([]byte, time.Time, error)
	// Events calls fn with each event line above seq since, in order.
	Events(since int, fn func(seq int, line []byte) error) error
	// EventLines returns the lines of the given seqs, in the same order.
	EventLines(seqs []int) ([][]byte, error)
	// Wait returns once the log has an event above since, or ctx ends.
	// It waits for a notification, not by polling.
	Wait(ctx context.Context, since int) error
	// Tail is the seq and hash of the last event (0 and "" for none).
	Tail() (seq int, hash string, err error)
	// Now is the backend's clock, which leases are judged by.
	Now() (time.Time, error)
	// View runs fn on a consistent snapshot of the whole store.
	View(fn func(Snapshot) error) error
}

// BeginOptions describe a transaction to Begin.
type BeginOptions struct {
	// LockTimeout bounds each wait for a lock; a longer one fails with
	// lock_timeout.
	LockTimeout time.Duration
	// Files and Docs are read, locked, in the transaction's first round
	// trip, in that order, and served to its first ReadFile and ReadDoc of
	// each: what it is known to read first (its target's lease and
	// document), so that reading them costs no round trip of its own.
	Files, Docs []string
}

// KVKey names one key of the index.
type KVKey struct{ Bucket, Key string }

// Snapshot reads a Backend as of one moment: the index (KV), the documents,
// the files and the log.
type Snapshot interface {
	KV
	ReadDoc(id string) ([]byte, error)
	ListDocs(k model.Kind) ([]string, error)
	ReadFile(name string) ([]byte, error)
	ListFiles(dir string) ([]string, error)
	Events(since int, fn func(seq int, line []byte) error) error
}

// BackendTx is one transaction of a Backend. Everything it reads stays
// as read until it ends: a document or file read through it is locked
// against other transactions.
type BackendTx interface {
	// Now is the transaction's time on the backend's clock.
	Now() time.Time
	ReadDoc(id string) ([]byte, error)
	DocExists(id string) (bool, error)
	ListDocs(k model.Kind) ([]string, error)
	ReadFile(name string) ([]byte, error)
	// Peek reads a file as committed, without locking it.
	Peek(name string) ([]byte, error)
	// KV reads the index as the transaction sees it.
	KV() KV
	// Exclusive makes every other transaction wait to commit until this one
	// ends (for a rebuild of the whole index).
	Exclusive() error
	// ReplaceIndex empties the index and writes ops.
	ReplaceIndex(ops []KVOp) error
	// LockLog takes the log's counter until the transaction ends, and
	// reads the index keys get in the same round trip, returning the
	// values of those present. A transaction that writes holds the counter
	// from its commit's first step (Commit takes it when LockLog did not),
	// so once it is taken no other transaction can change a document, a
	// file or the log before this one ends: what it reads after needs no
	// row lock, and Commit seals with no round trip of its own.
	LockLog(get []KVKey) (map[KVKey][]byte, error)
	// Commit writes w, then takes the next seq and the hash of the last
	// event, lets seal make the event line and the index changes that name
	// the seq, writes them, and commits. With seal nil it commits w and no
	// event. An error wrapping ErrRetry means a concurrent transaction got
	// in the way: running the whole transaction again may succeed.
	Commit(w []Write, seal func(seq int, prevHash string) (line []byte, ops []KVOp, err error)) (seq int, err error)
	// Load writes a whole store into an empty backend: documents and files,
	// and the event lines as they are, with the counter at the last one.
	Load(w []Write, lines [][]byte) error
	Rollback()
}

// Write is one change of a transaction for a Backend: a document (Path is
// DocPath) or a file replaced with Content, appended to, or removed.
type Write struct {
	Path    string
	Content []byte
	Append  bool
	Remove  bool
	// Doc is set for a document: its id, kind and revision after the write.
	Doc      string
	Kind     model.Kind
	Revision int
}

// KV reads the index: a sorted map of buckets of byte keys.
type KV interface {
	// Get returns the value of key, nil when it has none.
	Get(bucket string, key []byte) ([]byte, error)
	// Scan calls fn with the keys that begin with prefix, in byte order.
	Scan(bucket string, prefix []byte, fn func(k, v []byte) error) error
}

// KVOp is one change of the index.
type KVOp = kvOp

// ErrRetry marks a transaction that met a concurrent one (a deadlock, a
// serialization failure, two inserts of one new row): Update runs it again.
var ErrRetry = errors.New("a concurrent transaction got in the way")

// MaxAttempts bounds how often Update runs a transaction that a Backend
// asked to retry, before it fails with conflict (exit 5).
const MaxAttempts = 8

// Backend is the store's backend, nil for the file store.
func (s *Store) Backend() Backend { return s.backend }

// SkewEnv is a test hook: a duration (such as -1h) by which this
// machine's clock is taken to be wrong, to show that a backend's leases
// follow the backend's clock and not the client's.
const SkewEnv = "PROOFLOOP_TEST_CLOCK_SKEW"

var skew, _ = time.ParseDuration(os.Getenv(SkewEnv))

// localNow is this machine's clock (shifted by SkewEnv in tests).
func localNow() time.Time { return time.Now().Add(skew) }
