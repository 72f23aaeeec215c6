package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/proofloop/proofloop/bench/storegen"
	"github.com/proofloop/proofloop/bench/table"
)

// The benchmarks on the 100,000-statement store. This file sorts last so
// that they run last: they take most of make bench's time.

// BenchmarkStoreSize is the same transaction in a store of about ten
// documents (only the reserved items) and in the 100,000-statement store,
// interleaved.
func BenchmarkStoreSize(b *testing.B) {
	e := setup(b)
	big := bigStore(b)
	n := runs()
	small := genStore(b, 0, map[string]int{fxGap: n})
	var a, m []time.Duration
	for i := 0; b.Loop(); i++ {
		reserved(b, i, n)
		_, s := storegen.Reserved(fxGap, i)
		bs := nextBigGap(b)
		pair(i, func() { a = append(a, e.exec(b, "has_gap", reject(small, s)...)) },
			func() { m = append(m, e.exec(b, "has_gap", reject(big, bs)...)) })
	}
	ma, mb := median(a), median(m)
	r := float64(mb) / float64(ma)
	b.ReportMetric(ms(ma), "small-ms/median")
	b.ReportMetric(ms(mb), "100k-ms/median")
	b.ReportMetric(r, "ratio")
	table.Record("skill call at 100k statements vs at "+strconv.Itoa(2*n)+" documents", fmt.Sprintf("%.2f vs %.2f ms: %.2f×", ms(mb), ms(ma), r), "0.8-1.2×", table.Within(r, 0.8, 1.2))
}

// BenchmarkAt100k is each whole-store command at 100,000 statements, each
// run paired (interleaved) with one skill call on a fresh has_gap statement
// of the same store, and the peak RSS of status and doctor (measured in a
// second run of the command, see peakRSS).
func BenchmarkAt100k(b *testing.B) {
	cases := []struct {
		name   string
		args   []string
		target string
		limit  func(cmd, skill time.Duration) (float64, string)
		rss    bool
	}{
		{"next --role check --claim", []string{"--json", "next", "--role", "check", "--claim", "--holder", "bench"}, "≤ 3× one skill call",
			func(c, s time.Duration) (float64, string) { r := float64(c) / float64(s); return r, table.AtMost(r, 3) }, false},
		{"status --json (whole tree)", []string{"--json", "status"}, "≤ 0.5 s",
			func(c, s time.Duration) (float64, string) {
				return float64(c) / float64(s), table.AtMost(c.Seconds(), 0.5)
			}, true},
		{"status (whole tree, plain)", []string{"status"}, "≤ 1 s",
			func(c, s time.Duration) (float64, string) {
				return float64(c) / float64(s), table.AtMost(c.Seconds(), 1)
			}, true},
		// The routine check, from the point the full check below (or a
		// warm-up run) leaves: each paired skill call changes one statement.
		{"doctor (routine)", []string{"doctor"}, "≤ 0.5 s",
			func(c, s time.Duration) (float64, string) {
				return float64(c) / float64(s), table.AtMost(c.Seconds(), 0.5)
			}, true},
		{"doctor --full", []string{"doctor", "--full"}, "≤ 15 s",
			func(c, s time.Duration) (float64, string) {
				return float64(c) / float64(s), table.AtMost(c.Seconds(), 15)
			}, true},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			e := setup(b)
			big := bigStore(b)
			var cmd, sk []time.Duration
			var rss []int64
			if c.args[0] == "doctor" {
				// A verified point to start from: the first doctor of a
				// store has none and is the full check.
				if _, err := execCheck(e.proofloop, "", "--root", big, "doctor"); err != nil {
					b.Fatal(err)
				}
			}
			for i := 0; b.Loop(); i++ {
				reserved(b, i, runs())
				s := nextBigGap(b)
				pair(i, func() {
					args := append([]string{"--root", big}, c.args...)
					d, err := execCheck(e.proofloop, "", args...)
					if err != nil {
						b.Fatal(err)
					}
					cmd = append(cmd, d)
					if c.rss {
						rss = append(rss, peakRSS(b, e.proofloop, args...))
					}
				}, func() { sk = append(sk, e.exec(b, "has_gap", reject(big, s)...)) })
			}
			mc, ms2 := median(cmd), median(sk)
			r, v := c.limit(mc, ms2)
			b.ReportMetric(ms(mc), "ms/median")
			b.ReportMetric(r, "x-skill")
			table.Record(c.name+" at 100k", fmt.Sprintf("%.0f ms = %.1f× one skill call (%.2f ms)", ms(mc), r, ms(ms2)), c.target, v)
			if c.rss {
				mr := float64(median(rss)) / (1 << 20)
				b.ReportMetric(mr, "MB-rss")
				table.Record("peak RSS of "+c.name+" at 100k", fmt.Sprintf("%.0f MB", mr), "< 300 MB", table.AtMost(mr, 300))
			}
		})
	}
}

// peakRSS runs bin with args under GNU time and returns the peak RSS of
// the command, in bytes. Not wait4's ru_maxrss of our own child: Linux
// carries the RSS high-water mark of the process that forked across exec,
// so a child of this test process (which holds the generated store's
// templates and more) would report the test's size. GNU time is small.
func peakRSS(b *testing.B, bin string, args ...string) int64 {
	b.Helper()
	out := filepath.Join(b.TempDir(), "rss")
	cmd := exec.Command("/usr/bin/time", append([]string{"-f", "%M", "-o", out, bin}, args...)...)
	cmd.Env = cleanEnv
	if err := cmd.Run(); err != nil {
		b.Fatalf("/usr/bin/time %s %q: %v (GNU time is needed for the RSS figures: apt-get install time)", bin, args, err)
	}
	raw, err := os.ReadFile(out)
	kb, err2 := strconv.ParseInt(strings.TrimSpace(string(raw)), 10, 64)
	if err != nil || err2 != nil {
		b.Fatalf("peak RSS: got %q, %v, %v", raw, err, err2)
	}
	return kb * 1024
}
