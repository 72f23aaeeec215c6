package pgstore_test

import (
	"testing"

	"github.com/proofloop/proofloop/store/storetest"
)

// TestConformance runs the store's conformance suite on the PostgreSQL
// store, each test on a fresh database of the shared throwaway cluster.
func TestConformance(t *testing.T) { storetest.Run(t, open) }
