package storetest

import (
	"testing"

	"github.com/proofloop/proofloop/store"
)

// testDerivedFiles: a transcript written, replaced and removed by
// transactions is there, or not, as the last commit left it, and a
// transaction that writes only a derived file still commits.
func testDerivedFiles(t *testing.T, s *store.Store) {
	const name = ".debates/2026-11-22-a-topic.md"
	write := func(fn func(tx *store.Tx) error) {
		t.Helper()
		if _, err := s.Update(store.TxOptions{Command: "test-transcript"}, fn); err != nil {
			t.Fatal(err)
		}
	}
	transcript := func() (string, bool) {
		t.Helper()
		v, ok := state(t, s)["/"+name]
		return v, ok
	}
	write(func(tx *store.Tx) error { return tx.WriteFile(name, []byte("# first\n")) })
	write(func(tx *store.Tx) error { return tx.WriteFile(name, []byte("# second\n")) })
	if got, ok := transcript(); !ok || got != "# second\n" {
		t.Errorf("transcript after two writes = %q (there: %v); want %q", got, ok, "# second\n")
	}
	write(func(tx *store.Tx) error { return tx.RemoveFile(name) })
	if got, ok := transcript(); ok {
		t.Errorf("transcript after its removal = %q; want none", got)
	}
	before := state(t, s)
	_, err := s.Update(store.TxOptions{Command: "test-transcript"}, func(tx *store.Tx) error {
		return tx.WriteFile("../outside.md", []byte("x"))
	})
	if err == nil {
		t.Error("WriteFile(../outside.md) was accepted; want a path outside the derived files refused")
	}
	sameState(t, "refused WriteFile", s, before)
}
