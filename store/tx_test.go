package store

import (
	jsonpatch "github.com/evanphx/json-patch/v5"

	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/proofloop/proofloop/model"
)

// The store's behaviour (transactions, events, the index, leases, kept
// proof revisions, config) is tested once, for every backend, by the
// conformance suite in store/storetest (TestConformance here and in
// store/pgstore). The tests in this package are the exceptions: each needs
// the file store's insides, which no other backend has: its files on disk
// (a hand-damaged document, stray temp files, a replaced root), its flock,
// its redo journal (journal_test.go), and processes killed mid-commit
// (crash_test.go, lostupdate_test.go; PostgreSQL's own commit gives it that
// atomicity). Pure functions (Patch, Doc.Set, config parsing) need no
// backend at all.

var t0 = time.Date(2026, 11, 22, 10, 4, 5, 0, time.UTC)

// testStore is a fresh contents root whose clock reads t0 until the test
// moves it.
func testStore(t *testing.T) (*Store, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "contents")
	if _, err := Init(dir); err != nil {
		t.Fatal(err)
	}
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	s.Now = func() time.Time { return t0 }
	return s, dir
}

func problem(objective string) model.Problem {
	return model.Problem{Status: model.ProblemPending, Objective: objective,
		Hypothesis: []string{}, Preliminaries: []string{}, Progresses: []string{}}
}

