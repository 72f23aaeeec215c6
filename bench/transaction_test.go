package bench

import (
	"fmt"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/proofloop/proofloop/bench/storegen"
)

// reject is the measured transaction on a has_gap statement: it records
// one more issue and leaves the statement has_gap.
func reject(root, stmt string) []string { return skillNamed("check-reject-proof").argv(root, "", stmt) }

// BenchmarkTransaction is one check-reject-proof on a fresh has_gap
// statement beside bench/minimal, which opens, reads, writes, fsyncs and
// renames a copy of the same file: interleaved, the order alternating.
func BenchmarkTransaction(b *testing.B) {
	e := setup(b)
	root := genStore(b, 0, map[string]int{fxGap: b.N})
	plain := b.TempDir()
	files := make([]string, b.N)
	for i := range b.N {
		_, s := storegen.Reserved(fxGap, i)
		files[i] = filepath.Join(plain, s+".json")
		copyFile(b, filepath.Join(root, "statement", s+".json"), files[i])
	}
	var a, m []time.Duration
	b.ResetTimer()
	for i := range b.N {
		_, s := storegen.Reserved(fxGap, i)
		pair(i, func() { a = append(a, e.exec(b, "has_gap", reject(root, s)...)) }, func() {
			d, _, err := execCheck(e.minimal, "", files[i])
			if err != nil {
				b.Fatal(err)
			}
			m = append(m, d)
		})
	}
	b.StopTimer()
	ma, mm := median(a), median(m)
	r := float64(ma) / float64(mm)
	b.ReportMetric(ms(ma), "ms/median")
	b.ReportMetric(ms(mm), "minimal-ms/median")
	b.ReportMetric(r, "ratio")
	record("skill call (check-reject-proof) vs floor (bench/minimal)", fmt.Sprintf("%.2f vs %.2f ms: %.2f×", ms(ma), ms(mm), r), "≤ 2.0×", verdict(r, 2))
}

// BenchmarkStoreSize is the same transaction in a store of about ten
// documents (only the reserved items) and in the 100,000-statement store,
// interleaved.
func BenchmarkStoreSize(b *testing.B) {
	e := setup(b)
	big := bigStore(b)
	small := genStore(b, 0, map[string]int{fxGap: b.N})
	var a, m []time.Duration
	b.ResetTimer()
	for i := range b.N {
		_, s := storegen.Reserved(fxGap, i)
		bs := nextBigGap(b)
		pair(i, func() { a = append(a, e.exec(b, "has_gap", reject(small, s)...)) },
			func() { m = append(m, e.exec(b, "has_gap", reject(big, bs)...)) })
	}
	b.StopTimer()
	ma, mb := median(a), median(m)
	r := float64(mb) / float64(ma)
	b.ReportMetric(ms(ma), "small-ms/median")
	b.ReportMetric(ms(mb), "100k-ms/median")
	b.ReportMetric(r, "ratio")
	record("skill call at 100k statements vs at "+strconv.Itoa(2*b.N)+" documents", fmt.Sprintf("%.2f vs %.2f ms: %.2f×", ms(mb), ms(ma), r), "0.8-1.2×", verdictRange(r, 0.8, 1.2))
}

func verdictRange(r, lo, hi float64) string {
	if r >= lo && r <= hi {
		return "met"
	}
	return "missed"
}

// BenchmarkAt100k is each whole-store command at 100,000 statements, each
// run paired (interleaved) with one skill call on a fresh has_gap statement
// of the same store, and the peak RSS of status and doctor.
func BenchmarkAt100k(b *testing.B) {
	cases := []struct {
		name   string
		args   []string
		target string
		limit  func(cmd, skill time.Duration) (float64, string)
		rss    bool
	}{
		{"next --role check --claim", []string{"--json", "next", "--role", "check", "--claim", "--holder", "bench"}, "≤ 3× one skill call",
			func(c, s time.Duration) (float64, string) { r := float64(c) / float64(s); return r, verdict(r, 3) }, false},
		{"status --json (whole tree)", []string{"--json", "status"}, "≤ 1 s",
			func(c, s time.Duration) (float64, string) { return float64(c) / float64(s), verdict(c.Seconds(), 1) }, true},
		{"status (whole tree, plain)", []string{"status"}, "≤ 1 s",
			func(c, s time.Duration) (float64, string) { return float64(c) / float64(s), verdict(c.Seconds(), 1) }, true},
		{"doctor", []string{"doctor"}, "≤ 3 s",
			func(c, s time.Duration) (float64, string) { return float64(c) / float64(s), verdict(c.Seconds(), 3) }, true},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			e := setup(b)
			big := bigStore(b)
			var cmd, sk []time.Duration
			var rss []int64
			b.ResetTimer()
			for i := range b.N {
				s := nextBigGap(b)
				pair(i, func() {
					d, m, err := execCheck(e.proofloop, "", append([]string{"--root", big}, c.args...)...)
					if err != nil {
						b.Fatal(err)
					}
					cmd, rss = append(cmd, d), append(rss, m)
				}, func() { sk = append(sk, e.exec(b, "has_gap", reject(big, s)...)) })
			}
			b.StopTimer()
			mc, ms2 := median(cmd), median(sk)
			r, v := c.limit(mc, ms2)
			b.ReportMetric(ms(mc), "ms/median")
			b.ReportMetric(r, "x-skill")
			record(c.name+" at 100k", fmt.Sprintf("%.0f ms = %.1f× one skill call (%.2f ms)", ms(mc), r, ms(ms2)), c.target, v)
			if c.rss {
				mr := float64(median(rss)) / (1 << 20)
				b.ReportMetric(mr, "MB-rss")
				record("peak RSS of "+c.name+" at 100k", fmt.Sprintf("%.0f MB", mr), "< 300 MB", verdict(mr, 300))
			}
		})
	}
}

