// Package bench measures proofloop through its real binary: every figure is
// the wall time of an exec'd process, as an agent sees it. Nothing here is a
// timed test (STYLE.md 12): the benchmarks report medians with
// b.ReportMetric and print a summary table at the end of the run. A
// benchmark fails only when a command does not do what it should (non-zero
// exit, wrong status), so no figure is of a refused command.
//
// Run: go test -run '^$' -bench . -benchtime 200x ./bench/ (see README.md).
//
// Every measured command acts on a fresh copy of a template document that
// the binary itself produced, so each starts from the same state and the
// figures do not drift as documents grow.
package bench

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/proofloop/proofloop/schemas"
)

// work holds this run's binaries, template root and small stores.
var work string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "proofloop-bench-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	work = dir
	code := m.Run()
	printSummary()
	os.RemoveAll(dir)
	os.Exit(code)
}

// The texts of the template documents.
const (
	claim     = "For every n >= 1, 1 + 3 + ... + (2n-1) = n^2."
	proofText = "Step 1: For n = 1 both sides are 1. Step 2: If the sum up to 2n-1 is n^2, adding 2n+1 gives (n+1)^2. Hence the claim holds for all n by induction."
)

// skillCase is one skill (or decide) run on a fresh copy of the template fx;
// in args, $P and $S stand for the copy's problem and wrap-up statement.
type skillCase struct {
	name, fx, want string // want: the status in the --json result
	args           []string
}

var skillCases = []skillCase{
	{"prob-wrapup-statement", fxProblem, "pending", []string{"--actor", "solver", "prob-wrapup-statement", "--problem-path", "$P",
		"--claim", claim, "--premises", "n is a positive integer", "--purpose", "This is the objective itself."}},
	{"prob-setup-subgoal", fxProblem, "pending", []string{"--actor", "solver", "prob-setup-subgoal", "--parent-problem-path", "$P",
		"--subproblem-objective", "Show n^2 + 2n + 1 = (n+1)^2.", "--subproblem-hypothesis", "n is an integer", "--rationale", "It is the inductive step."}},
	{"prob-finish-up", fxTrue, "solved", []string{"--actor", "solver", "prob-finish-up", "--problem-path", "$P", "--key-statement-id", "$S",
		"--resolution", "The wrap-up statement is the objective."}},
	{"state-complete-proof", fxPending, "awaiting_verification", []string{"--actor", "prover", "state-complete-proof", "--statement-path", "$S",
		"--strategy", "induction", "--proof-text", proofText}},
	{"state-setup-substatement", fxPending, "awaiting_substatements", []string{"--actor", "prover", "state-setup-substatement",
		"--parent-statement-path", "$S", "--rationale", "Base case and inductive step.",
		"--sub-statements", `[{"claim": "1 = 1^2.", "premises": []}, {"claim": "n^2 + 2n + 1 = (n+1)^2.", "premises": ["n is an integer"]}]`}},
	{"state-mark-false", fxPending, "false", []string{"--actor", "prover", "state-mark-false", "--statement-path", "$S", "--source", "prove",
		"--counterexample", "For n = 0 the sum is empty."}},
	{"state-propose-modification", fxPending, "needs_modification", []string{"--actor", "prover", "state-propose-modification",
		"--statement-path", "$S", "--source", "prove", "--modification-type", "strengthen_premises",
		"--suggested-premises", "n is an integer with n >= 1", "--rationale", "The claim needs n to be an integer."}},
	{"check-confirm-proof", fxAwaiting, "true", []string{"--actor", "checker", "check-confirm-proof", "--statement-path", "$S",
		"--verification-summary", "Checked both steps."}},
	// The transaction of BenchmarkTransaction, StoreSize and Concurrency:
	// on a has_gap statement it records one more issue and leaves it has_gap.
	{"check-reject-proof", fxGap, "has_gap", []string{"--actor", "checker", "check-reject-proof", "--statement-path", "$S",
		"--sentence-number", "2", "--sentence-text", "adding 2n+1 gives (n+1)^2", "--error-type", "unjustified_leap",
		"--explanation", "The identity n^2 + 2n + 1 = (n+1)^2 is used without being shown.", "--suggested-fix", "Expand (n+1)^2."}},
	{"fix-patch-proof", fxGap, "awaiting_verification", []string{"--actor", "fixer", "fix-patch-proof", "--statement-path", "$S",
		"--issue-number", "1", "--sentence-range", "2", "--change-description", "Justify the identity.",
		"--replacement-text", "Step 2: If the sum up to 2n-1 is n^2, adding 2n+1 gives n^2 + 2n + 1, which is (n+1)^2 by expanding the square."}},
	{"fix-create-substatement", fxGap, "awaiting_substatements", []string{"--actor", "fixer", "fix-create-substatement", "--statement-path", "$S",
		"--issue-number", "1", "--sub-claim", "For every integer n, n^2 + 2n + 1 = (n+1)^2.", "--gap-location", "2", "--purpose", "Justifies step 2."}},
	{"decide", fxModify, "pending", []string{"--actor", "human", "decide", "$S", "--accept", "--reason", "The integer premise is intended."}},
}

