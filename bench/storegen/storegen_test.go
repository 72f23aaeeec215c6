package storegen

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/skills"
	"github.com/proofloop/proofloop/store"
	"github.com/proofloop/proofloop/store/doctor"
)

// TestGenerateDoctorClean generates a store of 2,000 statements with one
// item of every reserved shape and checks that doctor (schemas, references,
// hash chain, replay, index) finds nothing, that the shape is what the
// package promises, and that the reserved items take the skill calls the
// benchmarks make.
func TestGenerateDoctorClean(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	reserve := map[string]int{}
	for _, s := range Shapes {
		reserve[s] = 1
	}
	sum, err := Generate(dir, Options{Statements: 2000, Reserve: reserve})
	if err != nil {
		t.Fatal(err)
	}
	// Every shape but "problem" adds one statement.
	if want := 2000 + len(Shapes) - 1; sum.Statements != want {
		t.Errorf("statements: got %d; want %d", sum.Statements, want)
	}
	if sum.Leases == 0 {
		t.Errorf("leases: got 0; want some live and some expired")
	}
	s, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r, err := doctor.Full(s)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Findings) > 0 || r.Index != "consistent" || r.Log.Replayed != sum.Problems+sum.Statements {
		t.Fatalf("doctor: got %d findings (first %+v), index %q, %d replayed; want none, consistent, %d",
			len(r.Findings), first(r.Findings), r.Index, r.Log.Replayed, sum.Problems+sum.Statements)
	}
	if r.Statements != sum.Statements || r.Events != sum.Events {
		t.Errorf("doctor counts: got %d statements, %d events; want %d, %d", r.Statements, r.Events, sum.Statements, sum.Events)
	}

	statuses, depth, live, expired := map[string]int{}, 0, 0, 0
	names, _ := filepath.Glob(filepath.Join(dir, "statement", "stmt_g*.json"))
	for _, n := range names {
		raw, _ := os.ReadFile(n)
		statuses[gjson.GetBytes(raw, "status").String()]++
		depth = max(depth, strings.Count(filepath.Base(n), "_sub"))
	}
	for _, st := range model.StatementStatuses {
		if statuses[string(st)] == 0 {
			t.Errorf("bulk statuses: got none %s in %v; want every status", st, statuses)
		}
	}
	if depth < 4 {
		t.Errorf("nesting: got sub-statements %d deep; want 4", depth)
	}
	leases, _ := filepath.Glob(filepath.Join(dir, "leases", "*.json"))
	for _, p := range leases {
		l, err := s.ReadLease(strings.TrimSuffix(filepath.Base(p), ".json"))
		if err != nil {
			t.Fatal(err)
		}
		if l.Live(time.Now()) {
			live++
		} else {
			expired++
		}
	}
	if live == 0 || expired == 0 {
		t.Errorf("leases: got %d live, %d expired; want both", live, expired)
	}

	for shape, want := range map[string]model.Status{"pending": model.StatementPending, "awaiting": model.StatementAwaitingVerification,
		"gap": model.StatementHasGap, "true": model.StatementTrue, "modify": model.StatementNeedsModification,
		"biggap": model.StatementHasGap, "bigpending": model.StatementPending} {
		_, id := Reserved(shape, 0)
		d, err := s.Read(id)
		if err != nil {
			t.Fatalf("%s: %v", shape, err)
		}
		if d.Status() != want {
			t.Errorf("%s %s: got status %s; want %s", shape, id, d.Status(), want)
		}
		if big := strings.HasPrefix(shape, "big"); big {
			if n := len(d.Get("proof").String()); n < BigProofBytes {
				t.Errorf("%s: got a proof of %d bytes; want >= %d", shape, n, BigProofBytes)
			}
			if n := len(d.Get("validate.issues").Array()); n != BigIssues {
				t.Errorf("%s: got %d issues; want %d", shape, n, BigIssues)
			}
		}
	}
	// The calls the benchmarks time, on the reserved items, in-process.
	for _, c := range []struct{ shape, want string }{{"biggap", "has_gap"}, {"gap", "has_gap"}} {
		_, id := Reserved(c.shape, 0)
		sk, _ := skills.Find("check-reject-proof")
		in, err := skills.ParseInput(sk, map[string][]string{"statement_path": {id}, "sentence_number": {"2"}, "sentence_text": {Quote},
			"error_type": {"gap"}, "explanation": {"Why?"}}, nil, skills.Source{Max: 1 << 22})
		if err != nil {
			t.Fatal(err)
		}
		res, err := skills.Execute(s, sk, store.TxOptions{Command: sk.Name, Actor: "checker"}, in)
		if err != nil || string(res.Status) != c.want {
			t.Fatalf("check-reject-proof on %s: got %v, %v; want status %s", id, res, err, c.want)
		}
	}
	if r, err := doctor.Full(s); err != nil || len(r.Findings) > 0 {
		t.Fatalf("doctor after the skill calls: got %v, %+v; want clean", err, r)
	}
}

// TestGenerateRefusesNonEmptyAndUnknownShape: the generator never writes
// into an existing root, and names the shapes it knows.
func TestGenerateRefusesNonEmptyAndUnknownShape(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "x"), []byte("keep"), 0o644)
	if _, err := Generate(dir, Options{Statements: 10}); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("non-empty dir: got %v; want a not empty error", err)
	}
	if raw, _ := os.ReadFile(filepath.Join(dir, "x")); string(raw) != "keep" {
		t.Errorf("non-empty dir: got x = %q; want it untouched", raw)
	}
	empty := filepath.Join(t.TempDir(), "c")
	if _, err := Generate(empty, Options{Reserve: map[string]int{"huge": 1}}); err == nil || !strings.Contains(err.Error(), "unknown shape") {
		t.Errorf("unknown shape: got %v; want an unknown shape error", err)
	}
	if _, err := os.Stat(empty); !os.IsNotExist(err) {
		t.Errorf("unknown shape: got %v for the root; want nothing created", err)
	}
}

func first(fs []doctor.Finding) any {
	if len(fs) == 0 {
		return nil
	}
	return fs[0]
}
