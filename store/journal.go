package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"syscall"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/schemas"
)

// Event is one line of events.jsonl: one committed transaction.
type Event struct {
	Seq         int            `json:"seq"`
	Time        string         `json:"time"`
	Actor       *string        `json:"actor"`
	Command     string         `json:"command"`
	IDs         []string       `json:"ids"`
	Changes     []Change       `json:"changes"`
	LeaseHolder *string        `json:"lease_holder"`
	Detail      map[string]any `json:"detail,omitempty"`
}

// Change is one document a transaction wrote.
type Change struct {
	ID       string        `json:"id"`
	Kind     model.Kind    `json:"kind"`
	Before   *model.Status `json:"before"`
	After    model.Status  `json:"after"`
	Revision int           `json:"revision"`
}

type journalWrite struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

// journal is the redo record of one transaction. Once it is durably in
// place the transaction has committed: recovery replays it.
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
		fmt.Fprintf(h, "%s\x00%d\x00%s\x00", w.Path, len(w.Content), w.Content)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// crashAt is a test hook: PROOFLOOP_TEST_CRASH names a step of the commit
// at which the process kills itself with SIGKILL, so the crash tests can hit
// every step, not only the ones random kills happen to land on.
var crashAt = os.Getenv("PROOFLOOP_TEST_CRASH")

func crashPoint(name string) {
	if crashAt == name {
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	}
}

// commit is the protocol of shared/DESIGN.md, for one or many files:
//  1. the journal, holding the event and every new document, is written to
//     a temp file, fsynced, renamed into place and its folder fsynced: the
//     commit point;
//  2. each document is replaced through a renameio temp file beside it
//     (written, fsynced, renamed), and the folders are fsynced;
//  3. the event line is appended to events.jsonl and fsynced;
//  4. the journal is removed.
//
// A crash before 1 leaves the store as it was (and perhaps a stale temp
// file); a crash after it is finished by recover, which redoes 2 and 3.
func (s *Store) commit(ev Event, writes []journalWrite) (int, error) {
	last, err := s.lastSeq()
	if err != nil {
		return 0, err
	}
	ev.Seq = last + 1
	line, err := json.Marshal(ev)
	if err != nil {
		return 0, Errorf(CodeInternal, "encode event").Wrap(err)
	}
	if err := schemas.Validate(schemas.Event, line); err != nil {
		return 0, Errorf(CodeInternal, "event would not pass its schema; nothing was written").Wrap(err)
	}
	j := journal{Seq: ev.Seq, Event: line, Writes: writes}
	j.Checksum = j.sum()
	jb, err := json.Marshal(j)
	if err != nil {
		return 0, Errorf(CodeInternal, "encode journal").Wrap(err)
	}
	crashPoint("before-journal")
	if err := writeAtomic(s.root, JournalFile, jb); err != nil {
		return 0, Errorf(CodeInternal, "write journal").Wrap(err)
	}
	if err := syncDir(s.root, "."); err != nil {
		return 0, Errorf(CodeInternal, "sync root").Wrap(err)
	}
	crashPoint("after-journal")
	// The transaction has committed. If applying it fails (a full disk, say),
	// the journal stays and the next command or reader finishes it; failing
	// here would invite a retry that applies the change twice.
	_ = s.apply(&j, last)
	return ev.Seq, nil
}

