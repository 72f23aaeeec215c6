package table

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestRowsFileMakesOneTable: rows recorded by two processes (two Records
// with the variable set stand for them) come back from the file in order,
// and the table shows each figure once, with its last measurement, where
// it was first recorded.
func TestRowsFileMakesOneTable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rows.jsonl")
	t.Setenv(RowsEnv, path)
	Record("start", "12 vs 3 ms: 4.00×", "≤ 2×", AtMost(4, 2))
	Record("syncs", "1 fdatasync", "1-2", AtMost(1, 2))
	Record("start", "9 vs 3 ms: 3.00×", "≤ 2×", AtMost(3, 2)) // the counted run after Go's probe
	rs, err := Read(path)
	if err != nil || len(rs) != 3 {
		t.Fatalf("Read: %v, %d rows; want 3", err, len(rs))
	}
	var b strings.Builder
	Write(&b, rs)
	got := strings.Split(strings.TrimSpace(b.String()), "\n")
	want := []string{
		"| start | 9 vs 3 ms: 3.00× | ≤ 2× | missed by 50% |",
		"| syncs | 1 fdatasync | 1-2 | met |",
	}
	if len(got) != 3+len(want) || got[3] != want[0] || got[4] != want[1] {
		t.Errorf("table:\n%s\nwant rows:\n%s", b.String(), strings.Join(want, "\n"))
	}
	var own strings.Builder
	Print(&own) // the rows went to the file: make bench prints them once
	if own.Len() != 0 {
		t.Errorf("Print with %s set wrote %q; want nothing", RowsEnv, own.String())
	}
}

func TestVerdicts(t *testing.T) {
	for _, c := range []struct {
		got, limit float64
		want       string
	}{{2, 2, "met"}, {2.01, 2, "missed by <1%"}, {3, 2, "missed by 50%"}} {
		if v := AtMost(c.got, c.limit); v != c.want {
			t.Errorf("AtMost(%v, %v) = %q; want %q", c.got, c.limit, v, c.want)
		}
	}
	if Within(1.3, 0.8, 1.2) != "missed" || Within(1.0, 0.8, 1.2) != "met" {
		t.Error("Within does not bound both sides")
	}
}
