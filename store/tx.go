package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/proofloop/proofloop/model"
)

// TxOptions describe a transaction for its event and its checks.
type TxOptions struct {
	Command string
	Actor   string
	// ActorDefaulted is set when Actor was not declared (no --actor, no
	// $PROOFLOOP_ACTOR: the operating-system user). A lease then names who
	// acts; a declared actor that differs from the lease's is refused.
	ActorDefaulted bool
	// Target is the document the command acts on; ExpectRevision, when not
	// nil, must equal its revision or the transaction fails with conflict.
	Target         string
	ExpectRevision *int
	// Lease is the lease token the caller presented (--lease); LeaseHolder
	// is filled in from the lease it matches, for the event.
	Lease       string
	LeaseHolder string
	// Agent and Model are the agent of config.json the transaction acts
	// for, and its model label, from the lease it uses ("" when none).
	Agent, Model string
}

// Tx is one transaction. It holds the store's lock from Update's start to
// its commit, so everything it reads is current.
type Tx struct {
	s      *Store
	opts   TxOptions
	clock  time.Time
	now    string
	docs   map[string]*Doc
	order  []string
	detail map[string]any

	leases      map[string]*Lease
	dirtyLeases []string
	files       []journalWrite // derived files: transcripts, kept proof revisions
	project     []journalWrite // derived copies in the project folder, written after commit
	appended    map[string]int64
	ix          *indexState // the index, once the transaction has opened it

	bt BackendTx // the backend's transaction; nil on the file store

	record bool // commit an event even when nothing else changed (Record)
}

// Record makes the transaction append its event even when it changes no
// document: a fact for the log alone, such as a run turn's usage.
func (tx *Tx) Record() { tx.record = true }

// Commit is what a committed transaction changed.
type Commit struct {
	Seq     int
	Event   Event
	Changed []*Doc
}

// Timestamp formats t as the store writes it, ISO 8601 UTC to the second.
func Timestamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }

// Update runs fn as one transaction: lock, recover a leftover journal, let
// fn read and change documents, schema-check every changed document, commit
// them all at once and append one event. If fn returns an error nothing is
// written. A transaction reads only the documents fn asks for.
func (s *Store) Update(opts TxOptions, fn func(tx *Tx) error) (*Commit, error) {
	var project []journalWrite
	c, err := s.update(opts, func(tx *Tx) error {
		err := fn(tx)
		project = tx.project
		return err
	})
	if err == nil {
		s.writeProjectFiles(project)
	}
	return c, err
}

func (s *Store) update(opts TxOptions, fn func(tx *Tx) error) (*Commit, error) {
	if s.backend != nil {
		return s.updateBackend(opts, fn)
	}
	unlock, err := lock(s.root, s.Dir, s.LockTimeout)
	if err != nil {
		if CodeOf(err) != "" {
			return nil, err
		}
		return nil, Errorf(CodeInternal, "lock %s", s.Dir).Wrap(err)
	}
	defer unlock()
	if _, err := s.recover(); err != nil {
		return nil, err
	}
	clock := s.Now()
	tx := &Tx{s: s, opts: opts, clock: clock, now: Timestamp(clock), docs: map[string]*Doc{}}
	defer func() {
		if tx.ix != nil {
			tx.ix.close()
		}
	}()
	if err := fn(tx); err != nil {
		return nil, err
	}
	return tx.commit()
}

// Now is the transaction's timestamp, the same for every field it sets.
func (tx *Tx) Now() string { return tx.now }

// Clock is the transaction's time, exactly: the store's clock when it
// began (a backend's, such as PostgreSQL's now(), never the client's).
// Leases are written and judged by it.
func (tx *Tx) Clock() time.Time { return tx.clock }

// Actor is the actor the transaction runs for ("" when none was given).
func (tx *Tx) Actor() string { return tx.opts.Actor }

