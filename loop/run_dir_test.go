package loop

import (
	"strings"
	"testing"
	"time"

	"github.com/proofloop/proofloop/store"
)

// TestRunIDsDifferAcrossMachines: two machines that share a PostgreSQL
// store each keep their own runs/, so two runs that start in the same
// millisecond on two machines once got the same id, and with it the same
// lease holder names (run-<id>-w0) and the same lines in the shared log.
// Ids made at one instant in two roots differ, and each still names its
// holders.
func TestRunIDsDifferAcrossMachines(t *testing.T) {
	now := time.Date(2026, 11, 28, 23, 0, 0, 123e6, time.UTC)
	seen := map[string]bool{}
	for range 2 {
		root := t.TempDir()
		if _, err := store.Init(root); err != nil {
			t.Fatal(err)
		}
		s, err := store.Open(root)
		if err != nil {
			t.Fatal(err)
		}
		for range 3 {
			id, dir, err := newRunDir(s, now, 10)
			if err != nil {
				t.Fatal(err)
			}
			if seen[id] {
				t.Errorf("run id %s given twice", id)
			}
			seen[id] = true
			if !strings.HasPrefix(id, "20261128T230000123Z-") || dir != "runs/"+id {
				t.Errorf("run id %s, folder %s; want the start time first, and runs/<id>", id, dir)
			}
			if got, ok := runOfHolder("run-" + id + "-w3"); !ok || got != id {
				t.Errorf("runOfHolder(run-%s-w3) = %q, %v", id, got, ok)
			}
		}
		s.Close()
	}
}