// The templates, named for the state of their wrap-up statement
// stmt_<name>_wrap, and the skills that make each from a new problem.
const (
	fxProblem  = "tpla" // a pending problem without statements
	fxPending  = "tplb" // pending
	fxAwaiting = "tplc" // awaiting_verification, proof by "prover"
	fxGap      = "tpld" // has_gap, issue 1 open at sentence 2
	fxTrue     = "tple" // true, in its problem's progresses
	fxModify   = "tplf" // needs_modification
)

var fixtureSteps = map[string][]string{
	fxProblem:  nil,
	fxPending:  {"prob-wrapup-statement"},
	fxAwaiting: {"prob-wrapup-statement", "state-complete-proof"},
	fxGap:      {"prob-wrapup-statement", "state-complete-proof", "check-reject-proof"},
	fxTrue:     {"prob-wrapup-statement", "state-complete-proof", "check-confirm-proof"},
	fxModify:   {"prob-wrapup-statement", "state-propose-modification"},
}

func skillNamed(name string) skillCase {
	i := slices.IndexFunc(skillCases, func(c skillCase) bool { return c.name == name })
	return skillCases[i]
}

// argv is the command line of c on the copy whose problem is p and whose
// wrap-up statement is s, in root, with --json.
func (c skillCase) argv(root, p, s string) []string {
	out := []string{"--root", root, "--json"}
	for _, a := range c.args {
		out = append(out, strings.NewReplacer("$P", p, "$S", s).Replace(a))
	}
	return out
}

// env is what every benchmark needs: the two binaries and the templates,
// each a map from root-relative path to content, every timestamp made
// constant so that the cache key of the large store is stable.
type env struct {
	proofloop, minimal string
	fixtures           map[string]map[string][]byte
	config             []byte // config.json as init writes it
}

var (
	envOnce sync.Once
	envVal  *env
	envErr  error
)

// setup builds the binaries and the templates, once per test process.
func setup(b *testing.B) *env {
	b.Helper()
	envOnce.Do(func() { envVal, envErr = newEnv() })
	if envErr != nil {
		b.Fatal(envErr)
	}
	return envVal
}

var timestampRe = regexp.MustCompile(`[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z`)

func newEnv() (*env, error) {
	e := &env{proofloop: filepath.Join(work, "bin", "proofloop"), minimal: filepath.Join(work, "bin", "minimal"), fixtures: map[string]map[string][]byte{}}
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	for bin, pkg := range map[string]string{e.proofloop: "./cmd/proofloop", e.minimal: "./bench/minimal"} {
		cmd := exec.Command(goTool, "build", "-o", bin, pkg)
		cmd.Dir = ".." // the module root
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
		}
	}
	root := filepath.Join(work, "templates")
	run := func(want string, args ...string) error {
		_, err := execCheck(e.proofloop, want, append([]string{"--root", root}, args...)...)
		return err
	}
	if err := run("", "init"); err != nil {
		return nil, err
	}
	for fx, steps := range fixtureSteps {
		if err := run("", "new-problem", "--name", fx, "--objective", claim); err != nil {
			return nil, err
		}
		for _, s := range steps {
			c := skillNamed(s)
			if err := run(c.want, c.argv(root, "prob_"+fx, "stmt_"+fx+"_wrap")...); err != nil {
				return nil, err
			}
		}
		paths, _ := filepath.Glob(filepath.Join(root, "statement", "stmt_"+fx+"_*.json"))
		e.fixtures[fx] = map[string][]byte{}
		for _, p := range append(paths, filepath.Join(root, "problem", "prob_"+fx+".json")) {
			raw, err := os.ReadFile(p)
			if err != nil {
				return nil, err
			}
			rel, _ := filepath.Rel(root, p)
			e.fixtures[fx][rel] = timestampRe.ReplaceAll(raw, []byte("2026-01-01T00:00:00Z"))
		}
	}
	e.config, err = os.ReadFile(filepath.Join(root, "config.json"))
	return e, err
}

