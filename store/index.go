package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/tidwall/gjson"

	"github.com/proofloop/proofloop/model"
)

// IndexFile is the derived index of the store: a bbolt B+tree that lets
// next, status, list and history read what they need without opening every
// document. It is derived: the documents and the log stay the truth, doctor
// checks the index against them, and `doctor --reindex` rebuilds it. Every
// change of it goes through the same journal as the documents, so a crash
// leaves both in agreement.
//
// Buckets:
//   - items:  id -> Row (JSON), one per document;
//   - turn:   role \x00 (9999-depth) \x00 id -> "", one per item some role
//     must act on, so that next reads O(actionable) keys, deepest first;
//   - events: id \x00 seq (12 digits) -> offset and length of the event line
//     in events.jsonl, so that history reads O(events of one document);
//   - meta:   seq (the last event the index reflects), max_rounds (turns
//     depend on it), version.
const IndexFile = "index.db"

// indexVersion changes when the layout or the rows change meaning; an index
// of another version is rebuilt.
const indexVersion = "4"

var (
	bucketItems  = []byte("items")
	bucketTurn   = []byte("turn")
	bucketEvents = []byte("events")
	bucketMeta   = []byte("meta")
)

// Row is the index entry of one item: its place in the tree and whose turn
// it is, derived from its document, its children's rows and its lease.
type Row struct {
	ID         string       `json:"id"`
	Kind       model.Kind   `json:"kind"`
	Status     model.Status `json:"status"`
	Role       model.Role   `json:"role"`
	Reason     string       `json:"reason"`
	Outcome    string       `json:"outcome,omitempty"`
	Round      int          `json:"round"`
	OpenIssues []int        `json:"open_issues"`
	Parent     string       `json:"parent,omitempty"`
	Children   []string     `json:"children"`
	Depth      int          `json:"depth"`
	Root       string       `json:"root"`
	FillsIssue *int         `json:"fills_issue,omitempty"`
	Lease      *RowLease    `json:"lease,omitempty"`
	Revision   int          `json:"revision"`
	// What fully_proved is derived from, at read time (model.Prover): the
	// statements the item relies on (a solved problem: its key statement),
	// those of them a statement's proof does not cite, and whether the
	// statement was ever verified. OpenCritical counts the open issues of
	// severity critical.
	ReliesOn     []string `json:"relies_on,omitempty"`
	Uncited      []string `json:"uncited,omitempty"`
	Verified     bool     `json:"verified,omitempty"`
	OpenCritical int      `json:"open_critical,omitempty"`
	// ConfirmedModels are the model labels of the agents that confirmed
	// the current proof revision (verify_distinct), when any had one.
	ConfirmedModels []string `json:"confirmed_models,omitempty"`
	// Level is a statement's level of escalation once it has climbed
	// ("" at revise, where every statement starts), and DeadEnds how many
	// abandoned approaches it keeps.
	Level    string `json:"level,omitempty"`
	DeadEnds int    `json:"dead_ends,omitempty"`
	// Kernel: the statement's formal track is complete
	// (Statement.KernelChecked), the kernel's input to its grade.
	Kernel bool `json:"kernel,omitempty"`
	// Counted are the checkers (agent and model) of a true statement's
	// counted confirmations, when every one names its agent or model: the
	// measured level's input to its grade (model.MinReliability.
	// MeasuredTrue), judged when read against the checkers' records, which
	// change without the statement.
	Counted []model.AgentLabel `json:"counted,omitempty"`
}

// RowLease is the lease of a row's item as last written; whether it is live
// is decided when it is read, so an expired lease is free without a write.
type RowLease struct {
	Holder    string `json:"holder"`
	Role      string `json:"role"`
	ExpiresAt string `json:"expires_at"`
	Released  bool   `json:"released,omitempty"`
}

// Live reports whether the lease holds at now.
func (l *RowLease) Live(now time.Time) bool {
	if l == nil || l.Released {
		return false
	}
	exp, err := time.Parse(time.RFC3339Nano, l.ExpiresAt)
	return err == nil && now.Before(exp)
}

func rowLease(l *Lease) *RowLease {
	if l == nil {
		return nil
	}
	return &RowLease{Holder: l.Holder, Role: l.Role, ExpiresAt: l.ExpiresAt, Released: l.ReleasedAt != nil}
}

func turnKey(r *Row) []byte {
	return []byte(fmt.Sprintf("%s\x00%04d\x00%s", r.Role, 9999-min(r.Depth, 9999), r.ID))
}

func eventKey(id string, seq int) []byte { return []byte(fmt.Sprintf("%s\x00%012d", id, seq)) }

