// Package storetest is the store's conformance suite: one set of behaviour
// tests that every backend runs, the way Go Cloud's drivertest and restic's
// backend tests run one suite against each implementation. The file store
// runs it in store/conformance_test.go and the PostgreSQL store in
// store/pgstore/conformance_test.go; a backend that passes it keeps the
// contract of DESIGN.md's "The store" for transactions, events, the index,
// leases and kept proof revisions.
//
// The suite sees a store only through its exported API, never its files or
// tables: what a backend must do is what a caller can observe. Tests that
// need a backend's insides (kill -9 during a file commit, a torn journal, a
// PostgreSQL deadlock) stay beside that backend, each saying why.
package storetest

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
	"github.com/proofloop/proofloop/store/doctor"
)

// Open gives a fresh, empty, initialised store for one test, closed when the
// test ends.
type Open func(t *testing.T) *store.Store

// Run runs the conformance suite on the stores open makes.
func Run(t *testing.T, open Open) {
	for _, c := range []struct {
		name string
		fn   func(t *testing.T, s *store.Store)
	}{
		{"CreateThenUpdate", testCreateThenUpdate},
		{"ReadOnlyWritesNothing", testReadOnlyWritesNothing},
		{"FailedWritesNothing", testFailedWritesNothing},
		{"SchemaInvalidWritesNothing", testSchemaInvalidWritesNothing},
		{"ExpectRevision", testExpectRevision},
		{"Refusals", testRefusals},
		{"EventsChainAndHistory", testEventsChainAndHistory},
		{"Delete", testDelete},
		{"Index", testIndex},
		{"Leases", testLeases},
		{"ProofRevisions", testProofRevisions},
		{"NoLostUpdate", testNoLostUpdate},
		{"SetConfig", testSetConfig},
		{"DerivedFiles", testDerivedFiles},
	} {
		t.Run(c.name, func(t *testing.T) { c.fn(t, open(t)) })
	}
}

func problem(objective string) model.Problem {
	return model.Problem{Status: model.ProblemPending, Objective: objective,
		Hypothesis: []string{}, Preliminaries: []string{}, Progresses: []string{}}
}

// Create creates a pending problem for each id, in one transaction.
func Create(t testing.TB, s *store.Store, ids ...string) {
	t.Helper()
	_, err := s.Update(store.TxOptions{Command: "test-create"}, func(tx *store.Tx) error {
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

// appendTo appends h to the hypothesis of id in a transaction of its own.
func appendTo(s *store.Store, id, h string) (*store.Commit, error) {
	return s.Update(store.TxOptions{Command: "test-append", Target: id}, func(tx *store.Tx) error {
		d, err := tx.Get(id)
		if err != nil {
			return err
		}
		return d.Set("hypothesis.-1", h)
	})
}

func read(t *testing.T, s *store.Store, id string) model.Problem {
	t.Helper()
	d, err := s.Read(id)
	if err != nil {
		t.Fatalf("Read(%s): %v", id, err)
	}
	p, err := d.Problem()
	if err != nil {
		t.Fatalf("Read(%s): %v", id, err)
	}
	return *p
}

func wantCode(t *testing.T, what string, err error, want store.Code) {
	t.Helper()
	if got := store.CodeOf(err); got != want {
		t.Errorf("%s: error %v (code %q); want code %q", what, err, got, want)
	}
}

// state is the whole store as a caller can see it, through Export: the
// documents, the log, the leases, the kept revisions and the transcripts.
// Two equal states are the same store, whatever the backend.
func state(t *testing.T, s *store.Store) map[string]string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "export")
	if _, err := s.Export(dir); err != nil {
		t.Fatalf("Export: %v", err)
	}
	m := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
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

func sameState(t *testing.T, what string, s *store.Store, before map[string]string) {
	t.Helper()
	after := state(t, s)
	for p, b := range before {
		if a, ok := after[p]; !ok {
			t.Errorf("%s: %s was removed", what, p)
		} else if a != b {
			t.Errorf("%s: %s changed:\n%s\nwas:\n%s", what, p, a, b)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%s: %s was created", what, p)
		}
	}
}

func doctorClean(t *testing.T, s *store.Store) {
	t.Helper()
	r, err := doctor.Full(s)
	if err != nil {
		t.Fatalf("Doctor: %v", err)
	}
	for _, f := range r.Findings {
		t.Errorf("Doctor finding: %s: %s", f.Path, f.Message)
	}
}

func lastSeq(t *testing.T, s *store.Store) int {
	t.Helper()
	n, err := s.LastSeq()
	if err != nil {
		t.Fatal(err)
	}
	return n
}