// clone writes a copy of template fx into root, named fx+tag, and returns
// the ids of its problem and wrap-up statement.
func (e *env) clone(b *testing.B, root, fx, tag string) (prob, stmt string) {
	b.Helper()
	from, to := []byte("_"+fx), []byte("_"+fx+tag)
	for rel, raw := range e.fixtures[fx] {
		p := filepath.Join(root, strings.Replace(rel, fx, fx+tag, 1))
		if err := os.WriteFile(p, bytes.ReplaceAll(raw, from, to), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return "prob_" + fx + tag, "stmt_" + fx + tag + "_wrap"
}

// unclone removes a copy, and whatever the measured command created beside it.
func unclone(b *testing.B, root, name string) {
	b.Helper()
	paths, _ := filepath.Glob(filepath.Join(root, "statement", "stmt_"+name+"_*.json"))
	for _, p := range append(paths, filepath.Join(root, "problem", "prob_"+name+".json")) {
		if err := os.Remove(p); err != nil {
			b.Fatal(err)
		}
	}
}

// newStore makes a fresh contents root with the real binary.
func (e *env) newStore(b *testing.B) string {
	b.Helper()
	root := filepath.Join(b.TempDir(), "c")
	e.exec(b, "", "init", "--root", root)
	return root
}

// exec runs proofloop with args and returns its wall time; see execCheck.
func (e *env) exec(b *testing.B, want string, args ...string) time.Duration {
	b.Helper()
	d, err := execCheck(e.proofloop, want, args...)
	if err != nil {
		b.Fatal(err)
	}
	return d
}

// execCheck runs bin with args and returns its wall time. It fails unless
// the command exits 0 and, when want is not empty, prints a --json result
// with ok true and status want. Safe for concurrent use.
func execCheck(bin, want string, args ...string) (time.Duration, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr, cmd.Env = &stdout, &stderr, cleanEnv
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if err != nil {
		return d, fmt.Errorf("%s %q: %v\nstdout: %s\nstderr: %s", filepath.Base(bin), args, err, stdout.Bytes(), stderr.Bytes())
	}
	var out struct {
		OK     bool   `json:"ok"`
		Status string `json:"status"`
	}
	if want != "" && (json.Unmarshal(stdout.Bytes(), &out) != nil || !out.OK || out.Status != want) {
		return d, fmt.Errorf("%s %q: got %s; want ok with status %s", filepath.Base(bin), args, stdout.Bytes(), want)
	}
	return d, nil
}

// cleanEnv is the environment without PROOFLOOP_* variables: only the flags
// given decide what a command does.
var cleanEnv = slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "PROOFLOOP_") })

// reject is the measured transaction on a fresh has_gap statement.
func reject(root, stmt string) []string { return skillNamed("check-reject-proof").argv(root, "", stmt) }

func median(ds []time.Duration) time.Duration {
	s := slices.Sorted(slices.Values(ds))
	if len(s) == 0 {
		return 0
	}
	return (s[(len(s)-1)/2] + s[len(s)/2]) / 2
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// pair runs a and b in turn, the first of the pair alternating with i, so
// that machine noise and any order effect hit both alike.
func pair(i int, a, b func()) {
	if i%2 == 0 {
		a()
		b()
	} else {
		b()
		a()
	}
}

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

// BenchmarkSkill is the latency of each skill and of decide, each on a
// fresh copy of a template in a state the skill acts on.
func BenchmarkSkill(b *testing.B) {
	for _, c := range skillCases {
		b.Run(c.name, func(b *testing.B) {
			e := setup(b)
			root := e.newStore(b)
			args := make([][]string, b.N)
			for i := range b.N {
				p, s := e.clone(b, root, c.fx, "n"+strconv.Itoa(i))
				args[i] = c.argv(root, p, s)
			}
			syscall.Sync()
			ds := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := range b.N {
				ds = append(ds, e.exec(b, c.want, args[i]...))
			}
			b.StopTimer()
			b.ReportMetric(ms(median(ds)), "ms/median")
			record("skill "+c.name, fmt.Sprintf("%.2f ms", ms(median(ds))))
		})
	}
}

// summary keeps the last line each benchmark recorded (the run with the
// final b.N), printed as a table when the run ends.
var (
	summaryMu    sync.Mutex
	summary      = map[string]string{}
	summaryOrder []string
)

func record(name, line string) {
	summaryMu.Lock()
	defer summaryMu.Unlock()
	if _, ok := summary[name]; !ok {
		summaryOrder = append(summaryOrder, name)
	}
	summary[name] = line
}

func printSummary() {
	if len(summaryOrder) == 0 {
		return
	}
	fmt.Println("proofloop benchmark summary (medians of exec'd processes):")
	for _, name := range summaryOrder {
		fmt.Printf("  %-36s %s\n", name, summary[name])
	}
}
