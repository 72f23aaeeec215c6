package skills

import (
	"slices"
	"testing"

	"github.com/proofloop/proofloop/model"
)

// TestChildIDs checks the numbering of new sub-statements: the first free
// numbers after the children a parent lists (whatever their kind), in order,
// and with work linear in old plus new children: issue 10 (defect 12) found
// 5,000 sub-statements numbered by a scan of the list per candidate.
func TestChildIDs(t *testing.T) {
	const p = "stmt_a"
	sub := func(ns ...int) []string {
		var out []string
		for _, n := range ns {
			out = append(out, model.SubStatementID(p, n))
		}
		return out
	}
	for _, tc := range []struct {
		taken []string
		k     int
		want  []string
	}{
		{nil, 3, sub(1, 2, 3)},
		{sub(1, 2), 2, sub(3, 4)},
		{append(sub(1), model.FixStatementID(p, 1)), 1, sub(2)}, // a fix child takes no sub number
		{sub(2), 2, sub(1, 3)},                                  // the first free number, as model.NextNumber gives
		{sub(1), 0, []string{}},
	} {
		calls := 0
		idFor := func(parent string, n int) string { calls++; return model.SubStatementID(parent, n) }
		got := childIDs(p, tc.taken, tc.k, idFor)
		if !slices.Equal(got, tc.want) {
			t.Errorf("childIDs(%v, %d) = %v; want %v", tc.taken, tc.k, got, tc.want)
		}
		if calls > len(tc.taken)+tc.k {
			t.Errorf("childIDs(%v, %d) named %d candidates; want at most %d", tc.taken, tc.k, calls, len(tc.taken)+tc.k)
		}
	}
	// 5,000 new children after 5,000 old ones: 10,000 candidates, no more.
	var taken []string
	for n := 1; n <= 5000; n++ {
		taken = append(taken, model.SubStatementID(p, n))
	}
	calls := 0
	got := childIDs(p, taken, 5000, func(parent string, n int) string { calls++; return model.SubStatementID(parent, n) })
	if len(got) != 5000 || got[0] != model.SubStatementID(p, 5001) || got[4999] != model.SubStatementID(p, 10000) || calls != 10000 {
		t.Errorf("5,000 after 5,000: %d ids from %s to %s, %d candidates; want 5000 from %s to %s, 10000 candidates",
			len(got), got[0], got[len(got)-1], calls, model.SubStatementID(p, 5001), model.SubStatementID(p, 10000))
	}
}
