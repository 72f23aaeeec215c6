package doctor

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/proofloop/proofloop/store"
)

// routine runs the routine doctor and fails unless it ran as one.
func routine(t *testing.T, s *store.Store) *Report {
	t.Helper()
	r, err := Routine(s)
	if err != nil {
		t.Fatal(err)
	}
	if r.Mode != ModeRoutine {
		t.Fatalf("doctor ran in mode %q, want routine", r.Mode)
	}
	return r
}

func hasCode(r *Report, code, path string) bool {
	for _, f := range r.Findings {
		if f.Code == code && (path == "" || f.Path == path) {
			return true
		}
	}
	return false
}

// TestRoutineDoctorFromThePoint: the first doctor has no point and is the
// full check; a clean one writes the point; the next is routine and
// rechecks only what changed since: the documents of later events, and a
// document edited by hand after them (caught with the events since in
// between, so the point is not the log's head).
func TestRoutineDoctorFromThePoint(t *testing.T) {
	s, dir, _ := damageStore(t)
	r, err := Routine(s)
	if err != nil || r.Mode != ModeFullNoPoint || len(r.Findings) > 0 {
		t.Fatalf("first doctor: mode %q, %v, %v; want a clean full check", r.Mode, r.Findings, err)
	}
	if r := routine(t, s); r.Rechecked != 0 || r.Since != 4 || len(r.Findings) > 0 {
		t.Fatalf("routine doctor on an unchanged store: %d rechecked since %d, %v", r.Rechecked, r.Since, r.Findings)
	}
	mustCreate(t, s, "prob_y")
	if r := routine(t, s); r.Rechecked != 1 || r.Since != 4 || len(r.Findings) > 0 {
		t.Fatalf("routine doctor after one event: %d rechecked since %d, %v; want prob_y alone", r.Rechecked, r.Since, r.Findings)
	}
	mustCreate(t, s, "prob_z")
	editFile(t, dir, "problem/prob_x.json", func(s string) string { return strings.Replace(s, `"revision": 4`, `"revision": 5`, 1) })
	r = routine(t, s)
	if r.Since != 5 || !hasCode(r, "revision_mismatch", "problem/prob_x.json") {
		t.Fatalf("routine doctor after a hand edit: since %d, %v; want revision_mismatch", r.Since, r.Findings)
	}
}

