package store

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/tidwall/gjson"
)

// WALFile is the store's write-ahead log: every committed transaction's
// journal, one line each, appended and fdatasynced. That one sync is the
// commit point. The documents, the event log and the index are then written
// without syncing: a killed process leaves them in the page cache, where the
// next command finds them (and finishes a transaction cut short through
// .journal, as before). Only a crash of the machine loses unsynced writes,
// and then the log's boot id differs from the running kernel's: the next
// command replays every line of the log (each line is a redo record of
// whole files and fixed-offset appends, so replaying all of them in order
// is idempotent), drops the index to be rebuilt, and checkpoints. A
// checkpoint syncs every file the log's lines wrote and then empties the
// log; it runs when the log passes walLimit bytes, so its syncs are shared
// by the hundreds of transactions before it.
const WALFile = ".wal"

// walLimit is the size past which a commit checkpoints. A skill call's line
// is a few KB, so a checkpoint comes every few hundred calls: once the log
// holds walLines transactions past walLimit, or walMax bytes. A call on a
// statement with a 100 KB proof logs 250 to 500 KB (the document, its event
// line, a kept revision), and checkpointing per megabyte synced its files
// every two to four calls.
var (
	walLimit int64 = 1 << 20
	walMax   int64 = 8 << 20
)

var walLines = 256 // a variable for the tests

func init() {
	if v, err := strconv.ParseInt(os.Getenv("PROOFLOOP_TEST_WAL_LIMIT"), 10, 64); err == nil {
		walLimit, walMax = v, v
	}
}

// walHeader is the log's first line: the boot it was written in.
type walHeader struct {
	Boot string `json:"wal_boot"`
}

var bootOnce = sync.OnceValue(func() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
})

// walSize is the log's size, where the next record goes. A log that does
// not exist yet is created with its header and the root fsynced, once per
// store.
func (s *Store) walSize() (int64, error) {
	st, err := s.root.Stat(WALFile)
	if errors.Is(err, fs.ErrNotExist) {
		if err := s.walReset(); err != nil {
			return 0, err
		}
		st, err = s.root.Stat(WALFile)
	}
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}