func mustCreate(t *testing.T, s *Store, ids ...string) {
	t.Helper()
	_, err := s.Update(TxOptions{Command: "test-create"}, func(tx *Tx) error {
		for _, id := range ids {
			if _, err := tx.Create(id, problem("objective of "+id)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, dir, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func eventLines(t *testing.T, dir string) []Event {
	t.Helper()
	var evs []Event
	for line := range bytes.Lines(readFile(t, dir, EventsFile)) {
		var ev Event
		if err := json.Unmarshal(line, &ev); err != nil {
			t.Fatalf("%s line %d: %v", EventsFile, len(evs)+1, err)
		}
		evs = append(evs, ev)
	}
	return evs
}

// snapshot is every file under dir with its content, to show that a
// refused transaction wrote nothing at all.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		if strings.TrimPrefix(p, dir) == "/"+PointFile {
			return nil // doctor's verified point: derived, written by a clean check
		}
		b, err := os.ReadFile(p)
		m[strings.TrimPrefix(p, dir)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func sameFiles(t *testing.T, dir string, before map[string]string) {
	t.Helper()
	after := snapshot(t, dir)
	for p, b := range before {
		if a, ok := after[p]; !ok {
			t.Errorf("%s was removed", p)
		} else if a != b {
			t.Errorf("%s changed:\n%s\nwas:\n%s", p, a, b)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%s was created", p)
		}
	}
}

func wantCode(t *testing.T, what string, err error, want Code) {
	t.Helper()
	if got := CodeOf(err); got != want {
		t.Errorf("%s: error %v (code %q); want code %q", what, err, got, want)
	}
}

// doctorClean runs the full check and fails on any finding.
func doctorClean(t testing.TB, s *Store) *DoctorReport {
	t.Helper()
	r, err := RunDoctor(s)
	if err != nil {
		t.Fatalf("Doctor: %v", err)
	}
	for _, f := range r.Findings {
		t.Errorf("Doctor finding: %s: %s", f.Path, f.Message)
	}
	return r
}

func TestSetRefusesForeignPaths(t *testing.T) {
	s, _ := testStore(t)
	mustCreate(t, s, "prob_x")
	d, err := s.Read("prob_x")
	if err != nil {
		t.Fatal(err)
	}
	raw := string(d.Raw)
	for _, p := range []string{"", "hypothesis.#", "objective|@reverse", "a b", "hypothesis.*", "Objective", "objective..x", `objective\.x`, "@this"} {
		if err := d.Set(p, "x"); err == nil {
			t.Errorf("Set(%q) = nil; want a refusal", p)
		}
		if err := d.SetRaw(p, []byte(`"x"`)); err == nil {
			t.Errorf("SetRaw(%q) = nil; want a refusal", p)
		}
	}
	if string(d.Raw) != raw {
		t.Errorf("refused sets changed the document:\n%s", d.Raw)
	}
}

func TestDamagedDocument(t *testing.T) {
	for name, content := range map[string]string{
		"not json":       `{"id": "prob_bad", `,
		"fails schema":   `{"id": "prob_bad", "status": "bogus"}`,
		"wrong id field": "",
	} {
		t.Run(name, func(t *testing.T) {
			s, dir := testStore(t)
			mustCreate(t, s, "prob_ok", "prob_bad")
			if content == "" { // a valid problem that says it is another one
				b := bytes.Replace(readFile(t, dir, "problem/prob_bad.json"), []byte(`"prob_bad"`), []byte(`"prob_ok"`), 1)
				content = string(b)
			}
			if err := os.WriteFile(filepath.Join(dir, "problem/prob_bad.json"), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			before := snapshot(t, dir)
			_, err := s.Update(TxOptions{Command: "test"}, func(tx *Tx) error {
				d, err := tx.Get("prob_ok")
				if err != nil {
					return err
				}
				if err := d.Set("hypothesis.-1", "h"); err != nil {
					return err
				}
				_, err = tx.Get("prob_bad")
				return err
			})
			wantCode(t, "Update reading a damaged document", err, CodeStoreDamaged)
			_, err = s.Read("prob_bad")
			wantCode(t, "Read of a damaged document", err, CodeStoreDamaged)
			sameFiles(t, dir, before)
			r, err := RunDoctor(s)
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Findings) != 1 || r.Findings[0].Path != "problem/prob_bad.json" {
				t.Errorf("Doctor findings %v; want one, for problem/prob_bad.json", r.Findings)
			}
		})
	}
}

func TestDoctorChecksLinksAndSweeps(t *testing.T) {
	s, dir := testStore(t)
	mustCreate(t, s, "prob_x")
	// A subproblem whose parent does not list it: what a torn
	// prob-setup-subgoal would leave.
	_, err := s.Update(TxOptions{Command: "test"}, func(tx *Tx) error {
		p := problem("orphan")
		parent := "prob_x"
		p.Parent = &parent
		_, err := tx.Create("prob_x_sub1", p)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	temp := filepath.Join(dir, "problem", ".prob_x.json123456")
	if err := os.WriteFile(temp, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := RunDoctor(s)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Findings) != 1 || r.Findings[0].Path != "problem/prob_x_sub1.json" {
		t.Errorf("Doctor findings %v; want one: prob_x_sub1's parent does not list it", r.Findings)
	}
	if !slices.Equal(r.Swept, []string{"problem/.prob_x.json123456"}) {
		t.Errorf("Doctor swept %q; want the stale temp file", r.Swept)
	}
	if _, err := os.Stat(temp); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the stale temp file is still there (%v)", err)
	}
}

func TestLockTimeout(t *testing.T) {
	s, dir := testStore(t)
	mustCreate(t, s, "prob_x")
	unlock, err := lock(s.root, s.Dir, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, dir)
	s.LockTimeout = 50 * time.Millisecond
	_, err = s.Update(TxOptions{Command: "test"}, func(tx *Tx) error {
		t.Error("the transaction body ran without the lock")
		return nil
	})
	wantCode(t, "Update while another holds the lock", err, CodeLockTimeout)
	_, err = RunDoctor(s)
	wantCode(t, "Doctor while another holds the lock", err, CodeLockTimeout)
	sameFiles(t, dir, before)
	unlock()
	s.LockTimeout = time.Minute
	if _, err := s.Update(TxOptions{Command: "test"}, func(tx *Tx) error { return nil }); err != nil {
		t.Errorf("Update after the lock was released: %v", err)
	}
}

// TestLockRootReplaced: a root moved away and replaced under a running
// command is refused with a conflict; the command's open root is no longer
// the store at that path, so it must not write there.
func TestLockRootReplaced(t *testing.T) {
	s, dir := testStore(t)
	if err := os.Rename(dir, dir+".old"); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := s.Update(TxOptions{Command: "test"}, func(tx *Tx) error {
		t.Error("the transaction body ran on a replaced root")
		return nil
	})
	wantCode(t, "Update on a replaced root", err, CodeConflict)
}

// TestPatchEqualsWholeDiff: the patch computed from the changed top-level
// fields replays to the same document as jsondiff over the whole
// documents would give: added, removed and changed fields, nested too.
func TestPatchEqualsWholeDiff(t *testing.T) {
	for _, c := range []struct{ before, after string }{
		{`{}`, `{"a":1,"b":{"c":[1,2]}}`},
		{`{"a":1,"b":2,"big":"x"}`, `{"a":1,"b":3,"big":"x"}`},
		{`{"a":1,"gone":[1]}`, `{"a":1}`},
		{`{"v":{"issues":[{"n":1}],"r":[]},"p":"long proof"}`, `{"v":{"issues":[{"n":1},{"n":2}],"r":[]},"p":"long proof"}`},
		{`{"a":"x\"y"}`, `{"a":"x\"z","new key":null}`},
	} {
		p, err := Patch([]byte(c.before), []byte(c.after))
		if err != nil {
			t.Fatalf("Patch(%s, %s): %v", c.before, c.after, err)
		}
		dec, err := jsonpatch.DecodePatch(p)
		if err != nil {
			t.Fatalf("Patch(%s, %s) = %s, which does not decode: %v", c.before, c.after, p, err)
		}
		got, err := dec.Apply([]byte(c.before))
		if err != nil || !jsonpatch.Equal(got, []byte(c.after)) {
			t.Errorf("applying Patch(%s, %s) = %s gives %s, %v; want %s", c.before, c.after, p, got, err, c.after)
		}
		if strings.Contains(c.before, "big") && strings.Contains(string(p), "big") {
			t.Errorf("Patch(%s, %s) = %s mentions a field that did not change", c.before, c.after, p)
		}
	}
}