// Agent is the agent of config.json the transaction acts for, and its
// model label ("" when the actor is no agent of a run).
func (tx *Tx) Agent() (name, modelLabel string) { return tx.opts.Agent, tx.opts.Model }

// Detail adds a free-form fact to the transaction's event.
func (tx *Tx) Detail(key string, v any) {
	if tx.detail == nil {
		tx.detail = map[string]any{}
	}
	tx.detail[key] = v
}

// Get reads a document, schema-checked. A missing document is not_found; a
// document that fails to parse or fails its schema is store_damaged. When id
// is the transaction's target, its revision is checked against
// ExpectRevision.
func (tx *Tx) Get(id string) (*Doc, error) {
	if d, ok := tx.docs[id]; ok {
		return d, nil
	}
	d, err := readDocChecked(tx.src(), id, tx.checkedSum(id))
	if err != nil {
		return nil, err
	}
	if id == tx.opts.Target && tx.opts.ExpectRevision != nil && *tx.opts.ExpectRevision != d.revision {
		return nil, Errorf(CodeConflict, "%s is at revision %d, not %d as expected: it has changed since it was read", id, d.revision, *tx.opts.ExpectRevision).
			WithHint(fmt.Sprintf("run `proofloop show %s` and decide again", id))
	}
	tx.add(d)
	return d, nil
}

