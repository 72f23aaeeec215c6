package store_test

import (
	"path/filepath"
	"testing"

	"github.com/proofloop/proofloop/store"
	"github.com/proofloop/proofloop/store/storetest"
)

// TestConformance runs the store's conformance suite on the file store.
// The PostgreSQL store runs the same suite in store/pgstore.
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) *store.Store {
		dir := filepath.Join(t.TempDir(), "contents")
		if _, err := store.Init(dir); err != nil {
			t.Fatal(err)
		}
		return openStore(t, dir)
	})
}
