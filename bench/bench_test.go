// Package bench measures proofloop through its real binary: every figure is
// the wall time of an exec'd process, as an agent sees it. There are no
// timed tests here (STYLE.md 12): the benchmarks report medians with
// b.ReportMetric and print a summary table; nothing fails because the
// machine is slow. A benchmark fails only when a command does not do what
// it should (non-zero exit, wrong status), so the figures are never of
// commands that were refused.
//
// Run: go test -run '^$' -bench . -benchtime 200x ./bench/
//
// Each benchmark acts on fresh documents cloned from templates that the
// binary itself produced, so every measured command starts from the same
// state and the figures do not drift as documents grow.
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

// work holds this run's binaries, template store and stores.
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

// env is what every benchmark needs: the two binaries and the templates.
type env struct {
	proofloop, minimal string
	fixtures           map[string]*fixture
	config             []byte // config.json as init writes it
}

var (
	envOnce sync.Once
	envVal  *env
	envErr  error
)

// setup builds the binaries and the templates once per test process.
func setup(b *testing.B) *env {
	b.Helper()
	envOnce.Do(func() { envVal, envErr = newEnv() })
	if envErr != nil {
		b.Fatal(envErr)
	}
	return envVal
}

func newEnv() (*env, error) {
	e := &env{proofloop: filepath.Join(work, "bin", "proofloop"), minimal: filepath.Join(work, "bin", "minimal")}
	for bin, pkg := range map[string]string{
		e.proofloop: "github.com/proofloop/proofloop/cmd/proofloop",
		e.minimal:   "github.com/proofloop/proofloop/bench/minimal",
	} {
		out, err := exec.Command(goTool(), "build", "-o", bin, pkg).CombinedOutput()
		if err != nil {
			return nil, fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
		}
	}
	if err := e.buildFixtures(filepath.Join(work, "templates")); err != nil {
		return nil, err
	}
	return e, nil
}

func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(runtime.GOROOT(), "bin", "go")
}

// Texts of the template documents.
const (
	objective = "For every integer n >= 1, the sum of the first n odd numbers, 1 + 3 + ... + (2n-1), equals n^2."
	claim     = "For every n >= 1, 1 + 3 + ... + (2n-1) = n^2."
	proofText = "Step 1: For n = 1 both sides are 1. Step 2: If the sum up to 2n-1 is n^2, adding 2n+1 gives (n+1)^2. Hence the claim holds for all n by induction."
)

// fixture is the set of files of one template problem and its statements,
// keyed by root-relative path, with every timestamp made constant.
type fixture struct {
	name  string // the template problem's name: prob_<name>, stmt_<name>_wrap
	files map[string][]byte
}

// The templates, by the state they leave their wrap-up statement in.
const (
	fxProblem  = "pp" // a pending problem without statements
	fxPending  = "sp" // stmt_<name>_wrap pending
	fxAwaiting = "sa" // ... awaiting_verification (proof by prover)
	fxGap      = "sg" // ... has_gap with open issue 1 at sentence 2
	fxTrue     = "st" // ... true, listed in the problem's progresses
	fxModify   = "sm" // ... needs_modification
)

