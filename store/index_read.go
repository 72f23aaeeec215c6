package store

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	jsonv2 "github.com/go-json-experiment/json"

	"github.com/tidwall/gjson"
	bolt "go.etcd.io/bbolt"

	"github.com/proofloop/proofloop/model"
)

// IndexView reads the index inside View. Rows are as derived at the last
// commit; a row's lease is live or not at the time of reading.
type IndexView struct {
	kv KV
}

// Row returns the row of id, or nil when the index has none.
func (v *IndexView) Row(id string) (*Row, error) {
	ix := &indexState{kv: v.kv, rows: map[string]*Row{}}
	return ix.row(id)
}

// Rows calls fn with every row, in id order.
func (v *IndexView) Rows(fn func(*Row) error) error {
	return v.kv.Scan(string(bucketItems), nil, func(k, val []byte) error {
		var r Row
		// json/v2 decodes the rows of a 100k store about twice as fast as
		// encoding/json, which is most of what status costs there.
		if err := jsonv2.Unmarshal(val, &r); err != nil {
			return damaged(IndexFile, fmt.Errorf("row %s: %w", k, err))
		}
		return fn(&r)
	})
}

// Actionable calls fn with the rows some role must act on, for the given
// roles (every role when empty), deepest first and then by id within a
// role. It reads O(actionable) keys. fn returns false to stop.
func (v *IndexView) Actionable(roles []model.Role, fn func(*Row) (bool, error)) error {
	var keys [][]byte
	collect := func(k, _ []byte) error {
		keys = append(keys, slices.Clone(k))
		return nil
	}
	if len(roles) == 0 {
		if err := v.kv.Scan(string(bucketTurn), nil, collect); err != nil {
			return err
		}
	}
	for _, role := range roles {
		if err := v.kv.Scan(string(bucketTurn), []byte(string(role)+"\x00"), collect); err != nil {
			return err
		}
	}
	// Across roles: deepest first, then by id (the key after the role).
	slices.SortStableFunc(keys, func(a, b []byte) int {
		return bytes.Compare(a[bytes.IndexByte(a, 0)+1:], b[bytes.IndexByte(b, 0)+1:])
	})
	for _, k := range keys {
		id := string(k[bytes.LastIndexByte(k, 0)+1:])
		r, err := v.Row(id)
		if err != nil {
			return err
		}
		if r == nil {
			return damaged(IndexFile, fmt.Errorf("turn key for %s without a row", id))
		}
		if string(r.Role) != string(k[:bytes.IndexByte(k, 0)]) {
			// On a backend, read without locks, the row moved on since
			// its key was read (on the file store, doctor reports it).
			continue
		}
		if more, err := fn(r); err != nil || !more {
			return err
		}
	}
	return nil
}

// EventLoc is where one event line stands in events.jsonl.
type EventLoc struct {
	Seq    int
	Offset int64
	Len    int
}

// Events lists where the events of one document stand in the log, in order.
func (v *IndexView) Events(id string) ([]EventLoc, error) {
	var out []EventLoc
	prefix := []byte(id + "\x00")
	err := v.kv.Scan(string(bucketEvents), prefix, func(k, val []byte) error {
		seq, err1 := strconv.Atoi(string(k[len(prefix):]))
		o, n, _ := strings.Cut(string(val), ",")
		off, err2 := strconv.ParseInt(o, 10, 64)
		ln, err3 := strconv.Atoi(n)
		if err1 != nil || err2 != nil || err3 != nil {
			return damaged(IndexFile, fmt.Errorf("event key %q: %q", k, val))
		}
		out = append(out, EventLoc{seq, off, ln})
		return nil
	})
	return out, err
}