// walAppend appends one journal to the log and fdatasyncs it: the commit
// point. The log must end at at (-1: anywhere), where the caller's mark
// says the record starts. It returns the log's size after the append.
func (s *Store) walAppend(jb []byte, at int64) (int64, error) {
	f, err := s.root.OpenFile(WALFile, os.O_WRONLY|os.O_APPEND, 0o644)
	if errors.Is(err, fs.ErrNotExist) && at < 0 {
		if err := s.walReset(); err != nil {
			return 0, err
		}
		f, err = s.root.OpenFile(WALFile, os.O_WRONLY|os.O_APPEND, 0o644)
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	before, err := f.Stat()
	if err != nil {
		return 0, err
	}
	if at >= 0 && before.Size() != at {
		return 0, fmt.Errorf("%s has %d bytes, not the %d its mark names", WALFile, before.Size(), at)
	}
	// A line that failed to be written or synced is cut off again, so that
	// a replay after a machine crash never applies a transaction that
	// reported failure.
	if _, err := f.Write(append(jb, '\n')); err != nil {
		_ = f.Truncate(before.Size())
		return 0, err
	}
	crashPoint("wal-written")
	if err := fdatasync(f); err != nil {
		_ = f.Truncate(before.Size())
		return 0, err
	}
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}

// walLog makes the journal jb, which recovery is about to finish, the log's
// last line, durably, and returns the log's size. Its line is there when
// the commit that wrote jb got past its append; then only the sync is
// redone (the kill may have come before it). It is not there when the kill
// came between the mark and the append, or when the replay after a machine
// crash emptied the log: then it is appended, after cutting off a line
// torn by the kill, which would otherwise end the log before it.
func (s *Store) walLog(jb []byte) (int64, error) {
	raw, err := s.root.ReadFile(WALFile)
	if errors.Is(err, fs.ErrNotExist) {
		return s.walAppend(jb, -1)
	} else if err != nil {
		return 0, damaged(WALFile, err)
	}
	line := append(append([]byte{'\n'}, jb...), '\n')
	if bytes.HasSuffix(raw, line) {
		f, err := s.root.OpenFile(WALFile, os.O_WRONLY, 0)
		if err != nil {
			return 0, err
		}
		defer f.Close()
		return int64(len(raw)), fdatasync(f)
	}
	if cut := bytes.LastIndexByte(raw, '\n') + 1; cut == 0 {
		if err := s.walReset(); err != nil { // even the header is torn
			return 0, err
		}
	} else if cut < len(raw) {
		f, err := s.root.OpenFile(WALFile, os.O_WRONLY, 0)
		if err != nil {
			return 0, err
		}
		err = f.Truncate(int64(cut))
		f.Close()
		if err != nil {
			return 0, err
		}
	}
	return s.walAppend(jb, -1)
}

// walReset makes the log hold only its header with this boot's id, durably.
func (s *Store) walReset() error {
	hb, err := Marshal(walHeader{Boot: bootOnce()})
	if err != nil {
		return err
	}
	if err := writeAtomic(s.root, WALFile, append(hb, '\n')); err != nil {
		return err
	}
	return syncDir(s.root, ".")
}

// walRecords reads the log: its header and every whole line whose checksum
// holds. A torn or damaged line ends the log: its transaction never
// returned, and no later line can have been synced after it.
func (s *Store) walRecords() (walHeader, []journal, error) {
	var h walHeader
	raw, err := s.root.ReadFile(WALFile)
	if errors.Is(err, fs.ErrNotExist) {
		return h, nil, nil
	} else if err != nil {
		return h, nil, damaged(WALFile, err)
	}
	r := bufio.NewReader(bytes.NewReader(raw))
	first, err := r.ReadBytes('\n')
	if err != nil || json.Unmarshal(first, &h) != nil {
		return walHeader{Boot: "?"}, nil, nil // unreadable: treat as another boot's
	}
	var js []journal
	for {
		line, err := r.ReadBytes('\n')
		if err == io.EOF {
			break
		}
		var j journal
		if json.Unmarshal(line, &j) != nil || j.Checksum != j.sum() {
			break
		}
		if checkJournalPaths(&j) != nil {
			break
		}
		js = append(js, j)
	}
	return h, js, nil
}

func checkJournalPaths(j *journal) error {
	for _, w := range j.Writes {
		if err := checkJournalPath(w.Path); err != nil {
			return err
		}
	}
	return nil
}

// walRecover runs under the lock before a transaction or a recovery. When
// the log was written in another boot, the machine went down, perhaps with
// unsynced writes of the logged transactions: they are replayed in order,
// the index (written without syncs) is dropped to be rebuilt from the
// documents, and a checkpoint makes it all durable. In the same boot the
// page cache holds every write the log's transactions made, and nothing is
// done. The answer is kept for the life of the process.
func (s *Store) walRecover() error {
	if s.walOK.Load() || bootOnce() == "" {
		return nil
	}
	if same, err := s.walSameBoot(); err != nil || same {
		s.walOK.Store(err == nil)
		return err
	}
	h, js, err := s.walRecords()
	if err != nil {
		return err
	}
	if h.Boot != "" && h.Boot != bootOnce() {
		if len(js) > 0 {
			if err := s.root.Remove(IndexFile); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return damaged(IndexFile, err)
			}
			// A kill anywhere in here leaves the header of the other boot,
			// so the next command replays the whole log again: each line's
			// writes are whole files and fixed-offset appends.
			for i := range js {
				if err := s.applyFiles(&js[i]); err != nil {
					return Errorf(CodeInternal, "replay transaction %d from %s", js[i].Seq, WALFile).Wrap(err)
				}
				if i == 0 {
					crashPoint("replay-first")
				}
			}
			crashPoint("replay-done")
		}
		if err := s.checkpoint(js); err != nil {
			return err
		}
	}
	s.walOK.Store(true)
	return nil
}

// applyFiles redoes a journal's file writes without the index's (replay
// after a machine crash, where the index is rebuilt).
func (s *Store) applyFiles(j *journal) error {
	for _, w := range j.Writes {
		if w.Path == IndexFile {
			continue
		}
		if err := s.applyWrite(w, w.content(j), map[string]bool{}); err != nil {
			return err
		}
	}
	return nil
}

// checkpoint syncs every file and folder the logged transactions wrote, and
// the index, then empties the log. A crash before the log is emptied keeps
// the lines, which are then checkpointed again.
func (s *Store) checkpoint(js []journal) error {
	crashPoint("checkpoint")
	files, dirs := map[string]bool{}, map[string]bool{".": true}
	for _, j := range js {
		for _, w := range j.Writes {
			files[w.Path] = !w.Remove
			dirs[path.Dir(w.Path)] = true
		}
	}
	for p, present := range files {
		if !present {
			continue
		}
		if err := syncFile(s.root, p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return Errorf(CodeInternal, "checkpoint: sync %s", p).Wrap(err)
		}
	}
	for d := range dirs {
		if err := syncDir(s.root, d); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return Errorf(CodeInternal, "checkpoint: sync %s", d).Wrap(err)
		}
	}
	crashPoint("checkpoint-synced")
	if err := s.walReset(); err != nil {
		return Errorf(CodeInternal, "checkpoint: reset %s", WALFile).Wrap(err)
	}
	return nil
}

