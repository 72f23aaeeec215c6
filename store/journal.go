package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"regexp"
	"slices"
	"sync"

	"github.com/tidwall/gjson"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/schemas"
)

// journalWrite is one file operation of a transaction: replace a file with
// Content (the default), write Content at offset At (cutting the file
// there first: an append whose redo is idempotent), or Remove the file.
type journalWrite struct {
	Path    string `json:"path"`
	Content string `json:"content"`
	At      *int64 `json:"at,omitempty"`
	Remove  bool   `json:"remove,omitempty"`
	KV      []kvOp `json:"kv,omitempty"` // the index's changes (Path is index.db)
	// EventLine: Content is the journal's event line and a newline, left
	// out of the record, which holds the line once (in Event).
	EventLine bool `json:"event_line,omitempty"`
}

// content is what w writes: its Content, or j's event line.
func (w journalWrite) content(j *journal) []byte {
	if w.EventLine {
		return append(slices.Clip([]byte(j.Event)), '\n')
	}
	return []byte(w.Content)
}

// journal is the redo record of one transaction. Once it is durably in
// place the transaction has committed: recovery replays it. Its last write
// appends the event line to events.jsonl, so recovery writes the event too.
type journal struct {
	Seq      int             `json:"seq"`
	Event    json.RawMessage `json:"event"`
	Writes   []journalWrite  `json:"writes"`
	Checksum string          `json:"checksum"`
}