// View runs fn on a consistent view of the index. It holds the store's lock
// shared while it reads, so no commit changes the index meanwhile. An index
// that is missing, of another version, or behind the log is rebuilt first
// from the documents, with a line on stderr.
func (s *Store) View(fn func(v *IndexView) error) error {
	if err := s.finishJournal(); err != nil {
		return err
	}
	if s.backend != nil {
		return s.viewBackend(fn)
	}
	for attempt := 0; ; attempt++ {
		stale, err := s.view(fn)
		if err == nil && stale == "" {
			return nil
		}
		if err != nil || attempt > 0 {
			if err == nil {
				err = damaged(IndexFile, fmt.Errorf("it is still %s after a rebuild", stale))
			}
			return err
		}
		fmt.Fprintf(os.Stderr, "proofloop: the index is %s; rebuilding it from the documents\n", stale)
		if _, err := s.Reindex(); err != nil {
			return err
		}
	}
}

func (s *Store) view(fn func(v *IndexView) error) (stale string, err error) {
	unlock, err := rlock(s.root, s.Dir, s.LockTimeout)
	if err != nil {
		return "", err
	}
	defer unlock()
	db, err := s.openIndex(false)
	if isNotExist(err) {
		return "missing", nil
	} else if err != nil {
		return "unreadable (" + err.Error() + ")", nil
	}
	defer db.Close()
	btx, err := db.Begin(false)
	if err != nil {
		return "unreadable (" + err.Error() + ")", nil
	}
	defer btx.Rollback()
	kv := boltKV{btx}
	if why, err := s.stale(kv); err != nil || why != "" {
		return why, err
	}
	return "", fn(&IndexView{kv})
}

// viewBackend is View on a backend: a snapshot of its index, rebuilt first
// when it is missing, of another version or for another max_rounds.
func (s *Store) viewBackend(fn func(v *IndexView) error) error {
	for attempt := 0; ; attempt++ {
		var why string
		err := s.backend.View(func(kv Snapshot) error {
			var err error
			if why, err = s.stale(kv); err != nil || why != "" {
				return err
			}
			return fn(&IndexView{kv})
		})
		if err != nil || why == "" {
			return err
		}
		if attempt > 0 {
			return damaged(IndexFile, fmt.Errorf("it is still %s after a rebuild", why))
		}
		fmt.Fprintf(os.Stderr, "proofloop: the index is %s; rebuilding it from the documents\n", why)
		if _, err := s.Reindex(); err != nil {
			return err
		}
	}
}

// stale says why the index does not reflect the store now ("" when it does):
// another layout version, another max_rounds, or another last event.
func (s *Store) stale(kv KV) (string, error) {
	cfg, err := s.Config()
	if err != nil {
		return "", err
	}
	seq, policy, version := indexMeta(kv)
	var t logTail
	if s.backend != nil {
		// A backend writes its index in each transaction: it cannot fall
		// behind the log, and carries no seq stamp.
		t.Seq = seq
	} else if t, err = s.tail(); err != nil {
		return "", err
	}
	switch {
	case version == "":
		return "missing", nil
	case version != indexVersion:
		return "of another version", nil
	case policy != cfg.Policy().Key():
		return "derived under other settings of max_rounds, escalation or review_statements", nil
	case seq != t.Seq:
		return fmt.Sprintf("at event %d, not %d", seq, t.Seq), nil
	}
	return "", nil
}

// rlock takes the store's lock shared: readers of the index exclude a
// commit, not each other.
func rlock(root *os.Root, dir string, timeout time.Duration) (func(), error) {
	f, err := root.Open(".")
	if err != nil {
		return nil, damaged(".", err)
	}
	fd := int(f.Fd())
	if err := syscall.Flock(fd, syscall.LOCK_SH|syscall.LOCK_NB); err == nil {
		return func() { syscall.Flock(fd, syscall.LOCK_UN); f.Close() }, nil
	}
	done := make(chan error, 1)
	go func() {
		for {
			err := syscall.Flock(fd, syscall.LOCK_SH)
			if !errors.Is(err, syscall.EINTR) {
				done <- err
				return
			}
		}
	}()
	select {
	case err := <-done:
		if err != nil {
			f.Close()
			return nil, Errorf(CodeInternal, "flock").Wrap(err)
		}
		return func() { syscall.Flock(fd, syscall.LOCK_UN); f.Close() }, nil
	case <-time.After(timeout):
		go func() {
			if <-done == nil {
				syscall.Flock(fd, syscall.LOCK_UN)
			}
			f.Close()
		}()
		return nil, Errorf(CodeLockTimeout, "the store is busy: could not take its lock within %s", timeout).
			WithHint("retry later")
	}
}