// Exists reports whether a document exists, without reading it.
func (tx *Tx) Exists(id string) (bool, error) {
	k, err := model.KindOf(id)
	if err != nil {
		return false, &Error{Code: CodeInvalidInput, Msg: "bad id", Err: err}
	}
	if _, ok := tx.docs[id]; ok {
		return true, nil
	}
	if tx.bt != nil {
		return tx.bt.DocExists(id)
	}
	_, err = tx.s.root.Stat(DocPath(k, id))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// Create adds a new document built from v (a struct or map that marshals to
// the document's fields; id, created_at, updated_at and revision are set
// here). Creating a document that exists fails with conflict: ids are never
// reused.
func (tx *Tx) Create(id string, v any) (*Doc, error) {
	k, err := model.KindOf(id)
	if err != nil {
		return nil, &Error{Code: CodeInvalidInput, Msg: "bad id", Err: err}
	}
	if ok, err := tx.Exists(id); err != nil {
		return nil, Errorf(CodeInternal, "stat %s", id).Wrap(err)
	} else if ok {
		return nil, Errorf(CodeConflict, "%s already exists", id).WithHint("ids are never reused")
	}
	if id == tx.opts.Target && tx.opts.ExpectRevision != nil && *tx.opts.ExpectRevision != 0 {
		return nil, Errorf(CodeConflict, "%s does not exist yet (revision 0), not at revision %d as expected", id, *tx.opts.ExpectRevision)
	}
	raw, err := Marshal(v)
	if err != nil {
		return nil, Errorf(CodeInternal, "encode %s", id).Wrap(err)
	}
	d := &Doc{ID: id, Kind: k, Raw: raw, orig: []byte("{}"), created: true}
	for _, f := range []struct {
		path string
		v    any
	}{{"id", id}, {"created_at", tx.now}} {
		if err := d.Set(f.path, f.v); err != nil {
			return nil, err
		}
	}
	tx.add(d)
	return d, nil
}

func (tx *Tx) add(d *Doc) {
	tx.docs[d.ID] = d
	tx.order = append(tx.order, d.ID)
}

// read loads and schema-checks one document by id, without the lock.
func (s *Store) read(id string) (*Doc, error) { return readDoc(s.src(), id) }

// Read loads one document outside any transaction. Readers take no lock;
// but if a crashed commit left a journal, Read first takes the lock and
// finishes it, so a reader never sees half of a transaction that committed.
func (s *Store) Read(id string) (*Doc, error) {
	if err := s.finishJournal(); err != nil {
		return nil, err
	}
	return s.read(id)
}

// finishJournal finishes a journal a crashed commit left, under the lock,
// so that a reader never sees half of a transaction that committed. It
// also replays a log left by another boot: after a machine crash the
// documents may have lost writes that only .wal holds, and a reader would
// see an older (or an empty) document than the commit reported.
func (s *Store) finishJournal() error {
	if s.backend != nil {
		return nil // a backend's transactions are all or nothing by themselves
	}
	if _, err := s.root.Lstat(JournalFile); errors.Is(err, fs.ErrNotExist) {
		if s.walOK.Load() || bootOnce() == "" {
			return nil
		}
		if same, err := s.walSameBoot(); err != nil {
			return err
		} else if same {
			s.walOK.Store(true)
			return nil
		}
	} else if err != nil {
		return damaged(JournalFile, err)
	}
	unlock, err := lock(s.root, s.Dir, s.LockTimeout)
	if err != nil {
		return err
	}
	defer unlock()
	_, err = s.recover()
	return err
}

// committed moves the changed documents on to their new revisions.
func (tx *Tx) committed(ev Event, changed []*Doc) *Commit {
	for _, d := range changed {
		if !d.deleted {
			d.revision++
		}
		d.orig, d.created, d.dirty, d.owned = d.Raw, false, false, false
	}
	return &Commit{Seq: ev.Seq, Event: ev, Changed: changed}
}

// Delete removes a document when the transaction commits; its event keeps
// the record that it existed.
func (tx *Tx) Delete(id string) error {
	d, err := tx.Get(id)
	if err != nil {
		return err
	}
	d.deleted = true
	return nil
}

// WriteFile replaces a derived file (a debate transcript) when the
// transaction commits. name must be one of the paths checkJournalPath
// admits.
func (tx *Tx) WriteFile(name string, content []byte) error {
	if err := checkJournalPath(name); err != nil {
		return Errorf(CodeInternal, "write %s", name).Wrap(err)
	}
	tx.files = append(tx.files, journalWrite{Path: name, Content: string(content)})
	return nil
}

// WriteProjectFile writes a derived copy (a debate's --artifact transcript)
// to name, relative to the project folder, once the transaction has
// committed. It is outside the journal: a crash between the commit and the
// write leaves it stale, and doctor rewrites it (docs/decisions.md).
func (tx *Tx) WriteProjectFile(name string, content []byte) {
	tx.project = append(tx.project, journalWrite{Path: name, Content: string(content)})
}

// RemoveFile removes a derived file when the transaction commits.
func (tx *Tx) RemoveFile(name string) error {
	if err := checkJournalPath(name); err != nil {
		return Errorf(CodeInternal, "remove %s", name).Wrap(err)
	}
	tx.files = append(tx.files, journalWrite{Path: name, Remove: true})
	return nil
}

// AppendFile appends b to a derived append-only file (kept proof
// revisions) when the transaction commits, at the file's present end.
func (tx *Tx) AppendFile(name string, b []byte) error {
	if err := checkJournalPath(name); err != nil {
		return Errorf(CodeInternal, "append to %s", name).Wrap(err)
	}
	at, ok := tx.appended[name]
	if !ok && tx.bt == nil {
		fi, err := tx.s.root.Stat(name)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return damaged(name, err)
		default:
			at = fi.Size()
		}
	}
	if tx.appended == nil {
		tx.appended = map[string]int64{}
	}
	tx.appended[name] = at + int64(len(b))
	tx.files = append(tx.files, journalWrite{Path: name, Content: string(b), At: &at})
	return nil
}

func decode(raw []byte, v any) error { return json.Unmarshal(raw, v) }

// Config reads config.json for the transaction's rules (quorum, budgets).
// On a backend it is read through the transaction's own connection: a
// second connection could wait for one the process's other transactions
// hold.
func (tx *Tx) Config() (Config, error) {
	if tx.bt == nil {
		return tx.s.Config()
	}
	tx.s.cfgMu.Lock()
	defer tx.s.cfgMu.Unlock()
	return tx.s.backendConfig(tx.bt.Peek)
}