// TestRoutineDoctorLimit is the documented limit of the routine check: it
// trusts a file whose stat fingerprint is the point's. An edit that keeps
// the size and restores the mtime still changes the ctime, which the
// kernel sets, so it is caught; a rewrite beneath the file system (or a
// forged point) that restores the whole fingerprint is not, and --full
// catches it.
func TestRoutineDoctorLimit(t *testing.T) {
	s, dir, _ := damageStore(t)
	if r, err := Full(s); err != nil || len(r.Findings) > 0 {
		t.Fatalf("doctor: %v, %v", r, err)
	}
	p := filepath.Join(dir, "problem", "prob_x.json")
	info, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond) // a ctime of its own, on a coarse clock too
	editFile(t, dir, "problem/prob_x.json", func(s string) string { return strings.Replace(s, `"revision": 4`, `"revision": 7`, 1) })
	if err := os.Chtimes(p, info.ModTime(), info.ModTime()); err != nil {
		t.Fatal(err)
	}
	if r := routine(t, s); !hasCode(r, "revision_mismatch", "problem/prob_x.json") {
		t.Fatalf("same size, mtime restored: the routine doctor missed it: %v", r.Findings)
	}

	// The same edit with the point's fingerprint of the file made to match.
	pt := (&checker{s}).readPoint()
	if pt == nil {
		t.Fatal("no verified point")
	}
	e, err := os.ReadDir(filepath.Join(dir, "problem"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range e {
		if e.Name() == "prob_x.json" {
			pt.files["problem/prob_x.json"], _ = stampOf(e)
		}
	}
	(&checker{s}).writePoint(pt)
	if r := routine(t, s); len(r.Findings) > 0 {
		t.Fatalf("the routine doctor saw an edit whose fingerprint is the point's; the documented limit says it cannot: %v", r.Findings)
	}
	r, err := Full(s)
	if err != nil || !hasCode(r, "revision_mismatch", "problem/prob_x.json") {
		t.Fatalf("doctor --full: %v, %v; want revision_mismatch", r.Findings, err)
	}
}

// TestDamagedPointMeansFullCheck: the point is derived data; any damage to
// it (garbage, a line cut off, an edited byte under its checksum) makes
// the next doctor the full check, which writes a good point again. The
// full check ignores a point that would hide damage.
func TestDamagedPointMeansFullCheck(t *testing.T) {
	s, dir, _ := damageStore(t)
	if r, err := Full(s); err != nil || len(r.Findings) > 0 {
		t.Fatalf("doctor: %v, %v", r, err)
	}
	good := readFile(t, dir, store.PointFile)
	for name, bad := range map[string]string{
		"garbage":     "not a point\n",
		"empty":       "",
		"cut":         string(good[:len(good)/2]),
		"edited byte": strings.Replace(string(good), "seq 4", "seq 3", 1),
	} {
		if err := os.WriteFile(filepath.Join(dir, store.PointFile), []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := Routine(s)
		if err != nil || r.Mode != ModeFullNoPoint || len(r.Findings) > 0 {
			t.Fatalf("%s point: mode %q, %v, %v; want a clean full check", name, r.Mode, r.Findings, err)
		}
		routine(t, s)
	}
	// --full ignores the point: a hand edit hidden from the routine check
	// by a forged point is found, and no point is written over damage.
	editFile(t, dir, "problem/prob_x.json", func(s string) string { return strings.Replace(s, `"revision": 4`, `"revision": 6`, 1) })
	pt := (&checker{s}).readPoint()
	if pt.files, _ = (&checker{s}).stampAll(); pt.files == nil {
		t.Fatal("cannot stamp the files")
	}
	(&checker{s}).writePoint(pt)
	forged := readFile(t, dir, store.PointFile)
	if r := routine(t, s); len(r.Findings) > 0 {
		t.Fatalf("forged point: %v", r.Findings)
	}
	if r, _ := Full(s); !hasCode(r, "revision_mismatch", "") {
		t.Fatalf("doctor --full with a forged point: %v", r.Findings)
	}
	if string(readFile(t, dir, store.PointFile)) != string(forged) {
		t.Error("a doctor with findings rewrote the point")
	}
}

// TestRoutineDoctorAfterConfigSet: a config-set of max_rounds changes the
// index's rows of items no event names (a statement past the new budget is
// decide's); the routine check compares the index whole then, and reports
// no damage.
func TestRoutineDoctorAfterConfigSet(t *testing.T) {
	s, _, _ := damageStore(t)
	// Round 2: within the default budget of 5, past a budget of 1, so the
	// config-set below hands the statement to decide without an event
	// naming it.
	if _, err := s.Update(store.TxOptions{Command: "test-round"}, func(tx *store.Tx) error {
		d, err := tx.Get("stmt_x_wrap")
		if err != nil {
			return err
		}
		return d.Set("round", 2)
	}); err != nil {
		t.Fatal(err)
	}
	if r, err := Full(s); err != nil || len(r.Findings) > 0 {
		t.Fatalf("doctor: %v, %v", r, err)
	}
	if _, err := s.SetConfig(store.TxOptions{Command: store.ConfigSetCommand}, "max_rounds", json.RawMessage("1")); err != nil {
		t.Fatal(err)
	}
	// Any reader of the index rebuilds it for the new max_rounds (here
	// Reindex): its stamp is then current, and only the point knows the
	// rows from before.
	if _, err := s.Reindex(); err != nil {
		t.Fatal(err)
	}
	if r := routine(t, s); len(r.Findings) > 0 {
		t.Fatalf("routine doctor after config set max_rounds: %v", r.Findings)
	}
}
