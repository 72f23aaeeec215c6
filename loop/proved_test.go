package loop_test

import (
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/proofloop/proofloop/bench/storegen"
	"github.com/proofloop/proofloop/loop"
	"github.com/proofloop/proofloop/store"
)

// TestProvedFromLoadedRows: Proved over a loaded snapshot, which derives
// from the rows the items were read from, gives every item the verdict and
// the open issues by severity that reading each row from the index again
// gives (the way Proved works for an item made by id alone).
func TestProvedFromLoadedRows(t *testing.T) {
	root := filepath.Join(t.TempDir(), "contents")
	reserve := map[string]int{}
	for _, shape := range storegen.Shapes {
		reserve[shape] = 2
	}
	if _, err := storegen.Generate(root, storegen.Options{Statements: 150, Reserve: reserve}); err != nil {
		t.Fatal(err)
	}
	s, err := store.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	snap, err := loop.Load(s)
	if err != nil {
		t.Fatal(err)
	}
	ids := slices.Sorted(func(yield func(string) bool) {
		for id := range snap.Items {
			if !yield(id) {
				return
			}
		}
	})
	loaded := make([]*loop.Item, len(ids))
	bare := make([]*loop.Item, len(ids))
	for i, id := range ids {
		loaded[i], bare[i] = snap.Items[id], &loop.Item{ID: id, OpenIssues: snap.Items[id].OpenIssues}
	}
	if err := loop.Proved(s, loaded); err != nil {
		t.Fatal(err)
	}
	if err := loop.Proved(s, bare); err != nil {
		t.Fatal(err)
	}
	proved, open := 0, 0
	for i, id := range ids {
		if !reflect.DeepEqual(loaded[i].Proved, bare[i].Proved) {
			t.Errorf("%s: Proved from the loaded row = %+v; from the index = %+v", id, *loaded[i].Proved, *bare[i].Proved)
		}
		if !reflect.DeepEqual(loaded[i].OpenBySeverity, bare[i].OpenBySeverity) {
			t.Errorf("%s: open issues by severity from the loaded row = %v; from the index = %v", id, loaded[i].OpenBySeverity, bare[i].OpenBySeverity)
		}
		if loaded[i].FullyProved {
			proved++
		}
		if loaded[i].OpenBySeverity != nil {
			open++
		}
	}
	if proved == 0 || open == 0 {
		t.Errorf("%d items fully proved, %d with open issues; the generated store was meant to have both", proved, open)
	}
}