func (j *journal) sum() string {
	h := sha256.New()
	fmt.Fprintf(h, "%d\x00%s\x00", j.Seq, j.Event)
	for _, w := range j.Writes {
		if w.At != nil || w.Remove {
			at := int64(-1)
			if w.At != nil {
				at = *w.At
			}
			fmt.Fprintf(h, "%s\x00%d\x00%t\x00", w.Path, at, w.Remove)
		}
		fmt.Fprintf(h, "%s\x00%d\x00%s\x00", w.Path, len(w.Content), w.Content)
		for _, op := range w.KV {
			fmt.Fprintf(h, "%s\x00%d\x00%s\x00%d\x00%s\x00%t\x00", op.B, len(op.K), op.K, len(op.V), op.V, op.D)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// journalMark is what .journal holds while a transaction is applied: where
// its record starts in the write-ahead log, and the record's checksum. The
// record's bytes go to disk once, in the log; the mark only says which line
// to finish (a journal of the earlier protocol held the whole record, and
// recover still finishes one).
type journalMark struct {
	Seq      int    `json:"seq"`
	WALAt    int64  `json:"wal_at"`
	Checksum string `json:"checksum"`
}

// commit is the protocol of docs/store.md, for one or many files:
//  1. the mark, naming the offset of the write-ahead log (.wal) where the
//     transaction's record will go, is put in place as .journal (a temp
//     file renamed, not synced): the sign that a transaction is being
//     applied, which readers and the next command finish;
//  2. the record, holding every write of the transaction (the event line
//     last), is appended to the log there and fdatasynced: the commit
//     point, and the call's one sync;
//  3. each write is applied without syncing: a document is replaced through
//     a temp file beside it and a rename, an append is written at its
//     offset, the index's changes are made in one bbolt transaction; the
//     event line, the last write, is appended to events.jsonl;
//  4. .journal is removed, and once the log has grown past walLimit a
//     checkpoint syncs what the logged transactions wrote and empties it.
//
// A kill before 2 leaves the store as it was (perhaps with a mark whose
// record is not in the log, which recover discards, and a stale temp file);
// a kill after it is finished by recover, which syncs the log's record
// when the kill came between 2's write and its sync, then redoes 3, from
// the page cache that a killed process does not lose. A crash of the
// machine can lose the unsynced writes of 3: walRecover replays the log
// (see WALFile). The caller (Tx.commit) has sealed the event against the
// log's tail, which it read under the lock.
func (s *Store) commit(seq int, line []byte, at int64, writes []journalWrite) error {
	writes = append(writes, journalWrite{Path: EventsFile, At: &at, EventLine: true})
	j := journal{Seq: seq, Event: line, Writes: writes}
	j.Checksum = j.sum()
	// Without HTML escaping: json.Marshal would rewrite a ">" inside the
	// event line (a RawMessage) as \u003e, and the line recovery writes
	// back would no longer match its checksum or its hash.
	jb, err := j.encode()
	if err != nil {
		return Errorf(CodeInternal, "encode journal").Wrap(err)
	}
	walAt, err := s.walSize()
	if err != nil {
		return Errorf(CodeInternal, "open %s", WALFile).Wrap(err)
	}
	mark, err := Marshal(journalMark{Seq: seq, WALAt: walAt, Checksum: j.Checksum})
	if err != nil {
		return Errorf(CodeInternal, "encode journal").Wrap(err)
	}
	crashPoint("before-journal")
	if err := writeReplace(s.root, JournalFile, mark); err != nil {
		return Errorf(CodeInternal, "write journal").Wrap(err)
	}
	crashPoint("after-marker")
	size, err := s.walAppend(jb, walAt)
	if err != nil {
		// Not durable, so not committed: take the mark back, so that
		// nothing finishes a transaction that reported failure.
		_ = s.root.Remove(JournalFile)
		return Errorf(CodeInternal, "append to %s", WALFile).Wrap(err)
	}
	crashPoint("after-journal")
	// The transaction has committed. If applying it fails (a full disk, say),
	// the journal stays and the next command or reader finishes it; failing
	// here would invite a retry that applies the change twice.
	if s.apply(&j) == nil {
		_ = s.walCheckpoint(size, seq)
	}
	return nil
}

// apply performs step 3 of commit and removes .journal. It is idempotent,
// so recovery calls it again after a crash. Nothing here syncs: the
// write-ahead log already holds every byte (see WALFile).
func (s *Store) apply(j *journal) error {
	dirs := map[string]bool{}
	logged := false
	for i, w := range j.Writes {
		if w.Path == EventsFile {
			crashPoint("after-writes")
			logged = true
		}
		if err := s.applyWrite(w, w.content(j), dirs); err != nil {
			return err
		}
		if i == 0 {
			crashPoint("after-first-write")
		}
	}
	if !logged {
		// A journal written before the event became one of its writes.
		t, err := s.tail()
		if err != nil {
			return err
		}
		if t.Seq < j.Seq {
			at := t.Size
			if err := s.applyWrite(journalWrite{Path: EventsFile, At: &at}, append(slices.Clip([]byte(j.Event)), '\n'), dirs); err != nil {
				return err
			}
		}
	}
	crashPoint("after-event")
	if err := s.root.Remove(JournalFile); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// applyWrite performs one write, of content (w's content: see
// journalWrite.content); the folders whose entries changed are added to
// dirs for the caller to fsync.
func (s *Store) applyWrite(w journalWrite, content []byte, dirs map[string]bool) error {
	dir := path.Dir(w.Path)
	switch {
	case w.Path == IndexFile:
		return s.applyIndex(w.KV)
	case w.Remove:
		if err := s.root.Remove(w.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		dirs[dir] = true
	case w.At != nil:
		created, err := writeAt(s.root, w.Path, *w.At, content)
		if err != nil {
			return err
		}
		if created {
			dirs[dir] = true
		}
	default:
		if err := writeReplace(s.root, w.Path, content); err != nil {
			return err
		}
		dirs[dir] = true
	}
	return nil
}

// writeAt writes b at offset at of the root-relative file name, cutting the
// file there first (not synced: see WALFile). Redoing it gives the same file. A file
// shorter than at means bytes the journal relies on are gone: damage.
func writeAt(root *os.Root, name string, at int64, b []byte) (created bool, err error) {
	if dir := path.Dir(name); dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return false, err
		}
	}
	f, err := root.OpenFile(name, os.O_RDWR, 0o644)
	if errors.Is(err, fs.ErrNotExist) {
		f, err = root.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
		created = true
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return false, err
	}
	if st.Size() < at {
		return false, damaged(name, fmt.Errorf("it has %d bytes, but a transaction appends at byte %d: bytes were cut from it", st.Size(), at))
	}
	if st.Size() != at {
		if err := f.Truncate(at); err != nil {
			return false, err
		}
	}
	if _, err := f.WriteAt(b, at); err != nil {
		return false, err
	}
	return created, nil
}

// Recovery says what recover found.
type Recovery struct {
	Found     bool   // a journal was there
	Finished  bool   // and it was replayed
	Seq       int    // the transaction it held
	Discarded string // why it was thrown away, when it was
}

// Recover finishes or discards a leftover journal, for doctor. The caller
// holds the lock (Lock).
func (s *Store) Recover() (Recovery, error) { return s.recover() }

// recover finishes or discards a leftover journal. The caller holds the
// lock. A journal that does not parse or fails its checksum never reached
// the commit point intact, so it is discarded: no document was touched yet.
func (s *Store) recover() (Recovery, error) {
	if err := s.walRecover(); err != nil {
		return Recovery{}, err
	}
	raw, err := s.root.ReadFile(JournalFile)
	if errors.Is(err, fs.ErrNotExist) {
		return Recovery{}, nil
	} else if err != nil {
		return Recovery{}, damaged(JournalFile, err)
	}
	var j journal
	why := ""
	var logged []byte // the record's line in the log, for a mark
	if err := schemas.Validate(schemas.Journal, raw); err != nil {
		why = err.Error()
	} else if gjson.GetBytes(raw, "wal_at").Exists() {
		j, logged, why, err = s.markedRecord(raw)
		if err != nil {
			return Recovery{}, err
		}
	} else if err := json.Unmarshal(raw, &j); err != nil {
		why = err.Error()
	} else if j.Checksum != j.sum() {
		why = "checksum mismatch"
	}
	if why != "" {
		if err := s.root.Remove(JournalFile); err != nil {
			return Recovery{}, damaged(JournalFile, err)
		}
		return Recovery{Found: true, Discarded: why}, nil
	}
	for _, w := range j.Writes {
		if err := checkJournalPath(w.Path); err != nil {
			return Recovery{}, damaged(JournalFile, err)
		}
	}
	if why, err := s.staleJournal(&j); err != nil {
		return Recovery{}, err
	} else if why != "" {
		if err := s.root.Remove(JournalFile); err != nil {
			return Recovery{}, damaged(JournalFile, err)
		}
		return Recovery{Found: true, Discarded: why}, nil
	}
	// The journal is finished, never discarded: a kill after the mark and
	// before the log's sync leaves a transaction whose caller never heard
	// back, which may go either way, and finishing it is the one choice
	// that also holds for a journal of the store's earlier protocol (the
	// journal itself was the commit point, and its writes may be half
	// done). But it is logged first, durably: a transaction applied
	// without its line in .wal would be missing from the replay after a
	// machine crash, whose next line appends at an offset of events.jsonl
	// that only this transaction reached, and the store would never open
	// again.
	jb := raw
	if logged != nil {
		jb = logged // already the log's last line: walLog syncs it
	} else if bytes.IndexByte(raw, '\n') >= 0 {
		if jb, err = Marshal(j); err != nil {
			return Recovery{}, Errorf(CodeInternal, "encode journal").Wrap(err)
		}
	}
	size, err := s.walLog(jb)
	if err != nil {
		return Recovery{}, Errorf(CodeInternal, "log transaction %d from the journal to %s", j.Seq, WALFile).Wrap(err)
	}
	crashPoint("after-journal")
	if err := s.apply(&j); err != nil {
		if CodeOf(err) != "" {
			return Recovery{}, err
		}
		return Recovery{}, Errorf(CodeInternal, "finish transaction %d from the journal", j.Seq).Wrap(err)
	}
	_ = s.walCheckpoint(size, j.Seq) // as in commit: the log holds it until a later one
	return Recovery{Found: true, Finished: true, Seq: j.Seq}, nil
}

// markedRecord reads the record a mark (.journal of this protocol) names:
// the log's last line, from the mark's offset. When the line is not there
// whole, either a replay after a machine crash has applied and
// checkpointed it (the event log has its seq), or the kill came before the
// commit point, the record's append: why says which, and the bytes of a
// torn record are cut off the log, whose next append would follow them.
func (s *Store) markedRecord(raw []byte) (journal, []byte, string, error) {
	var m journalMark
	var j journal
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	if err := d.Decode(&m); err != nil {
		return j, nil, err.Error(), nil
	}
	wal, err := s.root.ReadFile(WALFile)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return j, nil, "", damaged(WALFile, err)
	}
	line, whole := []byte(nil), false
	if m.WALAt > 0 && m.WALAt <= int64(len(wal)) {
		line = wal[m.WALAt:]
		line, whole = bytes.CutSuffix(line, []byte("\n"))
		whole = whole && bytes.IndexByte(line, '\n') < 0
	}
	if whole && json.Unmarshal(line, &j) == nil && j.Seq == m.Seq && j.Checksum == m.Checksum && j.sum() == j.Checksum {
		return j, line, "", nil
	}
	t, err := s.tail()
	if err != nil {
		return j, nil, "", err
	}
	if m.Seq <= t.Seq {
		return j, nil, fmt.Sprintf("stale: transaction %d is in the event log already", m.Seq), nil
	}
	if m.WALAt > 0 && m.WALAt < int64(len(wal)) {
		// A torn or damaged record of a transaction that never committed.
		f, err := s.root.OpenFile(WALFile, os.O_WRONLY, 0)
		if err != nil {
			return j, nil, "", damaged(WALFile, err)
		}
		err = f.Truncate(m.WALAt)
		f.Close()
		if err != nil {
			return j, nil, "", damaged(WALFile, err)
		}
	}
	return j, nil, fmt.Sprintf("transaction %d never reached %s (the kill came before its commit point)", m.Seq, WALFile), nil
}

// staleJournal says why a whole journal must not be applied: its
// transaction is not the last one of the log, or not the one the log's
// last event records. A journal is removed before the next transaction
// begins, so only a machine crash that lost its removal (but not the later
// transactions, which .wal replayed) brings one back, and redoing it would
// write its older documents, and its event at an offset later events now
// hold, over them.
func (s *Store) staleJournal(j *journal) (string, error) {
	t, err := s.tail()
	if err != nil {
		return "", err
	}
	if j.Seq < t.Seq {
		return fmt.Sprintf("stale: it holds transaction %d, and the log has reached %d", j.Seq, t.Seq), nil
	}
	var ev struct {
		Hash string `json:"hash"`
	}
	if j.Seq == t.Seq && (json.Unmarshal(j.Event, &ev) != nil || ev.Hash != t.Hash) {
		return fmt.Sprintf("stale: it holds transaction %d, and the log's event %d is another", j.Seq, t.Seq), nil
	}
	return "", nil
}

// derivedPathRe admits the store's files besides documents and leases: the
// debate transcripts and the kept proof revisions. Their length is checked
// apart (maxDerivedPath): a bounded repetition such as {1,128} compiles to
// 128 copies, and cost every process a millisecond at start.
// A transcript's name keeps the topic's letters in any script
// (model.FileSlug).
var derivedPathRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(\.debates/[0-9]{4}-[0-9]{2}-[0-9]{2}-[\p{L}\p{N}\p{M}_-]+\.md|proofs/[a-z0-9_]+\.jsonl)$`)
})

// maxDerivedPath bounds a derived file's path: proofs/ plus a 128-byte id,
// or a transcript named by 40 characters of up to 4 bytes each, whichever
// is longer.
const maxDerivedPath = max(len("proofs/.jsonl")+128, len(".debates/YYYY-MM-DD-.md")+4*40)

// checkJournalPath admits only the paths a transaction may write: documents
// and leases with valid ids, config.json, events.jsonl and the derived files
// of derivedPathRe. A journal naming anything else was not written by us.
func checkJournalPath(p string) error {
	if p == ConfigFile || p == EventsFile || p == IndexFile || p == CheckersFile || (len(p) <= maxDerivedPath && derivedPathRe().MatchString(p)) {
		return nil
	}
	dir, file := path.Split(p)
	id := file[:max(0, len(file)-len(".json"))]
	k, err := model.KindOf(id)
	if err != nil || (dir != k.Dir()+"/" && dir != LeaseDir+"/") || file != id+".json" {
		return fmt.Errorf("journal names a path outside the documents: %q", p)
	}
	return nil
}
