package doctor

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// The doctor's tests damage a file store by hand and check what the doctor
// finds; these helpers make and read such a store.

var t0 = time.Date(2026, 11, 22, 10, 4, 5, 0, time.UTC)

// testStore is a fresh contents root whose clock reads t0.
func testStore(t *testing.T) (*store.Store, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "contents")
	if _, err := store.Init(dir); err != nil {
		t.Fatal(err)
	}
	s, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	s.Now = func() time.Time { return t0 }
	return s, dir
}

// mustCreate creates a pending problem for each id.
func mustCreate(t *testing.T, s *store.Store, ids ...string) {
	t.Helper()
	_, err := s.Update(store.TxOptions{Command: "test-create"}, func(tx *store.Tx) error {
		for _, id := range ids {
			p := model.Problem{Status: model.ProblemPending, Objective: "objective of " + id,
				Hypothesis: []string{}, Preliminaries: []string{}, Progresses: []string{}}
			if _, err := tx.Create(id, p); err != nil {
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

func wantCode(t *testing.T, what string, err error, want store.Code) {
	t.Helper()
	if got := store.CodeOf(err); got != want {
		t.Errorf("%s: error %v (code %q); want code %q", what, err, got, want)
	}
}

// doctorClean runs the full check and fails on any finding.
func doctorClean(t *testing.T, s *store.Store) *Report {
	t.Helper()
	r, err := Full(s)
	if err != nil {
		t.Fatalf("Doctor: %v", err)
	}
	for _, f := range r.Findings {
		t.Errorf("Doctor finding: %s: %s", f.Path, f.Message)
	}
	return r
}