// eventLoc is an event-offset value: "offset,length" in decimal. Index
// values travel through the JSON journal, so they are text.
func eventLoc(off int64, n int) string { return strconv.FormatInt(off, 10) + "," + strconv.Itoa(n) }

// kvOp is one change of the index, as the journal records it.
type kvOp struct {
	B string `json:"b"`           // bucket
	K string `json:"k"`           // key
	V string `json:"v,omitempty"` // value
	D bool   `json:"d,omitempty"` // delete
}

// openIndex opens the index file through the root. The caller holds the
// store's lock (exclusive to write, shared to read), so bbolt's own flock
// never waits.
func (s *Store) openIndex(write bool) (*bolt.DB, error) {
	if !write {
		if _, err := s.root.Lstat(IndexFile); err != nil {
			return nil, err
		}
	}
	db, err := bolt.Open(IndexFile, 0o644, &bolt.Options{
		Timeout: s.LockTimeout + time.Second, ReadOnly: !write, NoSync: true,
		OpenFile: func(name string, flag int, perm os.FileMode) (*os.File, error) {
			return s.root.OpenFile(name, flag, perm)
		},
	})
	if err != nil {
		return nil, err
	}
	return db, nil
}

// applyIndex applies a journal's index changes in one bbolt transaction,
// not synced: the write-ahead log holds them until a checkpoint, and a
// machine crash before it drops the index to be rebuilt (see WALFile).
//
// An index that is not there is left alone: it is rebuilt from the
// documents at its first use, and these changes alone, written into a new
// file, would stamp it current with only this transaction's rows. That is
// the case after a replay, which drops the index, finishes a journal.
func (s *Store) applyIndex(ops []kvOp) error {
	if _, err := s.root.Lstat(IndexFile); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	db, err := s.openIndex(true)
	if err != nil {
		return damaged(IndexFile, err)
	}
	defer db.Close()
	err = db.Update(func(btx *bolt.Tx) error { return putOps(btx, ops) })
	if err != nil {
		return damaged(IndexFile, err)
	}
	return nil
}

