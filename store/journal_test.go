package store

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/schemas"
)

// File store only: the redo journal is how the file store makes a
// multi-file commit atomic; a backend commits in its own transaction and
// has none.

// journalFor builds the redo journal of a transaction that appends h to
// prob_x's hypothesis, as commit would write it, without writing anything.
func journalFor(t *testing.T, s *Store, seq int, h string) *journal {
	t.Helper()
	d, err := s.read("prob_x")
	if err != nil {
		t.Fatal(err)
	}
	d.Set("hypothesis.-1", h)
	d.Set("revision", d.revision+1)
	before := model.ProblemPending
	patch, err := Patch(d.orig, d.Raw)
	if err != nil {
		t.Fatal(err)
	}
	ev := Event{Seq: seq, Time: Timestamp(t0), Command: "test-journal", IDs: []string{"prob_x"},
		Changes: []Change{{ID: "prob_x", Kind: model.KindProblem, Before: &before, After: model.ProblemPending, Revision: d.revision + 1, Patch: patch}}}
	tl, err := s.tail()
	if err != nil {
		t.Fatal(err)
	}
	line, _, err := Seal(ev, tl.Hash)
	if err != nil {
		t.Fatal(err)
	}
	at := tl.Size
	j := &journal{Seq: seq, Event: line, Writes: []journalWrite{{Path: "problem/prob_x.json", Content: string(d.Raw)},
		{Path: EventsFile, Content: string(line) + "\n", At: &at}}}
	j.Checksum = j.sum()
	return j
}

// TestLegacyJournalIsFinished: a journal written before the event line
// became one of its writes (by an older proofloop that crashed) is still
// replayed, event included, exactly once.
func TestLegacyJournalIsFinished(t *testing.T) {
	s, dir := testStore(t)
	mustCreate(t, s, "prob_x")
	j := journalFor(t, s, 2, "h")
	j.Writes = j.Writes[:1]
	j.Checksum = j.sum()
	for range 2 {
		writeJournal(t, dir, j)
		if rec, err := s.recover(); err != nil || !rec.Finished {
			t.Fatalf("recover = %+v, %v; want it finished", rec, err)
		}
	}
	if evs := eventLines(t, dir); len(evs) != 2 || evs[1].Seq != 2 {
		t.Errorf("events %+v; want the journal's event once, as seq 2", evs)
	}
}