// walCheckpoint checkpoints when the log, whose last line is transaction
// seq's, has passed walLimit and holds walLines transactions, or has passed
// walMax (or walLimit, when a test sets it: PROOFLOOP_TEST_WAL_LIMIT).
func (s *Store) walCheckpoint(size int64, seq int) error {
	full := size >= walMax || size >= walLimit && s.walLinesTo(seq) >= walLines
	if !full && bootOnce() != "" {
		return nil
	}
	raw, err := s.root.ReadFile(WALFile)
	if err != nil {
		return err
	}
	// Only the paths matter here, and these lines were verified as they
	// were written: each is read for its writes' paths alone (gjson skips
	// the contents without decoding them), where walRecords would hash
	// every document again. A log of big documents checkpoints every few
	// calls, and decoding its megabyte was a tenth of each call's time.
	var js []journal
	for _, line := range bytes.Split(raw, []byte("\n"))[1:] {
		if !gjson.ValidBytes(line) {
			continue
		}
		var w []journalWrite
		gjson.GetBytes(line, "writes").ForEach(func(_, x gjson.Result) bool {
			w = append(w, journalWrite{Path: x.Get("path").String(), Remove: x.Get("remove").Bool()})
			return true
		})
		js = append(js, journal{Writes: w})
	}
	return s.checkpoint(js)
}

// walLinesTo is how many transactions the log holds, up to seq, its last:
// from the seq of its first line, read from the log's first bytes. A first
// line that cannot be read counts as walLines, which checkpoints.
func (s *Store) walLinesTo(seq int) int {
	if first := s.walFirstSeq(); first >= 0 {
		return seq - first + 1
	}
	return walLines
}

// walFirstSeq is the transaction of the log's first line; -1 when it
// cannot be read.
func (s *Store) walFirstSeq() int {
	f, err := s.root.Open(WALFile)
	if err != nil {
		return -1
	}
	defer f.Close()
	buf := make([]byte, 512)
	n, _ := io.ReadFull(f, buf)
	_, rest, _ := bytes.Cut(buf[:n], []byte("\n"))
	rest, ok := bytes.CutPrefix(rest, []byte(`{"seq":`))
	end := bytes.IndexByte(rest, ',')
	if !ok || end < 0 {
		return -1
	}
	seq, err := strconv.Atoi(string(rest[:end]))
	if err != nil {
		return -1
	}
	return seq
}

// walSameBoot reads only the log's header: whether it was written in this
// boot (or there is no log). The common case costs one small read.
func (s *Store) walSameBoot() (bool, error) {
	f, err := s.root.Open(WALFile)
	if errors.Is(err, fs.ErrNotExist) {
		return true, nil
	} else if err != nil {
		return false, damaged(WALFile, err)
	}
	defer f.Close()
	buf := make([]byte, 256)
	n, _ := io.ReadFull(f, buf)
	line, _, ok := bytes.Cut(buf[:n], []byte("\n"))
	var h walHeader
	if !ok || json.Unmarshal(line, &h) != nil {
		return false, nil
	}
	return h.Boot == "" || h.Boot == bootOnce(), nil
}

func syncFile(root *os.Root, name string) error {
	f, err := root.OpenFile(name, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// writeReplace replaces name with content through a temp file beside it
// and a rename, without syncing: the write-ahead log holds the content
// until a checkpoint syncs it. The temp name is renameio's pattern, which
// doctor sweeps when a kill leaves one behind.
func writeReplace(root *os.Root, name string, content []byte) error {
	dir, base := path.Split(name)
	if dir != "" {
		if err := root.MkdirAll(path.Clean(dir), 0o755); err != nil {
			return err
		}
	}
	var f *os.File
	var tmp string
	var err error
	for range 100 {
		tmp = dir + "." + base + strconv.FormatUint(uint64(rand.Uint32()), 10)
		f, err = root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return err
	}
	if _, err := f.Write(content); err != nil {
		f.Close()
		root.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		root.Remove(tmp)
		return err
	}
	if err := root.Rename(tmp, name); err != nil {
		root.Remove(tmp)
		return fmt.Errorf("rename %s: %w", tmp, err)
	}
	return nil
}

func fdatasync(f *os.File) error {
	for {
		err := syscall.Fdatasync(int(f.Fd()))
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}
