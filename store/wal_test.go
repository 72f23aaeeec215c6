package store_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/proofloop/proofloop/store"
)

// needBootID skips a test of the replay after a machine crash where no boot
// id can be read: there every commit checkpoints and nothing is replayed.
func needBootID(t *testing.T) {
	t.Helper()
	if _, err := os.Stat("/proc/sys/kernel/random/boot_id"); err != nil {
		t.Skip("no boot id here: every commit checkpoints")
	}
}

// machineCrash simulates a crash of the machine that loses every write the
// write-ahead log covers and no checkpoint synced: the log's header names
// another boot, each file a logged line replaced is emptied, each file a
// logged line appended to is cut at its first logged append, and the index
// (written without syncs) is gone. What the log does not cover is kept, as
// if the kernel had written it back in time. It returns the logged lines.
func machineCrash(t *testing.T, dir string) int {
	t.Helper()
	walPath := filepath.Join(dir, store.WALFile)
	raw, err := os.ReadFile(walPath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(raw), "\n")
	lines = lines[:len(lines)-1] // the empty string after the last newline
	cut, emptied := map[string]int64{}, map[string]bool{}
	for _, l := range lines[1:] {
		var j struct {
			Writes []struct {
				Path   string `json:"path"`
				At     *int64 `json:"at"`
				Remove bool   `json:"remove"`
			} `json:"writes"`
		}
		if err := json.Unmarshal([]byte(l), &j); err != nil {
			t.Fatalf("a line of %s does not parse: %v", store.WALFile, err)
		}
		for _, w := range j.Writes {
			switch {
			case w.Path == store.IndexFile || w.Remove:
			case w.At != nil:
				if at, ok := cut[w.Path]; !ok || *w.At < at {
					cut[w.Path] = *w.At
				}
			default:
				emptied[w.Path] = true
			}
		}
	}
	lines[0] = `{"wal_boot":"a-boot-before-the-crash"}` + "\n"
	must(t, os.WriteFile(walPath, []byte(strings.Join(lines, "")), 0o644))
	for p, at := range cut {
		must(t, os.Truncate(filepath.Join(dir, p), at))
	}
	for p := range emptied {
		if err := os.Truncate(filepath.Join(dir, p), 0); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	if err := os.Remove(filepath.Join(dir, store.IndexFile)); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return len(lines) - 1
}

// TestCrashThenMachineCrash kills a transaction at each step of the write
// path, lets the next transaction run (or not), then crashes the machine:
// the store must open, a lock-free reader must see the last transaction,
// doctor must be clean and every transaction that committed must be there
// once. A journal finished by recovery without reaching .wal made the log
// skip its transaction (seq 1, 2 and 4), and its replay failed for ever.
func TestCrashThenMachineCrash(t *testing.T) {
	needBootID(t)
	for _, step := range store.CrashSteps {
		if step.Replay {
			continue
		}
		for _, next := range []bool{false, true} {
			name := step.Name + "/alone"
			if next {
				name = step.Name + "/then-update"
			}
			t.Run(name, func(t *testing.T) {
				dir := newRoot(t)
				s := openStore(t, dir)
				if _, err := s.Update(store.TxOptions{Command: "test-append"}, func(tx *store.Tx) error {
					return appendTag(tx, docA, docB, "t0")
				}); err != nil {
					t.Fatal(err)
				}
				crashOnce(t, dir, step.Name, "crash/sub")
				want := []string{"t0"}
				if step.Committed {
					want = append(want, "crash/sub")
				}
				if next {
					if _, err := s.Update(store.TxOptions{Command: "test-append"}, func(tx *store.Tx) error {
						return appendTag(tx, docB, docA, "next")
					}); err != nil {
						t.Fatal(err)
					}
					want = append(want, "next")
				}
				machineCrash(t, dir)

				s = openStore(t, dir)
				b, err := s.Read(docB)
				if err != nil {
					t.Fatalf("lock-free Read after the machine crash: %v", err)
				}
				if got := hypothesis(t, b); !slices.Equal(got, want) {
					t.Errorf("lock-free Read(%s) after the machine crash: hypothesis %q; want %q", docB, got, want)
				}
				doctorClean(t, s)
				checkStore(t, dir, want)
			})
		}
	}
}

// TestStaleJournalAfterMachineCrash brings back a journal whose transaction
// later ones followed, as a machine crash can when the journal's removal
// never reached the disk: recovery must set it aside, not write its older
// documents and its event over the later transactions.
func TestStaleJournalAfterMachineCrash(t *testing.T) {
	needBootID(t)
	dir := newRoot(t)
	crashOnce(t, dir, "after-event", "c1")
	jpath := filepath.Join(dir, store.JournalFile)
	stale, err := os.ReadFile(jpath)
	if err != nil {
		t.Fatal(err)
	}
	s := openStore(t, dir)
	commitTags(t, s, "c2", "c3")
	machineCrash(t, dir)
	must(t, os.WriteFile(jpath, stale, 0o644))

	s = openStore(t, dir)
	rep := doctorClean(t, s)
	if !strings.HasPrefix(rep.Journal, "discarded") {
		t.Errorf("doctor's journal: %q; want the stale journal discarded", rep.Journal)
	}
	checkStore(t, dir, []string{"c1", "c2", "c3"})
}

// TestCrashDuringReplay kills the process that replays the log after a
// machine crash, at each step of the replay and of the checkpoint that ends
// it, then opens the store again: the next replay must start over and
// restore every logged transaction once.
func TestCrashDuringReplay(t *testing.T) {
	needBootID(t)
	var steps []string
	for _, step := range store.CrashSteps {
		if step.Replay || step.Checkpoint {
			steps = append(steps, step.Name)
		}
	}
	for _, step := range steps {
		t.Run(step, func(t *testing.T) {
			dir := newRoot(t)
			s := openStore(t, dir)
			tags := []string{"m0", "m1/sub", "m2"}
			commitTags(t, s, tags...)
			if n := machineCrash(t, dir); n < 3 {
				t.Fatalf("%d lines in the log; want the setup and three transactions", n)
			}
			crashOnce(t, dir, step, "killed")
			s = openStore(t, dir)
			doctorClean(t, s)
			checkStore(t, dir, tags)
		})
	}
}

// commitTags commits one test-append transaction per tag, in order.
func commitTags(t *testing.T, s *store.Store, tags ...string) {
	t.Helper()
	for _, tag := range tags {
		if _, err := s.Update(store.TxOptions{Command: "test-append"}, func(tx *store.Tx) error {
			return appendTag(tx, docA, docB, tag)
		}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRecordOnce: a transaction's bytes go to disk once. While it is
// applied, .journal holds only a mark naming its record in the
// write-ahead log, and the record holds the event line once (the append to
// events.jsonl refers to it).
func TestRecordOnce(t *testing.T) {
	dir := newRoot(t)
	crashOnce(t, dir, "after-journal", "once/sub")
	mark, err := os.ReadFile(filepath.Join(dir, store.JournalFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(mark) > 200 || !strings.Contains(string(mark), `"wal_at":`) {
		t.Errorf(".journal holds %d bytes: %s; want a mark of under 200", len(mark), mark)
	}
	raw, err := os.ReadFile(filepath.Join(dir, store.WALFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	var rec struct {
		Event json.RawMessage `json:"event"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &rec); err != nil || len(rec.Event) < 100 {
		t.Fatalf("the log's last line: %v", err)
	}
	if n := strings.Count(lines[len(lines)-1], string(rec.Event)); n != 1 {
		t.Errorf("the record holds its event line %d times; want once", n)
	}
	s := openStore(t, dir)
	doctorClean(t, s)
	checkStore(t, dir, []string{"once/sub"})
}
