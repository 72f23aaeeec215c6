package report

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/proofloop/proofloop/bench/storegen"
	"github.com/proofloop/proofloop/store"
)

// BenchmarkReport10k writes the report of a 10,000-statement store made by
// bench/storegen (trees of every status, with issues, responses and
// leases): the split report, index and one page per root problem.
//
//	go test -run '^$' -bench Report10k -benchtime 3x ./report/
func BenchmarkReport10k(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "c")
	if _, err := storegen.Generate(dir, storegen.Options{Statements: 10_000}); err != nil {
		b.Fatal(err)
	}
	s, err := store.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	out := filepath.Join(b.TempDir(), "report.html")
	b.ResetTimer()
	var w *Written
	for b.Loop() {
		os.RemoveAll(filepath.Join(filepath.Dir(out), "report"))
		if w, err = Write(context.Background(), s, "", out, io.Discard, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(w.Bytes)/1e6, "MB")
	b.ReportMetric(float64(w.Pages), "pages")
	if w.Statements != 10_000 || !w.Split {
		b.Fatalf("wrote %d statements, split %v; want 10000, split", w.Statements, w.Split)
	}
}
