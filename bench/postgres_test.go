package bench

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/proofloop/proofloop/bench/storegen"
	"github.com/proofloop/proofloop/bench/table"
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
					dsn, err := c.CreateMigratedDB(fmt.Sprintf("bench_%d", procs))
					if err != nil {
						b.Fatal(err)
					}
					gen := root
					root = filepath.Join(b.TempDir(), "machine")
					if out, err := exec.Command(e.proofloop, "import", "--from", gen, "--store", dsn, "--root", root).CombinedOutput(); err != nil {
						b.Fatalf("import: %v\n%s", err, out)
					}
					extra = []string{"--store", dsn}
				}
				b.Loop() // once: the workers make the n calls
				rate, lat := rejectAll(b, e, root, n, procs, extra...)
				for b.Loop() {
				}
				b.ReportMetric(rate, "tx/s")
				b.ReportMetric(ms(median(lat)), "ms/median")
				storeRates[fmt.Sprint(kind, procs)] = rate
				measured := fmt.Sprintf("%.1f tx/s, latency median %.1f ms", rate, ms(median(lat)))
				if f := storeRates[fmt.Sprint("file", procs)]; kind == "postgres" && f > 0 {
					measured += fmt.Sprintf("; %.2f× the file store's %.1f tx/s", rate/f, f)
				}
				table.Record(fmt.Sprintf("%s store, %d processes on their own statements", kind, procs), measured, "", "")
			})
		}
	}
}

// BenchmarkStoreLatency is the serial latency of one check-reject-proof on
// the PostgreSQL store of a local throwaway cluster against the file
// store, the calls interleaved (the first of each pair alternating), so
// that the machine's noise hits both alike: the ratio of the medians.
func BenchmarkStoreLatency(b *testing.B) {
	e := setup(b)
	n := runs()
	root := genStore(b, 0, map[string]int{fxGap: n})
	c, err := cluster.Get()
	if err != nil {
		b.Skipf("no PostgreSQL: %v", err)
	}
	dsn, err := c.CreateMigratedDB("bench_latency")
	if err != nil {
		b.Fatal(err)
	}
	pgRoot := filepath.Join(b.TempDir(), "machine")
	// One more item than the timed calls: the traced call of the
	// statements row acts on it.
	if out, err := exec.Command(e.proofloop, "import", "--from", genStore(b, 0, map[string]int{fxGap: n + 1}), "--store", dsn, "--root", pgRoot).CombinedOutput(); err != nil {
		b.Fatalf("import: %v\n%s", err, out)
	}
	var df, dp []time.Duration
	for i := 0; b.Loop(); i++ {
		reserved(b, i, n)
		_, s := storegen.Reserved(fxGap, i)
		pair(i, func() { df = append(df, e.exec(b, "has_gap", reject(root, s)...)) },
			func() { dp = append(dp, e.exec(b, "has_gap", append(reject(pgRoot, s), "--store", dsn)...)) })
	}
	mf, mp := median(df), median(dp)
	r := ms(mp) / ms(mf)
	b.ReportMetric(ms(mp), "ms-pg/median")
	b.ReportMetric(ms(mf), "ms-file/median")
	table.Record("skill call (check-reject-proof) on PostgreSQL vs the file store, serial", fmt.Sprintf("%.2f vs %.2f ms: %.2f×", ms(mp), ms(mf), r), "≤ 1.3×", table.AtMost(r, 1.3))
	statementsPerCall(b, e, pgRoot, dsn, n)
}

// statementsPerCall records the statements and round trips one
// check-reject-proof sends to PostgreSQL, counted by the binary's own
// tracer (pgstore.TraceEnv), and how many round trips carry its writes
// (the commit): e2e's TestStatementsPerCallPostgres holds them.
func statementsPerCall(b *testing.B, e *env, root, dsn string, item int) {
	trace := filepath.Join(b.TempDir(), "trace.jsonl")
	_, s := storegen.Reserved(fxGap, item)
	cmd := exec.Command(e.proofloop, append(reject(root, s), "--store", dsn)...)
	cmd.Env = append(cleanEnv, pgstore.TraceEnv+"="+trace)
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("traced check-reject-proof: %v\n%s", err, out)
	}
	tr, err := pgstore.ReadTrace(trace)
	if err != nil {
		b.Fatal(err)
	}
	statements, trips, writing := tr.Statements(), len(tr.RoundTrips), 0
	for _, rt := range tr.RoundTrips {
		if slices.ContainsFunc(rt, pgstore.Writes) {
			writing++
		}
	}
	v := "met"
	if statements > 10 || writing > 1 {
		v = "missed"
	}
	table.Record("PostgreSQL statements (round trips) per skill call; round trips that write", fmt.Sprintf("%d (%d); %d", statements, trips, writing), "≤ 10; 1", v)
}