// apply performs steps 2-4 of commit; it is idempotent, so recovery calls it
// again after a crash. logged is the seq of the log's last line when the
// caller has just read it under the lock (commit); recovery passes -1 and
// apply reads it, since a crashed commit may have appended the event already.
func (s *Store) apply(j *journal, logged int) error {
	dirs := map[string]bool{}
	for i, w := range j.Writes {
		if err := writeAtomic(s.root, w.Path, []byte(w.Content)); err != nil {
			return err
		}
		dirs[path.Dir(w.Path)] = true
		if i == 0 {
			crashPoint("after-first-write")
		}
	}
	for d := range dirs {
		if err := syncDir(s.root, d); err != nil {
			return err
		}
	}
	crashPoint("after-writes")
	if logged < 0 {
		var err error
		if logged, err = s.lastSeq(); err != nil {
			return err
		}
	}
	if logged < j.Seq {
		if err := s.appendEvent(j.Event); err != nil {
			return err
		}
	}
	crashPoint("after-event")
	if err := s.root.Remove(JournalFile); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// Recovery says what recover found.
type Recovery struct {
	Found     bool   // a journal was there
	Finished  bool   // and it was replayed
	Seq       int    // the transaction it held
	Discarded string // why it was thrown away, when it was
}

// recover finishes or discards a leftover journal. The caller holds the
// lock. A journal that does not parse or fails its checksum never reached
// the commit point intact, so it is discarded: no document was touched yet.
func (s *Store) recover() (Recovery, error) {
	raw, err := s.root.ReadFile(JournalFile)
	if errors.Is(err, fs.ErrNotExist) {
		return Recovery{}, nil
	} else if err != nil {
		return Recovery{}, Errorf(CodeInternal, "read journal").Wrap(err)
	}
	var j journal
	why := ""
	if err := schemas.Validate(schemas.Journal, raw); err != nil {
		why = err.Error()
	} else if err := json.Unmarshal(raw, &j); err != nil {
		why = err.Error()
	} else if j.Checksum != j.sum() {
		why = "checksum mismatch"
	}
	if why != "" {
		if err := s.root.Remove(JournalFile); err != nil {
			return Recovery{}, Errorf(CodeInternal, "discard journal").Wrap(err)
		}
		return Recovery{Found: true, Discarded: why}, nil
	}
	for _, w := range j.Writes {
		if err := checkJournalPath(w.Path); err != nil {
			return Recovery{}, damaged(JournalFile, err)
		}
	}
	if err := s.apply(&j, -1); err != nil {
		return Recovery{}, Errorf(CodeInternal, "finish transaction %d from the journal", j.Seq).Wrap(err)
	}
	return Recovery{Found: true, Finished: true, Seq: j.Seq}, nil
}

// checkJournalPath admits only document paths with valid ids and config.json.
func checkJournalPath(p string) error {
	if p == ConfigFile {
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

// lastSeq reads the seq of the last line of events.jsonl from its tail, so
// its cost does not grow with the log. A torn last line (no newline: a crash
// during the append on a file system that let it happen) is cut off; its
// transaction's journal is still there to append it again.
func (s *Store) lastSeq() (int, error) {
	f, err := s.root.OpenFile(EventsFile, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return 0, Errorf(CodeInternal, "open %s", EventsFile).Wrap(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, Errorf(CodeInternal, "stat %s", EventsFile).Wrap(err)
	}
	size := st.Size()
	for chunk := int64(4096); ; chunk *= 4 {
		off := max(0, size-chunk)
		buf := make([]byte, size-off)
		if _, err := f.ReadAt(buf, off); err != nil && !errors.Is(err, io.EOF) {
			return 0, Errorf(CodeInternal, "read %s", EventsFile).Wrap(err)
		}
		if len(buf) > 0 && buf[len(buf)-1] != '\n' {
			cut := bytes.LastIndexByte(buf, '\n') + 1
			if cut == 0 && off > 0 {
				continue // the torn line is longer than the chunk
			}
			if err := f.Truncate(off + int64(cut)); err != nil {
				return 0, Errorf(CodeInternal, "cut torn line of %s", EventsFile).Wrap(err)
			}
			size = off + int64(cut)
			buf = buf[:cut]
		}
		if len(buf) == 0 {
			return 0, nil
		}
		body := buf[:len(buf)-1]
		start := bytes.LastIndexByte(body, '\n') + 1
		if start == 0 && off > 0 {
			continue // the last line is longer than the chunk
		}
		var head struct {
			Seq *int `json:"seq"`
		}
		if err := json.Unmarshal(body[start:], &head); err != nil || head.Seq == nil {
			return 0, damaged(EventsFile, fmt.Errorf("its last line has no seq: %.80q", body[start:]))
		}
		return *head.Seq, nil
	}
}

func (s *Store) appendEvent(line []byte) error {
	f, err := s.root.OpenFile(EventsFile, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	// One write call: an append of a whole line or nothing, short of a
	// power cut, which lastSeq repairs.
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
