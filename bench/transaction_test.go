package bench

import (
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/proofloop/proofloop/bench/storegen"
	"github.com/proofloop/proofloop/bench/table"
)

// reject is the measured transaction on a has_gap statement: it records
// one more issue and leaves the statement has_gap.
func reject(root, stmt string) []string { return skillNamed("check-reject-proof").argv(root, "", stmt) }

// floorSkills are the skill calls measured against the floor (issue 38):
// each on a fresh statement of the shape it acts on, small and big.
var floorSkills = []struct{ skill, small, big string }{
	{"check-reject-proof", fxGap, "biggap"},
	{"state-complete-proof", fxPending, "bigpending"},
	{"fix-patch-proof", fxGap, "biggap"},
}

// wantAfter is the status a skill of floorSkills leaves a statement of
// shape in: fix-patch-proof on a big one answers one of 300 issues.
func wantAfter(skill, shape string) string {
	switch {
	case skill == "state-complete-proof":
		return "awaiting_verification"
	case skill == "fix-patch-proof" && shape == fxGap:
		return "awaiting_verification"
	}
	return "has_gap"
}

// BenchmarkTransaction is each skill of floorSkills on a fresh statement,
// small and big, beside bench/minimal, which opens, reads, writes, fsyncs
// and renames a copy of the same file: interleaved, the order alternating.
func BenchmarkTransaction(b *testing.B) {
	for _, c := range floorSkills {
		for _, shape := range []string{c.small, c.big} {
			big := shape == c.big
			name := c.skill
			if big {
				name += "/big"
			}
			b.Run(name, func(b *testing.B) {
				e := setup(b)
				n := runs()
				root := genStore(b, 0, map[string]int{shape: n})
				plain := b.TempDir()
				files := make([]string, n)
				for i := range n {
					_, s := storegen.Reserved(shape, i)
					files[i] = filepath.Join(plain, s+".json")
					copyFile(b, filepath.Join(root, "statement", s+".json"), files[i])
				}
				sc := skillNamed(c.skill)
				var a, m []time.Duration
				for i := 0; b.Loop(); i++ {
					reserved(b, i, n)
					pair(i, func() { a = append(a, e.exec(b, wantAfter(c.skill, shape), sc.on(root, shape, i)...)) }, func() {
						d, err := execCheck(e.minimal, "", files[i])
						if err != nil {
							b.Fatal(err)
						}
						m = append(m, d)
					})
				}
				ma, mm := median(a), median(m)
				r := float64(ma) / float64(mm)
				b.ReportMetric(ms(ma), "ms/median")
				b.ReportMetric(ms(mm), "minimal-ms/median")
				b.ReportMetric(r, "ratio")
				figure, limit := floorFigure(c.skill, big)
				table.Record(figure, fmt.Sprintf("%.2f vs %.2f ms: %.2f×", ms(ma), ms(mm), r), fmt.Sprintf("≤ %.1f×", limit), table.AtMost(r, limit))
			})
		}
	}
}

// floorFigure names the row of skill against the floor, and its target
// (issue 38): twice the floor, two and a half times on a big statement.
func floorFigure(skill string, big bool) (string, float64) {
	if big {
		return "skill call (" + skill + ") on a big statement (100 KB proof, 300 issues) vs floor", 2.5
	}
	return "skill call (" + skill + ") vs floor (bench/minimal)", 2
}

// BenchmarkBigDoc is each skill on a statement with a 100 KB proof and 300
// issues beside the same skill on a small one, interleaved.
func BenchmarkBigDoc(b *testing.B) {
	for _, c := range floorSkills {
		b.Run(c.skill, func(b *testing.B) {
			e := setup(b)
			n := runs()
			root := genStore(b, 0, map[string]int{c.small: n, c.big: n})
			sc := skillNamed(c.skill)
			var sm, bg []time.Duration
			for i := 0; b.Loop(); i++ {
				reserved(b, i, n)
				pair(i, func() { sm = append(sm, e.exec(b, wantAfter(c.skill, c.small), sc.on(root, c.small, i)...)) },
					func() { bg = append(bg, e.exec(b, wantAfter(c.skill, c.big), sc.on(root, c.big, i)...)) })
			}
			ms1, mb := median(sm), median(bg)
			r := float64(mb) / float64(ms1)
			b.ReportMetric(r, "ratio")
			table.Record(c.skill+": big (100 KB proof, 300 issues) vs small", fmt.Sprintf("%.2f vs %.2f ms: %.2f×", ms(mb), ms(ms1), r), "≤ 1.5×", table.AtMost(r, 1.5))
		})
	}
}

var serialRate float64

// BenchmarkConcurrency is 8×runs() transactions, each on its own statement in
// one store, from N = 1, 8, 32 workers, each exec'ing one process after
// another, so that N processes contend for the store lock.
func BenchmarkConcurrency(b *testing.B) {
	for _, procs := range []int{1, 8, 32} {
		b.Run(fmt.Sprintf("procs=%d", procs), func(b *testing.B) {
			e := setup(b)
			n := 8 * runs()
			root := genStore(b, 0, map[string]int{fxGap: n})
			b.Loop() // once: the workers make the n calls
			rate, lat := rejectAll(b, e, root, n, procs)
			for b.Loop() {
			}
			b.ReportMetric(rate, "tx/s")
			b.ReportMetric(ms(median(lat)), "ms/median")
			measured := fmt.Sprintf("%.1f tx/s, latency median %.2f ms", rate, ms(median(lat)))
			target, v := "", ""
			if procs == 1 {
				serialRate = rate
			} else if serialRate > 0 {
				b.ReportMetric(rate/serialRate, "ratio-vs-serial")
				measured += fmt.Sprintf(", %.0f%% of serial", 100*rate/serialRate)
				target, v = "≥ 70% of serial", table.Within(rate/serialRate, 0.7, 1e9)
			}
			table.Record(fmt.Sprintf("throughput, %d processes", procs), measured, target, v)
		})
	}
}

func copyFile(b *testing.B, from, to string) {
	b.Helper()
	if out, err := execCommand("cp", from, to); err != nil {
		b.Fatalf("cp: %v: %s", err, out)
	}
}

// rejectAll makes check-reject-proof calls on the first n reserved has_gap
// statements of root, from procs workers that each exec one process after
// another, and returns the rate and every call's latency. extra are more
// flags for every call (--store).
func rejectAll(b *testing.B, e *env, root string, n, procs int, extra ...string) (float64, []time.Duration) {
	var next atomic.Int64
	var mu sync.Mutex
	var lat []time.Duration
	var errs []error
	start := time.Now()
	var wg sync.WaitGroup
	for range procs {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				_, s := storegen.Reserved(fxGap, i)
				d, err := execCheck(e.proofloop, "has_gap", append(reject(root, s), extra...)...)
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
	if len(errs) > 0 {
		b.Fatalf("%d of %d transactions failed; first: %v", len(errs), n, errs[0])
	}
	return float64(n) / elapsed.Seconds(), lat
}
