package bench

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/proofloop/proofloop/bench/storegen"
	"github.com/proofloop/proofloop/bench/table"
)

// BenchmarkStart is `proofloop version` beside a hello-world Go binary,
// interleaved: what the process start and package init cost before a
// command does anything.
func BenchmarkStart(b *testing.B) {
	e := setup(b)
	hello := filepath.Join(b.TempDir(), "hello")
	cmd := exec.Command("go", "build", "-o", hello, "./bench/hello")
	cmd.Dir = ".."
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build ./bench/hello: %v\n%s", err, out)
	}
	var p, h []time.Duration
	for i := 0; b.Loop(); i++ {
		pair(i, func() { p = append(p, e.exec(b, "", "version")) }, func() {
			d, err := execCheck(hello, "")
			if err != nil {
				b.Fatal(err)
			}
			h = append(h, d)
		})
	}
	mp, mh := median(p), median(h)
	r := float64(mp) / float64(mh)
	b.ReportMetric(r, "ratio")
	table.Record("proofloop version vs a hello-world Go binary", fmt.Sprintf("%.2f vs %.2f ms: %.2f×", ms(mp), ms(mh), r), "≤ 1.5×", table.AtMost(r, 1.5))
}

var syncRe = regexp.MustCompile(`(?m)^\s*[0-9.]+\s+[0-9.]+\s+[0-9]+\s+([0-9]+)\s+(?:[0-9]+\s+)?(fsync|fdatasync)\s*$`)

// BenchmarkSyncs counts the fsync and fdatasync calls of one
// check-reject-proof with strace (skipped where strace is missing). The
// first call of a store creates its write-ahead log, so it is left out.
func BenchmarkSyncs(b *testing.B) {
	e := setup(b)
	strace, err := exec.LookPath("strace")
	if err != nil {
		b.Skip("strace is not installed")
	}
	n := 2
	root := genStore(b, 0, map[string]int{fxGap: n})
	counts := map[string]int{}
	for i := range n {
		_, s := storegen.Reserved(fxGap, i)
		args := append([]string{"-f", "-c", "-e", "trace=fsync,fdatasync", e.proofloop}, reject(root, s)...)
		out, err := exec.Command(strace, args...).CombinedOutput()
		if err != nil {
			b.Fatalf("strace: %v\n%s", err, out)
		}
		if i == n-1 {
			for _, m := range syncRe.FindAllStringSubmatch(string(out), -1) {
				c, _ := strconv.Atoi(m[1])
				counts[m[2]] += c
			}
		}
	}
	for b.Loop() {
	}
	total := counts["fsync"] + counts["fdatasync"]
	table.Record("syncs in one check-reject-proof", fmt.Sprintf("%d fsync + %d fdatasync", counts["fsync"], counts["fdatasync"]), "1-2", table.AtMost(float64(total), 2))
}
