package bench

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/proofloop/proofloop/schemas"
)

// BenchmarkTransaction is one check-reject-proof through the real binary
// beside bench/minimal rewriting a file of the same size (a copy of the
// same statement), interleaved. ns/op is one of each.
func BenchmarkTransaction(b *testing.B) {
	e := setup(b)
	root, plain := e.newStore(b), b.TempDir()
	stmts, files := make([]string, b.N), make([]string, b.N)
	for i := range b.N {
		_, stmts[i] = e.clone(b, root, fxGap, "n"+strconv.Itoa(i))
		raw, err := os.ReadFile(filepath.Join(root, "statement", stmts[i]+".json"))
		files[i] = filepath.Join(plain, stmts[i]+".json")
		if err == nil {
			err = os.WriteFile(files[i], raw, 0o644)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	syscall.Sync()
	var a, m []time.Duration
	b.ResetTimer()
	for i := range b.N {
		pair(i, func() { a = append(a, e.exec(b, "has_gap", reject(root, stmts[i])...)) }, func() {
			d, err := execCheck(e.minimal, "", files[i])
			if err != nil {
				b.Fatal(err)
			}
			m = append(m, d)
		})
	}
	b.StopTimer()
	ma, mm := median(a), median(m)
	b.ReportMetric(ms(ma), "ms/median")
	b.ReportMetric(ms(mm), "minimal-ms/median")
	b.ReportMetric(float64(ma)/float64(mm), "ratio")
	record("transaction", fmt.Sprintf("check-reject-proof %.2f ms, minimal %.2f ms, ratio %.2f (target <= 2)", ms(ma), ms(mm), float64(ma)/float64(mm)))
}

// bigStatements is the size of the large store of BenchmarkStoreSize.
const bigStatements = 100_000

// BenchmarkStoreSize is the transaction in a store of 10 statements and in
// one of 100,000, interleaved. Before each pair a fresh has_gap statement
// (the 10th, the 100,000th) is copied into both and the previous one
// removed, so each store holds exactly its count while it is measured.
func BenchmarkStoreSize(b *testing.B) {
	e := setup(b)
	small, big := e.newStore(b), e.bigStore(b)
	e.fill(b, small, 10-1)
	// An interrupted run may have left its measured copy in the cache.
	stale, _ := filepath.Glob(filepath.Join(big, "*", "*_"+fxGap+"m*.json"))
	for _, p := range stale {
		os.Remove(p)
	}
	if n := countStatements(b, big); n != bigStatements-1 {
		b.Fatalf("the large store holds %d statements before the measured one; want %d", n, bigStatements-1)
	}
	for _, root := range []string{small, big} { // the same empty log in both
		if err := os.WriteFile(filepath.Join(root, "events.jsonl"), nil, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	var a, m []time.Duration
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		tag := "m" + strconv.Itoa(i)
		_, stmt := e.clone(b, small, fxGap, tag)
		e.clone(b, big, fxGap, tag)
		if i > 0 {
			unclone(b, small, fxGap+"m"+strconv.Itoa(i-1))
			unclone(b, big, fxGap+"m"+strconv.Itoa(i-1))
		}
		syscall.Sync()
		b.StartTimer()
		pair(i, func() { a = append(a, e.exec(b, "has_gap", reject(small, stmt)...)) },
			func() { m = append(m, e.exec(b, "has_gap", reject(big, stmt)...)) })
	}
	b.StopTimer()
	unclone(b, big, fxGap+"m"+strconv.Itoa(b.N-1)) // the cache keeps only its fillers
	ma, mb := median(a), median(m)
	b.ReportMetric(ms(ma), "10stmts-ms/median")
	b.ReportMetric(ms(mb), "100kstmts-ms/median")
	b.ReportMetric(float64(mb)/float64(ma), "ratio")
	record("store size", fmt.Sprintf("10 statements %.2f ms, 100,000 statements %.2f ms, ratio %.2f (target 0.8-1.2)", ms(ma), ms(mb), float64(mb)/float64(ma)))
}

// fill adds n pending wrap-up statements to root, 100 per problem, each the
// template's bytes with new ids. The problems are schema-checked, and so is
// every 1000th statement.
func (e *env) fill(b *testing.B, root string, n int) {
	b.Helper()
	stmtTpl := e.fixtures[fxPending][filepath.Join("statement", "stmt_"+fxPending+"_wrap.json")]
	var prob map[string]any
	if err := json.Unmarshal(e.fixtures[fxProblem][filepath.Join("problem", "prob_"+fxProblem+".json")], &prob); err != nil {
		b.Fatal(err)
	}
	write := func(kind schemas.Kind, id string, raw []byte, check bool) {
		if check {
			if err := schemas.Validate(kind, raw); err != nil {
				b.Fatalf("generated %s: %v", id, err)
			}
		}
		if err := os.WriteFile(filepath.Join(root, string(kind), id+".json"), raw, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for j := 0; j*100 < n; j++ {
		pid := fmt.Sprintf("prob_fill%04d", j)
		var progresses []string
		for k := 1; k <= 100 && j*100+k <= n; k++ {
			sid := fmt.Sprintf("stmt_fill%04d_wrap", j)
			if k > 1 {
				sid += strconv.Itoa(k)
			}
			progresses = append(progresses, sid)
			raw := bytes.ReplaceAll(stmtTpl, []byte(`"stmt_`+fxPending+`_wrap"`), []byte(strconv.Quote(sid)))
			write(schemas.Statement, sid, bytes.ReplaceAll(raw, []byte(`"prob_`+fxPending+`"`), []byte(strconv.Quote(pid))), (j*100+k)%1000 == 1)
		}
		prob["id"], prob["progresses"] = pid, progresses
		raw, err := json.MarshalIndent(prob, "", "  ")
		if err != nil {
			b.Fatal(err)
		}
		write(schemas.Problem, pid, raw, true)
	}
}

// bigStore returns the cached root of bigStatements-1 filler statements
// under $TMPDIR/proofloop-bench-cache, generating it when it is missing or
// was made from other templates, config or schemas than the current ones.
func (e *env) bigStore(b *testing.B) string {
	b.Helper()
	h := sha256.New()
	for _, part := range [][]byte{e.config, e.fixtures[fxPending][filepath.Join("statement", "stmt_"+fxPending+"_wrap.json")],
		e.fixtures[fxProblem][filepath.Join("problem", "prob_"+fxProblem+".json")], schemas.Source(schemas.Statement), schemas.Source(schemas.Problem)} {
		h.Write(part)
	}
	cache := filepath.Join(os.TempDir(), "proofloop-bench-cache")
	dir := filepath.Join(cache, fmt.Sprintf("store%d-%s", bigStatements, hex.EncodeToString(h.Sum(nil))[:12]))
	root := filepath.Join(dir, "c")
	if _, err := os.Stat(filepath.Join(dir, "complete")); err == nil {
		return root
	}
	old, _ := filepath.Glob(filepath.Join(cache, fmt.Sprintf("store%d-*", bigStatements)))
	for _, o := range old { // stale caches hold 100,000 files each
		os.RemoveAll(o)
	}
	start := time.Now()
	e.exec(b, "", "init", "--root", root)
	e.fill(b, root, bigStatements-1)
	syscall.Sync()
	if err := os.WriteFile(filepath.Join(dir, "complete"), nil, 0o644); err != nil {
		b.Fatal(err)
	}
	b.Logf("generated %d statements in %s in %v", bigStatements-1, root, time.Since(start).Round(time.Second))
	return root
}

func countStatements(b *testing.B, root string) int {
	b.Helper()
	f, err := os.Open(filepath.Join(root, "statement"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		b.Fatal(err)
	}
	return len(names)
}

// serialRate is the tx/s of BenchmarkConcurrency/procs=1, for the ratio.
var serialRate float64

// BenchmarkConcurrency runs b.N transactions, each on its own has_gap
// statement of one store, from 1, 8 and 32 workers that each exec one
// proofloop process after another, so that that many processes contend for
// the store's lock. It reports the throughput, and for 8 and 32 workers
// the throughput as a fraction of the serial one.
func BenchmarkConcurrency(b *testing.B) {
	for _, procs := range []int{1, 8, 32} {
		b.Run(fmt.Sprintf("procs=%d", procs), func(b *testing.B) {
			e := setup(b)
			root := e.newStore(b)
			stmts := make([]string, b.N)
			for i := range b.N {
				_, stmts[i] = e.clone(b, root, fxGap, "n"+strconv.Itoa(i))
			}
			syscall.Sync()
			var next atomic.Int64
			var mu sync.Mutex
			var lat []time.Duration
			var errs []error
			b.ResetTimer()
			start := time.Now()
			var wg sync.WaitGroup
			for range procs {
				wg.Go(func() {
					for i := int(next.Add(1)) - 1; i < len(stmts); i = int(next.Add(1)) - 1 {
						d, err := execCheck(e.proofloop, "has_gap", reject(root, stmts[i])...)
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
				b.Fatalf("%d of %d transactions failed; first: %v", len(errs), b.N, errs[0])
			}
			rate := float64(b.N) / elapsed.Seconds()
			b.ReportMetric(rate, "tx/s")
			b.ReportMetric(ms(median(lat)), "ms/median")
			line := fmt.Sprintf("%.1f tx/s, latency median %.2f ms", rate, ms(median(lat)))
			if procs == 1 {
				serialRate = rate
			} else if serialRate > 0 {
				b.ReportMetric(rate/serialRate, "ratio-vs-serial")
				line += fmt.Sprintf(", %.0f%% of serial (target >= 70%%)", 100*rate/serialRate)
			}
			record(fmt.Sprintf("concurrency procs=%d", procs), line)
		})
	}
}
