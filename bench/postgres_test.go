package bench

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/proofloop/proofloop/bench/storegen"
	"github.com/proofloop/proofloop/internal/pgtest"
	"github.com/proofloop/proofloop/store/pgstore"
)

// cluster is the throwaway PostgreSQL cluster of BenchmarkStores, started
// on first use and removed by TestMain.
var cluster pgtest.Shared

// storeRates are the rates of BenchmarkStores, by store and processes, for
// the ratio rows.
var storeRates = map[string]float64{}

// BenchmarkStores runs the same transactions (check-reject-proof, each on
// its own statement) on the file store and on the PostgreSQL store of a
// local throwaway cluster, from 1, 8, 32 and 64 processes at once, and
// records each rate and its ratio PostgreSQL / file. At 1 process the
// median latency of a call is the skill latency of each store.
func BenchmarkStores(b *testing.B) {
	for _, procs := range []int{1, 8, 32, 64} {
		for _, kind := range []string{"file", "postgres"} {
			b.Run(fmt.Sprintf("%s/procs=%d", kind, procs), func(b *testing.B) {
				e := setup(b)
				n := max(8*runs(), 2*procs)
				root := genStore(b, 0, map[string]int{fxGap: n})
				var extra []string
				if kind == "postgres" {
					c, err := cluster.Get()
					if err != nil {
						b.Skipf("no PostgreSQL: %v", err)
					}
					dsn, err := c.CreateDB(fmt.Sprintf("bench_%d", procs))
					if err != nil {
						b.Fatal(err)
					}
					if err := pgstore.Migrate(dsn); err != nil {
						b.Fatal(err)
					}
					gen := root
					root = filepath.Join(b.TempDir(), "machine")
					if out, err := exec.Command(e.proofloop, "import", "--from", gen, "--store", dsn, "--root", root).CombinedOutput(); err != nil {
						b.Fatalf("import: %v\n%s", err, out)
					}
					extra = []string{"--store", dsn}
				}
				var next atomic.Int64
				var mu sync.Mutex
				var lat []time.Duration
				var errs []error
				b.Loop() // once: the workers make the n calls
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
				for b.Loop() {
				}
				if len(errs) > 0 {
					b.Fatalf("%d of %d transactions failed; first: %v", len(errs), n, errs[0])
				}
				rate := float64(n) / elapsed.Seconds()
				b.ReportMetric(rate, "tx/s")
				b.ReportMetric(ms(median(lat)), "ms/median")
				storeRates[fmt.Sprint(kind, procs)] = rate
				measured := fmt.Sprintf("%.1f tx/s, latency median %.1f ms", rate, ms(median(lat)))
				if f := storeRates[fmt.Sprint("file", procs)]; kind == "postgres" && f > 0 {
					measured += fmt.Sprintf("; %.2f× the file store's %.1f tx/s", rate/f, f)
				}
				record(fmt.Sprintf("%s store, %d processes on their own statements", kind, procs), measured, "", "")
			})
		}
	}
}