func writeJournal(t *testing.T, dir string, j any) {
	t.Helper()
	b, err := json.Marshal(j)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, JournalFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestJournalRecoveryIsIdempotent(t *testing.T) {
	s, dir := testStore(t)
	mustCreate(t, s, "prob_x")
	j := journalFor(t, s, 2, "h")
	writeJournal(t, dir, j)
	if r := doctorClean(t, s); r.Journal != "finished transaction 2" {
		t.Errorf("Doctor journal: %q; want finished transaction 2", r.Journal)
	}
	after := snapshot(t, dir)
	// The same journal again, as if the crash came after the event but
	// before the journal's removal: replaying it must change nothing.
	for range 2 {
		writeJournal(t, dir, j)
		rec, err := s.recover()
		if err != nil || !rec.Finished {
			t.Fatalf("recover = %+v, %v; want it finished", rec, err)
		}
		sameFiles(t, dir, after)
	}
	evs := eventLines(t, dir)
	if len(evs) != 2 || evs[1].Seq != 2 || evs[1].Command != "test-journal" {
		t.Errorf("events %+v; want the journal's event once, as seq 2", evs)
	}
	d, err := s.Read("prob_x")
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Get("hypothesis").Raw; got != `["h"]` || d.Revision() != 2 {
		t.Errorf("prob_x hypothesis %s at revision %d; want [\"h\"] at 2", got, d.Revision())
	}
	doctorClean(t, s)
}

func TestReadFinishesLeftoverJournal(t *testing.T) {
	s, dir := testStore(t)
	mustCreate(t, s, "prob_x")
	writeJournal(t, dir, journalFor(t, s, 2, "h"))
	d, err := s.Read("prob_x")
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Get("hypothesis").Raw; got != `["h"]` {
		t.Errorf("Read with a leftover journal sees hypothesis %s; want the committed [\"h\"]", got)
	}
	if _, err := os.Stat(filepath.Join(dir, JournalFile)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the journal is still there after Read (%v)", err)
	}
	if n := len(eventLines(t, dir)); n != 2 {
		t.Errorf("%d events; want 2", n)
	}
}

func TestTornJournalIsDiscarded(t *testing.T) {
	for name, mangle := range map[string]func(j *journal) any{
		"checksum": func(j *journal) any { j.Writes[0].Content += " "; return j },
		"truncated": func(j *journal) any {
			b, _ := json.Marshal(j)
			return json.RawMessage(b[:len(b)/2])
		},
		"path outside documents": func(j *journal) any {
			j.Writes[0].Path = "problem/../../evil.json"
			j.Checksum = j.sum()
			return j
		},
	} {
		t.Run(name, func(t *testing.T) {
			s, dir := testStore(t)
			mustCreate(t, s, "prob_x")
			before := snapshot(t, dir)
			j := mangle(journalFor(t, s, 2, "h"))
			if raw, ok := j.(json.RawMessage); ok {
				os.WriteFile(filepath.Join(dir, JournalFile), raw, 0o644)
			} else {
				writeJournal(t, dir, j)
			}
			r := doctorClean(t, s)
			if !strings.HasPrefix(r.Journal, "discarded") {
				t.Errorf("Doctor journal: %q; want it discarded", r.Journal)
			}
			sameFiles(t, dir, before)
		})
	}
}

func TestJournalWithMisplacedPathIsRefused(t *testing.T) {
	s, dir := testStore(t)
	mustCreate(t, s, "prob_x")
	j := journalFor(t, s, 2, "h")
	j.Writes[0].Path = "statement/prob_x.json" // passes the schema's pattern, wrong folder
	j.Checksum = j.sum()
	writeJournal(t, dir, j)
	before := snapshot(t, dir)
	_, err := s.Update(TxOptions{Command: "test"}, func(tx *Tx) error { return nil })
	wantCode(t, "Update with a journal naming a misplaced path", err, CodeStoreDamaged)
	sameFiles(t, dir, before)
}

// eventLine is a valid events.jsonl line with the given seq, padded with a
// detail of pad bytes.
func eventLine(seq, pad int) string {
	ev := Event{Seq: seq, Time: Timestamp(t0), Command: "test", IDs: []string{}, Changes: []Change{}}
	if pad > 0 {
		ev.Detail = map[string]any{"pad": strings.Repeat("x", pad)}
	}
	b, _ := json.Marshal(ev)
	return string(b) + "\n"
}

// TestTornTail: the tail of the log is read from its end; a torn last line
// that no journal covers is never cut silently (issue 10, defect 3). The
// next commit moves it to the quarantine file, numbers its own event after
// the torn line's seq (a seq is never reused), and doctor reports it.
func TestTornTail(t *testing.T) {
	long := 10000 // longer than tail's first 4096-byte read
	for _, c := range []struct {
		name    string
		content string
		want    int // the seq of the last whole line
		torn    string
		next    int // the seq of the next event
	}{
		{"empty", "", 0, "", 1},
		{"one", eventLine(1, 0), 1, "", 2},
		{"two", eventLine(1, 0) + eventLine(2, 0), 2, "", 3},
		{"long last line", eventLine(1, 0) + eventLine(2, long), 2, "", 3},
		{"many lines", func() string {
			var b strings.Builder
			for i := 1; i <= 300; i++ {
				b.WriteString(eventLine(i, 0))
			}
			return b.String()
		}(), 300, "", 301},
		{"torn", eventLine(1, 0) + eventLine(2, 0), 2, `{"seq":3,"time":"20`, 4},
		{"torn long", eventLine(1, 0) + eventLine(2, long), 2, strings.TrimSuffix(eventLine(3, long), "}\n"), 4},
		{"torn only line", "", 0, `{"seq":1,`, 2},
		{"torn without seq", eventLine(1, 0), 1, `{"ti`, 2},
		{"torn line looking whole", eventLine(1, 0), 1, strings.TrimSuffix(eventLine(2, 0), "\n"), 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, dir := testStore(t)
			if err := os.WriteFile(filepath.Join(dir, EventsFile), []byte(c.content+c.torn), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := s.tail()
			if err != nil || got.Seq != c.want || string(got.Torn) != c.torn || got.Size != int64(len(c.content)) {
				t.Errorf("tail = seq %d, torn %q, size %d, %v; want seq %d, torn %q, size %d", got.Seq, got.Torn, got.Size, err, c.want, c.torn, len(c.content))
			}
			if after := string(readFile(t, dir, EventsFile)); after != c.content+c.torn {
				t.Errorf("tail changed events.jsonl")
			}
			// The next transaction quarantines the torn line and numbers after it.
			mustCreate(t, s, "prob_next")
			evs := eventLines(t, dir)
			if last := evs[len(evs)-1]; last.Seq != c.next {
				t.Errorf("next event: seq %d; want %d", last.Seq, c.next)
			}
			if c.torn == "" {
				if _, err := os.Stat(filepath.Join(dir, QuarantineFile)); err == nil {
					t.Errorf("a log without a torn line left a quarantine file")
				}
				doctorClean(t, s)
				return
			}
			var q Quarantined
			if err := json.Unmarshal(readFile(t, dir, QuarantineFile), &q); err != nil || q.Bytes != c.torn || q.AfterSeq != c.want || q.Offset != int64(len(c.content)) {
				t.Errorf("quarantine = %+v, %v; want the torn bytes %q after seq %d at %d", q, err, c.torn, c.want, len(c.content))
			}
			r, err := RunDoctor(s)
			if err != nil {
				t.Fatal(err)
			}
			codes := map[string]bool{}
			for _, f := range r.Findings {
				codes[f.Code] = true
			}
			if !codes["event_quarantined"] {
				t.Errorf("doctor findings %v; want event_quarantined", r.Findings)
			}
			if gap := c.next > c.want+1; gap != codes["event_gap"] {
				t.Errorf("doctor findings %v; want event_gap %v", r.Findings, gap)
			}
		})
	}
}

func TestLastSeqRefusesLineWithoutSeq(t *testing.T) {
	s, dir := testStore(t)
	mustCreate(t, s, "prob_x")
	f, err := os.OpenFile(filepath.Join(dir, EventsFile), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"time":"2026-11-22T10:04:05Z"}` + "\n")
	f.Close()
	before := snapshot(t, dir)
	_, err = s.Update(TxOptions{Command: "test"}, func(tx *Tx) error {
		d, err := tx.Get("prob_x")
		if err != nil {
			return err
		}
		return d.Set("hypothesis.-1", "h")
	})
	wantCode(t, "commit after a last event without seq", err, CodeStoreDamaged)
	sameFiles(t, dir, before)
}

// TestJournalFollowsSchema: the journal's record and mark, and its writes,
// name the fields journal.schema.json allows, no more and no fewer. It is
// schemas.TestSchemaFieldsFollowGo for the one schema whose Go types are
// unexported (the journal is the store's own), so it lives here.
func TestJournalFollowsSchema(t *testing.T) {
	doc := gjson.ParseBytes(schemas.Source(schemas.Journal))
	for _, c := range []struct {
		path string
		typ  []reflect.Type
	}{
		{"", []reflect.Type{reflect.TypeFor[journal](), reflect.TypeFor[journalMark]()}},
		{"properties.writes.items", []reflect.Type{reflect.TypeFor[journalWrite]()}},
	} {
		obj := doc
		if c.path != "" {
			obj = doc.Get(c.path)
		}
		var props, fields []string
		obj.Get("properties").ForEach(func(k, _ gjson.Result) bool {
			props = append(props, k.String())
			return true
		})
		for _, typ := range c.typ {
			for i := range typ.NumField() {
				if name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ","); name != "" && name != "-" {
					fields = append(fields, name)
				}
			}
		}
		slices.Sort(props)
		slices.Sort(fields)
		fields = slices.Compact(fields)
		if !slices.Equal(props, fields) {
			t.Errorf("journal.schema.json %s allows %v; the Go type %s writes %v", c.path, props, c.typ, fields)
		}
	}
}