func putOps(btx *bolt.Tx, ops []kvOp) error {
	for _, op := range ops {
		b, err := btx.CreateBucketIfNotExists([]byte(op.B))
		if err != nil {
			return err
		}
		if op.D {
			err = b.Delete([]byte(op.K))
		} else {
			err = b.Put([]byte(op.K), []byte(op.V))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// indexState is what a transaction reads of the index while it derives the
// rows of its changes: rows it has computed win over the file's.
type indexState struct {
	db   *bolt.DB
	btx  *bolt.Tx
	kv   KV // btx's buckets, or a backend's index
	rows map[string]*Row
	ops  []kvOp
	// lenient derives rows despite a missing parent or child, for a
	// rebuild of a store that doctor will report as damaged.
	lenient bool
	// current is set once the transaction has found the index's stamp
	// current (or rebuilt it); until then it is open only for the sums
	// of checked documents (Tx.checkedSum).
	current bool
}

func (ix *indexState) row(id string) (*Row, error) {
	if r, ok := ix.rows[id]; ok {
		return r, nil
	}
	if ix.kv == nil {
		return nil, nil
	}
	v, err := ix.kv.Get(string(bucketItems), []byte(id))
	if err != nil || v == nil {
		return nil, err
	}
	var r Row
	if err := json.Unmarshal(v, &r); err != nil {
		return nil, damaged(IndexFile, fmt.Errorf("row %s: %w", id, err))
	}
	return &r, nil
}

func (ix *indexState) close() {
	if ix.btx != nil {
		ix.btx.Rollback()
	}
	if ix.db != nil {
		ix.db.Close()
	}
}

// put records a row (and its turn key) and returns the ops.
func (ix *indexState) put(old, r *Row) error {
	if old != nil && old.Role != "" && (r == nil || !bytes.Equal(turnKey(old), turnKey(r))) {
		ix.ops = append(ix.ops, kvOp{B: string(bucketTurn), K: string(turnKey(old)), D: true})
	}
	if r == nil {
		ix.ops = append(ix.ops, kvOp{B: string(bucketItems), K: old.ID, D: true})
		return nil
	}
	v, err := json.Marshal(r)
	if err != nil {
		return err
	}
	ix.rows[r.ID] = r
	ix.ops = append(ix.ops, kvOp{B: string(bucketItems), K: r.ID, V: string(v)})
	if r.Role != "" {
		ix.ops = append(ix.ops, kvOp{B: string(bucketTurn), K: string(turnKey(r))})
	}
	return nil
}

// deriveRow builds the row of a document from the rows of its children
// and of its parent (nil for a root problem).
func deriveRow(d *Doc, ix *indexState, pol model.Policy) (*Row, error) {
	r := &Row{ID: d.ID, Kind: d.Kind, Status: d.Status(), OpenIssues: []int{}, Children: []string{}, Revision: d.revision}
	kids := func(ids []string) ([]model.Child, error) {
		var out []model.Child
		for _, id := range ids {
			c, err := ix.row(id)
			if err != nil {
				return nil, err
			}
			if c == nil && ix.lenient {
				continue
			}
			if c == nil {
				return nil, damaged(DocPath(d.Kind, d.ID), fmt.Errorf("child %s is not in the index", id))
			}
			out = append(out, model.Child{ID: id, Status: c.Status, FillsIssue: c.FillsIssue})
		}
		return out, nil
	}
	var t model.Turn
	switch d.Kind {
	case model.KindProblem:
		p, err := d.Problem()
		if err != nil {
			return nil, damaged(DocPath(d.Kind, d.ID), err)
		}
		if p.Parent != nil {
			r.Parent = *p.Parent
		}
		r.Children = append(append(r.Children, p.Preliminaries...), p.Progresses...)
		wraps, err := kids(p.Progresses)
		if err != nil {
			return nil, err
		}
		t = model.ProblemTurn(p, wraps, pol)
		if p.Status == model.ProblemSolved && p.ResolvedBy != nil {
			r.ReliesOn = []string{*p.ResolvedBy}
		}
	case model.KindStatement:
		st, err := d.Statement()
		if err != nil {
			return nil, damaged(DocPath(d.Kind, d.ID), err)
		}
		r.Parent, r.Round, r.OpenIssues, r.FillsIssue = st.Context, st.Round, st.OpenIssues(), st.FillsIssue
		r.Children = append(r.Children, st.SubStatements...)
		subs, err := kids(st.SubStatements)
		if err != nil {
			return nil, err
		}
		t = model.StatementTurn(st, subs, pol)
		r.ReliesOn, r.Uncited = model.ReliesOn(st)
		r.Level, r.DeadEnds = st.Level, len(st.DeadEnds)
		r.Verified, r.OpenCritical, r.Kernel = st.VerifiedAt != nil, st.OpenBySeverity()[model.SeverityCritical], st.KernelChecked()
		r.Counted = countedLabels(st)
		for _, m := range st.ConfirmedModels() {
			if m != "" {
				r.ConfirmedModels = append(r.ConfirmedModels, m)
			}
		}
	case model.KindDebate:
		db, err := d.Debate()
		if err != nil {
			return nil, damaged(DocPath(d.Kind, d.ID), err)
		}
		t = model.DebateTurnOf(db)
	default:
		return nil, fmt.Errorf("no index rows for %s documents", d.Kind)
	}
	r.Role, r.Reason, r.Outcome = t.Role, t.Reason, t.Outcome
	r.Root = r.ID
	if pr, ok := ix.rows[r.ID]; ok && ix.lenient {
		r.Depth, r.Root = pr.Depth, pr.Root // placed by deriveAll
	} else if r.Parent != "" {
		par, err := ix.row(r.Parent)
		if err != nil {
			return nil, err
		}
		if par == nil {
			return nil, damaged(DocPath(d.Kind, d.ID), fmt.Errorf("its parent %s is not in the index", r.Parent))
		}
		r.Depth, r.Root = par.Depth+1, par.Root
	}
	return r, nil
}

// indexMeta reads the index's stamp.
func indexMeta(kv KV) (seq int, policy, version string) {
	get := func(k string) string {
		v, _ := kv.Get(string(bucketMeta), []byte(k))
		return string(v)
	}
	seq, err := strconv.Atoi(get("seq"))
	if err != nil {
		seq = -1
	}
	return seq, get("policy"), get("version")
}

// boltKV reads the buckets of the file store's index.
type boltKV struct{ btx *bolt.Tx }

func (b boltKV) Get(bucket string, key []byte) ([]byte, error) {
	if bk := b.btx.Bucket([]byte(bucket)); bk != nil {
		return bk.Get(key), nil
	}
	return nil, nil
}

func (b boltKV) Scan(bucket string, prefix []byte, fn func(k, v []byte) error) error {
	bk := b.btx.Bucket([]byte(bucket))
	if bk == nil {
		return nil
	}
	c := bk.Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		if err := fn(k, v); err != nil {
			return err
		}
	}
	return nil
}

// EventIDs are the ids an event line names.
func EventIDs(line []byte) []string {
	var out []string
	for _, id := range gjson.GetBytes(line, "ids").Array() {
		out = append(out, id.String())
	}
	return out
}

// errIndexMissing says the index must be built before it can be read.
var errIndexMissing = errors.New("the index is missing")

func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