// buildFixtures runs the binary through one scenario per template in a
// scratch root and keeps the files it wrote.
func (e *env) buildFixtures(dir string) error {
	root := filepath.Join(dir, "c")
	names := map[string]string{fxProblem: "tpla", fxPending: "tplb", fxAwaiting: "tplc", fxGap: "tpld", fxTrue: "tple", fxModify: "tplf"}
	steps := [][]string{{"init"}}
	for _, fx := range []string{fxProblem, fxPending, fxAwaiting, fxGap, fxTrue, fxModify} {
		n := names[fx]
		p, s := "prob_"+n, "stmt_"+n+"_wrap"
		steps = append(steps, []string{"new-problem", "--name", n, "--objective", objective, "--hypothesis", "n is an integer with n >= 1"})
		if fx == fxProblem {
			continue
		}
		steps = append(steps, []string{"prob-wrapup-statement", "--problem-path", p, "--claim", claim, "--premises", "n is a positive integer", "--purpose", "This is the objective itself."})
		switch fx {
		case fxAwaiting, fxGap, fxTrue:
			steps = append(steps, []string{"--actor", "prover", "state-complete-proof", "--statement-path", s, "--strategy", "induction", "--proof-text", proofText})
		case fxModify:
			steps = append(steps, []string{"--actor", "prover", "state-propose-modification", "--statement-path", s, "--source", "prove",
				"--modification-type", "strengthen_premises", "--suggested-premises", "n is an integer with n >= 1", "--rationale", "The claim needs n to be an integer."})
		}
		switch fx {
		case fxGap:
			steps = append(steps, rejectArgs(s))
		case fxTrue:
			steps = append(steps, []string{"--actor", "checker", "check-confirm-proof", "--statement-path", s, "--verification-summary", "Checked both steps."})
		}
	}
	for _, args := range steps {
		if out, err := exec.Command(e.proofloop, append([]string{"--root", root}, args...)...).CombinedOutput(); err != nil {
			return fmt.Errorf("template step proofloop %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	var err error
	if e.config, err = os.ReadFile(filepath.Join(root, "config.json")); err != nil {
		return err
	}
	e.fixtures = map[string]*fixture{}
	for fx, n := range names {
		f := &fixture{name: n, files: map[string][]byte{}}
		paths, _ := filepath.Glob(filepath.Join(root, "statement", "stmt_"+n+"_*.json"))
		for _, p := range append(paths, filepath.Join(root, "problem", "prob_"+n+".json")) {
			raw, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			f.files[rel] = timestampRe.ReplaceAll(raw, []byte("2026-01-01T00:00:00Z"))
		}
		e.fixtures[fx] = f
	}
	return nil
}

var timestampRe = regexp.MustCompile(`[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z`)

// clone writes a copy of a template into root under a new name, the
// template's name followed by tag, and returns the problem and wrap-up
// statement ids of the copy.
func (e *env) clone(b *testing.B, root, fx, tag string) (prob, stmt string) {
	b.Helper()
	f := e.fixtures[fx]
	from, to := []byte("_"+f.name), []byte("_"+f.name+tag)
	for rel, raw := range f.files {
		p := filepath.Join(root, strings.Replace(rel, f.name, f.name+tag, 1))
		if err := os.WriteFile(p, bytes.ReplaceAll(raw, from, to), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return "prob_" + f.name + tag, "stmt_" + f.name + tag + "_wrap"
}

// unclone removes a copy written by clone, and whatever the measured command
// created next to it.
func (e *env) unclone(b *testing.B, root, fx, tag string) {
	b.Helper()
	n := e.fixtures[fx].name + tag
	paths, _ := filepath.Glob(filepath.Join(root, "statement", "stmt_"+n+"_*.json"))
	for _, p := range append(paths, filepath.Join(root, "problem", "prob_"+n+".json")) {
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

// exec runs the binary with args and returns its wall time. It fails the
// benchmark unless the command succeeds and, when want is not empty,
// prints --json output whose status is want.
func (e *env) exec(b *testing.B, want string, args ...string) time.Duration {
	b.Helper()
	d, err := execCheck(e.proofloop, want, args...)
	if err != nil {
		b.Fatal(err)
	}
	return d
}

// execCheck is exec without the testing.B, for use from goroutines.
func execCheck(bin, want string, args ...string) (time.Duration, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Env = cleanEnv
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if err != nil {
		return d, fmt.Errorf("%s %s: %v\nstdout: %s\nstderr: %s", filepath.Base(bin), strings.Join(args, " "), err, stdout.Bytes(), stderr.Bytes())
	}
	if want == "" {
		return d, nil
	}
	var out struct {
		OK     bool   `json:"ok"`
		Status string `json:"status"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil || !out.OK || out.Status != want {
		return d, fmt.Errorf("%s %s: got %s; want ok with status %s", filepath.Base(bin), strings.Join(args, " "), stdout.Bytes(), want)
	}
	return d, nil
}

// cleanEnv is the environment without PROOFLOOP_* variables, so that only
// the flags given decide what a command does.
var cleanEnv = func() []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PROOFLOOP_") {
			out = append(out, kv)
		}
	}
	return out
}()

// rejectArgs records issue 1 at sentence 2 of the template proof: on a
// has_gap statement it leaves it has_gap, so it can be repeated forever.
func rejectArgs(stmt string) []string {
	return []string{"--actor", "checker", "check-reject-proof", "--statement-path", stmt,
		"--sentence-number", "2", "--sentence-text", "adding 2n+1 gives (n+1)^2", "--error-type", "unjustified_leap",
		"--explanation", "The identity n^2 + 2n + 1 = (n+1)^2 is used without being shown.", "--suggested-fix", "Expand (n+1)^2."}
}

// reject is the transaction of benchmarks 1-3 on a fresh has_gap statement.
func reject(root, stmt string) []string {
	return append([]string{"--root", root, "--json"}, rejectArgs(stmt)...)
}

func syncAll() { syscall.Sync() }

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// BenchmarkTransaction is one check-reject-proof through the real binary (A)
// beside bench/minimal rewriting a file of the same size (B), exec'd
// alternately A, B, A, B... so that machine noise hits both. ns/op is the
// time of one A plus one B; the figures are the medians and their ratio.
func BenchmarkTransaction(b *testing.B) {
	e := setup(b)
	root := e.newStore(b)
	plain := b.TempDir()
	stmts, files := make([]string, b.N), make([]string, b.N)
	for i := range b.N {
		_, stmts[i] = e.clone(b, root, fxGap, "n"+strconv.Itoa(i))
		raw, err := os.ReadFile(filepath.Join(root, "statement", stmts[i]+".json"))
		if err != nil {
			b.Fatal(err)
		}
		files[i] = filepath.Join(plain, stmts[i]+".json")
		if err := os.WriteFile(files[i], raw, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	syncAll()
	var a, m []time.Duration
	b.ResetTimer()
	for i := range b.N {
		a = append(a, e.exec(b, "has_gap", reject(root, stmts[i])...))
		d, err := execCheck(e.minimal, "", files[i])
		if err != nil {
			b.Fatal(err)
		}
		m = append(m, d)
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

// BenchmarkStoreSize is the transaction of BenchmarkTransaction in a store
// of 10 statements (A) and one of 100,000 (B), alternately. Before each
// pair a fresh has_gap statement is written into both stores and the
// previous one removed, so each store holds exactly its number of
// statements while it is measured. The large store is generated once and
// cached under $TMPDIR/proofloop-bench-cache.
func BenchmarkStoreSize(b *testing.B) {
	e := setup(b)
	small := e.newStore(b)
	e.fill(b, small, 10-1)
	big := e.bigStore(b)
	// A run that was interrupted may have left its measured copy behind.
	stale, _ := filepath.Glob(filepath.Join(big, "*", "*_"+e.fixtures[fxGap].name+"m*.json"))
	for _, p := range stale {
		os.Remove(p)
	}
	for _, root := range []string{small, big} {
		// Each benchmark run starts with an empty log, the same in both.
		if err := os.WriteFile(filepath.Join(root, "events.jsonl"), nil, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	if n := countStatements(b, big); n != bigStatements-1 {
		b.Fatalf("the large store holds %d statements before the measured one; want %d", n, bigStatements-1)
	}
	var a, m []time.Duration
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		tag := "m" + strconv.Itoa(i)
		_, stmt := e.clone(b, small, fxGap, tag)
		e.clone(b, big, fxGap, tag)
		if i > 0 {
			prev := "m" + strconv.Itoa(i-1)
			e.unclone(b, small, fxGap, prev)
			e.unclone(b, big, fxGap, prev)
		}
		syncAll()
		b.StartTimer()
		a = append(a, e.exec(b, "has_gap", reject(small, stmt)...))
		m = append(m, e.exec(b, "has_gap", reject(big, stmt)...))
	}
	b.StopTimer()
	last := "m" + strconv.Itoa(b.N-1)
	e.unclone(b, small, fxGap, last)
	e.unclone(b, big, fxGap, last) // the cached store goes back to its fillers
	ma, mb := median(a), median(m)
	b.ReportMetric(ms(ma), "10stmts-ms/median")
	b.ReportMetric(ms(mb), "100kstmts-ms/median")
	b.ReportMetric(float64(mb)/float64(ma), "ratio")
	record("store size", fmt.Sprintf("10 statements %.2f ms, 100,000 statements %.2f ms, ratio %.2f (target 0.8-1.2)", ms(ma), ms(mb), float64(mb)/float64(ma)))
}

// fill adds n pending wrap-up statements to root, 100 per problem, as the
// binary would have written them (the template's bytes with new ids). The
// problems are schema-checked, and so is every 1000th statement.
func (e *env) fill(b *testing.B, root string, n int) {
	b.Helper()
	stmtTpl := e.fixtures[fxPending].files[filepath.Join("statement", "stmt_tplb_wrap.json")]
	var probTpl map[string]any
	if err := json.Unmarshal(e.fixtures[fxProblem].files[filepath.Join("problem", "prob_tpla.json")], &probTpl); err != nil {
		b.Fatal(err)
	}
	const perProblem = 100
	for j := 0; j*perProblem < n; j++ {
		prob := fmt.Sprintf("prob_fill%04d", j)
		var progresses []string
		for k := 1; k <= perProblem && j*perProblem+k <= n; k++ {
			stmt := fmt.Sprintf("stmt_fill%04d_wrap", j)
			if k > 1 {
				stmt += strconv.Itoa(k)
			}
			progresses = append(progresses, stmt)
			raw := bytes.ReplaceAll(stmtTpl, []byte(`"stmt_tplb_wrap"`), []byte(strconv.Quote(stmt)))
			raw = bytes.ReplaceAll(raw, []byte(`"prob_tplb"`), []byte(strconv.Quote(prob)))
			if (j*perProblem+k)%1000 == 1 {
				if err := schemas.Validate(schemas.Statement, raw); err != nil {
					b.Fatalf("generated %s: %v", stmt, err)
				}
			}
			if err := os.WriteFile(filepath.Join(root, "statement", stmt+".json"), raw, 0o644); err != nil {
				b.Fatal(err)
			}
		}
		probTpl["id"], probTpl["progresses"] = prob, progresses
		raw, err := json.MarshalIndent(probTpl, "", "  ")
		if err != nil {
			b.Fatal(err)
		}
		if err := schemas.Validate(schemas.Problem, raw); err != nil {
			b.Fatalf("generated %s: %v", prob, err)
		}
		if err := os.WriteFile(filepath.Join(root, "problem", prob+".json"), raw, 0o644); err != nil {
			b.Fatal(err)
		}
	}
}

// bigStore returns the cached store of bigStatements-1 filler statements,
// generating it when it is missing or was made from other templates,
// config or schemas than this binary's.
func (e *env) bigStore(b *testing.B) string {
	b.Helper()
	h := sha256.New()
	h.Write(e.config)
	h.Write(e.fixtures[fxPending].files[filepath.Join("statement", "stmt_tplb_wrap.json")])
	h.Write(e.fixtures[fxProblem].files[filepath.Join("problem", "prob_tpla.json")])
	h.Write(schemas.Source(schemas.Statement))
	h.Write(schemas.Source(schemas.Problem))
	key := hex.EncodeToString(h.Sum(nil))[:12]
	cache := filepath.Join(os.TempDir(), "proofloop-bench-cache")
	dir := filepath.Join(cache, fmt.Sprintf("store%d-%s", bigStatements, key))
	root := filepath.Join(dir, "c")
	if _, err := os.Stat(filepath.Join(dir, "complete")); err == nil {
		return root
	}
	// Stale caches of other keys hold 100,000 files each: remove them.
	old, _ := filepath.Glob(filepath.Join(cache, fmt.Sprintf("store%d-*", bigStatements)))
	for _, o := range old {
		os.RemoveAll(o)
	}
	start := time.Now()
	e.exec(b, "", "init", "--root", root)
	e.fill(b, root, bigStatements-1)
	syncAll()
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
// statement, from 1, 8 and 32 concurrent proofloop processes that all
// contend for the same store lock, and reports the throughput. procs=32
// also reports its rate as a fraction of the serial one.
func BenchmarkConcurrency(b *testing.B) {
	for _, procs := range []int{1, 8, 32} {
		b.Run(fmt.Sprintf("procs=%d", procs), func(b *testing.B) {
			e := setup(b)
			root := e.newStore(b)
			stmts := make([]string, b.N)
			for i := range b.N {
				_, stmts[i] = e.clone(b, root, fxGap, "n"+strconv.Itoa(i))
			}
			syncAll()
			var next atomic.Int64
			var mu sync.Mutex
			var lat []time.Duration
			var errs []error
			b.ResetTimer()
			start := time.Now()
			var wg sync.WaitGroup
			for range procs {
				wg.Go(func() {
					for {
						i := int(next.Add(1)) - 1
						if i >= len(stmts) {
							return
						}
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
				line += fmt.Sprintf(", %.0f%% of serial", 100*rate/serialRate)
				if procs == 32 {
					line += " (target >= 70%)"
				}
			}
			record(fmt.Sprintf("concurrency procs=%d", procs), line)
		})
	}
}

// skillCase is one skill (or decide) on a fresh copy of a template.
type skillCase struct {
	name string
	fx   string
	want string // status in the --json result
	args func(prob, stmt string) []string
}

var skillCases = []skillCase{
	{"prob-wrapup-statement", fxProblem, "pending", func(p, _ string) []string {
		return []string{"--actor", "solver", "prob-wrapup-statement", "--problem-path", p, "--claim", claim, "--premises", "n is a positive integer", "--purpose", "This is the objective itself."}
	}},
	{"prob-setup-subgoal", fxProblem, "pending", func(p, _ string) []string {
		return []string{"--actor", "solver", "prob-setup-subgoal", "--parent-problem-path", p, "--subproblem-objective", "Show the identity n^2 + 2n + 1 = (n+1)^2.", "--subproblem-hypothesis", "n is an integer", "--rationale", "It is the inductive step."}
	}},
	{"prob-finish-up", fxTrue, "solved", func(p, s string) []string {
		return []string{"--actor", "solver", "prob-finish-up", "--problem-path", p, "--key-statement-id", s, "--resolution", "The wrap-up statement is the objective."}
	}},
	{"state-complete-proof", fxPending, "awaiting_verification", func(_, s string) []string {
		return []string{"--actor", "prover", "state-complete-proof", "--statement-path", s, "--strategy", "induction", "--proof-text", proofText}
	}},
	{"state-setup-substatement", fxPending, "awaiting_substatements", func(_, s string) []string {
		return []string{"--actor", "prover", "state-setup-substatement", "--parent-statement-path", s, "--rationale", "Base case and inductive step.",
			"--sub-statements", `[{"claim": "1 = 1^2.", "premises": []}, {"claim": "n^2 + 2n + 1 = (n+1)^2.", "premises": ["n is an integer"]}]`}
	}},
	{"state-mark-false", fxPending, "false", func(_, s string) []string {
		return []string{"--actor", "prover", "state-mark-false", "--statement-path", s, "--source", "prove", "--counterexample", "For n = 0 the sum is empty."}
	}},
	{"state-propose-modification", fxPending, "needs_modification", func(_, s string) []string {
		return []string{"--actor", "prover", "state-propose-modification", "--statement-path", s, "--source", "prove", "--modification-type", "strengthen_premises",
			"--suggested-premises", "n is an integer with n >= 1", "--rationale", "The claim needs n to be an integer."}
	}},
	{"check-confirm-proof", fxAwaiting, "true", func(_, s string) []string {
		return []string{"--actor", "checker", "check-confirm-proof", "--statement-path", s, "--verification-summary", "Checked both steps."}
	}},
	{"check-reject-proof", fxGap, "has_gap", func(_, s string) []string { return rejectArgs(s) }},
	{"fix-patch-proof", fxGap, "awaiting_verification", func(_, s string) []string {
		return []string{"--actor", "fixer", "fix-patch-proof", "--statement-path", s, "--issue-number", "1", "--sentence-range", "2",
			"--replacement-text", "Step 2: If the sum up to 2n-1 is n^2, adding 2n+1 gives n^2 + 2n + 1, which is (n+1)^2 by expanding the square.",
			"--change-description", "Justify the identity."}
	}},
	{"fix-create-substatement", fxGap, "awaiting_substatements", func(_, s string) []string {
		return []string{"--actor", "fixer", "fix-create-substatement", "--statement-path", s, "--issue-number", "1",
			"--sub-claim", "For every integer n, n^2 + 2n + 1 = (n+1)^2.", "--gap-location", "2", "--purpose", "Justifies the identity used in step 2."}
	}},
	{"decide", fxModify, "pending", func(_, s string) []string {
		return []string{"--actor", "human", "decide", s, "--accept", "--reason", "The integer premise is intended."}
	}},
}

// BenchmarkSkill is the latency of each skill and of decide, each on a
// fresh copy of a template in the state the skill acts on.
func BenchmarkSkill(b *testing.B) {
	for _, c := range skillCases {
		b.Run(c.name, func(b *testing.B) {
			e := setup(b)
			root := e.newStore(b)
			args := make([][]string, b.N)
			for i := range b.N {
				p, s := e.clone(b, root, c.fx, "n"+strconv.Itoa(i))
				args[i] = append([]string{"--root", root, "--json"}, c.args(p, s)...)
			}
			syncAll()
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

// summary holds the last line each benchmark recorded, printed once at the
// end of the run as a compact table.
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