// BenchmarkBigDoc is each skill on a statement with a 100 KB proof and 300
// issues beside the same skill on a small one, interleaved.
func BenchmarkBigDoc(b *testing.B) {
	for _, c := range []struct{ skill, small, big string }{
		{"state-complete-proof", fxPending, "bigpending"},
		{"check-reject-proof", fxGap, "biggap"},
		{"fix-patch-proof", fxGap, "biggap"},
	} {
		b.Run(c.skill, func(b *testing.B) {
			e := setup(b)
			root := genStore(b, 0, map[string]int{c.small: b.N, c.big: b.N})
			sc := skillNamed(c.skill)
			want := map[string]string{"state-complete-proof": "awaiting_verification", "check-reject-proof": "has_gap"}
			var sm, bg []time.Duration
			b.ResetTimer()
			for i := range b.N {
				pair(i, func() { sm = append(sm, e.exec(b, sc.want, sc.on(root, c.small, i)...)) },
					func() {
						w, ok := want[c.skill]
						if !ok {
							w = "has_gap" // 299 issues stay open
						}
						bg = append(bg, e.exec(b, w, sc.on(root, c.big, i)...))
					})
			}
			b.StopTimer()
			ms1, mb := median(sm), median(bg)
			r := float64(mb) / float64(ms1)
			b.ReportMetric(r, "ratio")
			record(c.skill+": big (100 KB proof, 300 issues) vs small", fmt.Sprintf("%.2f vs %.2f ms: %.2f×", ms(mb), ms(ms1), r), "≤ 2×", verdict(r, 2))
		})
	}
}

var serialRate float64

// BenchmarkConcurrency is 8×b.N transactions, each on its own statement in
// one store, from N = 1, 8, 32 workers, each exec'ing one process after
// another, so that N processes contend for the store lock.
func BenchmarkConcurrency(b *testing.B) {
	for _, procs := range []int{1, 8, 32} {
		b.Run(fmt.Sprintf("procs=%d", procs), func(b *testing.B) {
			e := setup(b)
			n := 8 * b.N
			root := genStore(b, 0, map[string]int{fxGap: n})
			var next atomic.Int64
			var mu sync.Mutex
			var lat []time.Duration
			var errs []error
			b.ResetTimer()
			start := time.Now()
			var wg sync.WaitGroup
			for range procs {
				wg.Go(func() {
					for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
						_, s := storegen.Reserved(fxGap, i)
						d, _, err := execCheck(e.proofloop, "has_gap", reject(root, s)...)
						mu.Lock()
						lat = append(lat, d)
						if err != nil {
							errs = append(errs, err)
						}
						mu.Unlock()
					}
				})
			}
			wg.Wait()
			elapsed := time.Since(start)
			b.StopTimer()
			if len(errs) > 0 {
				b.Fatalf("%d of %d transactions failed; first: %v", len(errs), n, errs[0])
			}
			rate := float64(n) / elapsed.Seconds()
			b.ReportMetric(rate, "tx/s")
			b.ReportMetric(ms(median(lat)), "ms/median")
			measured := fmt.Sprintf("%.1f tx/s, latency median %.2f ms", rate, ms(median(lat)))
			target, v := "", ""
			if procs == 1 {
				serialRate = rate
			} else if serialRate > 0 {
				b.ReportMetric(rate/serialRate, "ratio-vs-serial")
				measured += fmt.Sprintf(", %.0f%% of serial", 100*rate/serialRate)
				target, v = "≥ 70% of serial", verdictRange(rate/serialRate, 0.7, 1e9)
			}
			record(fmt.Sprintf("throughput, %d processes", procs), measured, target, v)
		})
	}
}

func copyFile(b *testing.B, from, to string) {
	b.Helper()
	if out, err := execCommand("cp", from, to); err != nil {
		b.Fatalf("cp: %v: %s", err, out)
	}
}