// Reindex rebuilds the index from the documents and the log, under the
// lock, in one bbolt transaction. It is O(store): `doctor --reindex`, and
// the first use of a store without an index, call it.
func (s *Store) Reindex() (int, error) {
	if s.backend != nil {
		return s.reindexBackend()
	}
	unlock, err := lock(s.root, s.Dir, s.LockTimeout)
	if err != nil {
		return 0, err
	}
	defer unlock()
	if _, err := s.recover(); err != nil {
		return 0, err
	}
	return s.reindex()
}

func (s *Store) reindex() (int, error) {
	cfg, err := s.Config()
	if err != nil {
		return 0, err
	}
	sums := map[string]string{}
	rows, err := deriveAll(s.src(), cfg.Policy(), sums)
	if err != nil {
		return 0, err
	}
	t, err := s.tail()
	if err != nil {
		return 0, err
	}
	events, err := s.eventOffsets()
	if err != nil {
		return 0, err
	}
	s.root.Remove(IndexFile)
	db, err := s.openIndex(true)
	if err != nil {
		return 0, damaged(IndexFile, err)
	}
	defer db.Close()
	err = db.Update(func(btx *bolt.Tx) error {
		items, _ := btx.CreateBucket(bucketItems)
		turn, _ := btx.CreateBucket(bucketTurn)
		evb, _ := btx.CreateBucket(bucketEvents)
		meta, _ := btx.CreateBucket(bucketMeta)
		items.FillPercent, turn.FillPercent, evb.FillPercent = 1, 1, 1 // keys arrive in order
		ids := make([]string, 0, len(rows))
		for id := range rows {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		var turns [][]byte
		for _, id := range ids {
			v, err := json.Marshal(rows[id])
			if err != nil {
				return err
			}
			if err := items.Put([]byte(id), v); err != nil {
				return err
			}
			if rows[id].Role != "" {
				turns = append(turns, turnKey(rows[id]))
			}
		}
		slices.SortFunc(turns, bytes.Compare)
		for _, k := range turns {
			if err := turn.Put(k, nil); err != nil {
				return err
			}
		}
		for _, e := range events {
			if err := evb.Put(e.k, e.v); err != nil {
				return err
			}
		}
		if err := putSums(btx, sums); err != nil {
			return err
		}
		meta.Put([]byte("seq"), []byte(strconv.Itoa(t.Seq)))
		meta.Put([]byte("policy"), []byte(cfg.Policy().Key()))
		return meta.Put([]byte("version"), []byte(indexVersion))
	})
	if err != nil {
		return 0, damaged(IndexFile, err)
	}
	return len(rows), db.Sync()
}

// deriveAll reads every document, in parallel, and derives every row. Depth
// and root come first (they follow parent links), then the turns (they read
// the children's statuses). A missing parent or child, which doctor reports,
// does not stop it. When sums is not nil, it also gets each document's
// docSum: every document is read with its whole check (readDoc), so the
// rebuilt index may vouch for these bytes (see bucketSums).
func deriveAll(src source, pol model.Policy, sums map[string]string) (map[string]*Row, error) {
	ids, err := allDocIDs(src)
	if err != nil {
		return nil, err
	}
	docs := make([]*Doc, len(ids))
	var sumOf []string
	if sums != nil {
		sumOf = make([]string, len(ids))
	}
	err = eachDoc(src, ids, func(id string) (*Doc, error) { return readDoc(src, id) }, func(i int, d *Doc) error {
		docs[i] = d
		if sumOf != nil {
			sumOf[i] = docSum(d.Kind, d.Raw)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for i, sum := range sumOf {
		sums[ids[i]] = sum
	}
	ix := &indexState{rows: map[string]*Row{}, lenient: true}
	for _, d := range docs {
		ix.rows[d.ID] = linkRow(d)
	}
	placeRows(ix.rows)
	out := map[string]*Row{}
	for _, d := range docs {
		r, err := deriveRow(d, ix, pol)
		if err != nil {
			return nil, err
		}
		l, err := readLease(src, d.ID)
		if err != nil {
			return nil, err
		}
		r.Lease = rowLease(l)
		out[d.ID] = r
	}
	return out, nil
}

type kv struct{ k, v []byte }

// eventOffsets scans the log for the event-offset keys of every document.
func (s *Store) eventOffsets() ([]kv, error) {
	f, err := s.root.Open(EventsFile)
	if err != nil {
		return nil, damaged(EventsFile, err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<20)
	var out []kv
	var off int64
	for {
		line, err := br.ReadBytes('\n')
		if len(line) == 0 && errors.Is(err, io.EOF) {
			break
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, damaged(EventsFile, err)
		}
		if line[len(line)-1] != '\n' {
			break // a torn tail: not an event
		}
		seq := int(gjson.GetBytes(line, "seq").Int())
		loc := []byte(eventLoc(off, len(line)))
		for _, id := range EventIDs(line) {
			out = append(out, kv{eventKey(id, seq), loc})
		}
		off += int64(len(line))
	}
	slices.SortFunc(out, func(a, b kv) int { return bytes.Compare(a.k, b.k) })
	return out, nil
}

// linkRow is the first pass's row of d: a placeholder that knows its
// parent (a problem's parent, a statement's context).
func linkRow(d *Doc) *Row {
	r := placeholder(d)
	r.Parent = d.Get("parent").String()
	if d.Kind == model.KindStatement {
		r.Parent = d.Get("context").String()
	}
	return r
}

// placeRows sets each row's depth and root from the parent links: a row
// whose parent is missing (or a chain past 10,000 links, which only a
// damaged store has) is a root.
func placeRows(rows map[string]*Row) {
	var place func(r *Row, hops int)
	place = func(r *Row, hops int) {
		if r.Root != "" {
			return
		}
		par, ok := rows[r.Parent]
		if r.Parent == "" || !ok || hops > 10000 {
			r.Depth, r.Root = 0, r.ID
			return
		}
		place(par, hops+1)
		r.Depth, r.Root = par.Depth+1, par.Root
	}
	for _, r := range rows {
		place(r, 0)
	}
}

// allDocIDs lists the ids of every document, kind by kind.
func allDocIDs(src source) ([]string, error) {
	var ids []string
	for _, k := range docDirs {
		ks, err := src.ListDocs(k)
		if err != nil {
			return nil, err
		}
		ids = append(ids, ks...)
	}
	return ids, nil
}

// eachDoc reads ids[i] with read and hands it to fn(i, doc), on as many
// workers as src allows: one per CPU on the files, one on a backend (its
// transaction is one connection). It returns every error, joined.
func eachDoc(src source, ids []string, read func(string) (*Doc, error), fn func(i int, d *Doc) error) error {
	workers := runtime.NumCPU()
	if _, ok := src.(fileSource); !ok {
		workers = 1
	}
	errs := make([]error, len(ids))
	var wg sync.WaitGroup
	next := make(chan int)
	for range workers {
		wg.Go(func() {
			for i := range next {
				d, err := read(ids[i])
				if err == nil {
					err = fn(i, d)
				}
				errs[i] = err
			}
		})
	}
	for i := range ids {
		next <- i
	}
	close(next)
	wg.Wait()
	return errors.Join(errs...)
}
