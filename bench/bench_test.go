// Package bench measures proofloop through its real binary: every figure is
// the wall time of an exec'd process, as an agent sees it. Nothing here is a
// timed test (STYLE.md 12): the benchmarks report medians with
// b.ReportMetric and record each figure in make bench's one table
// (bench/table), marked met or missed against its issue's target. A benchmark fails only
// when a command does not do what it should (non-zero exit, wrong status),
// so no figure is of a refused command.
//
// Run: make bench, or go test -run '^$' -bench . -benchtime 10x ./bench/
// (see docs/bench.md).
//
// Every store is written by bench/storegen (a valid store: the index, the
// hash chain and the replay agree with its documents) with reserved items
// in the states the measured commands act on, so every measured command
// acts on its own fresh item and no document is copied in by hand.
package bench

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/proofloop/proofloop/bench/storegen"
	"github.com/proofloop/proofloop/bench/table"
)

// work holds this run's binaries and stores.
var work string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "proofloop-bench-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	work = dir
	code := m.Run()
	cluster.Done()
	table.Print(os.Stdout)
	os.RemoveAll(dir)
	os.Exit(code)
}

// env is what every benchmark needs: the two binaries.
type env struct{ proofloop, minimal string }

var (
	envOnce sync.Once
	envVal  *env
	envErr  error
)

// setup builds the binaries, once per test process.
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
	goTool, err := exec.LookPath("go")
	if err != nil {
		return nil, fmt.Errorf("the benchmarks build proofloop with the go tool, which is not on PATH: %v", err)
	}
	// proofloop is built as make build builds it: the lean build, and the
	// full one beside it for the commands the lean one hands off.
	full := filepath.Join(work, "bin", "proofloop-full")
	for bin, pkg := range map[string]string{e.proofloop: "./cmd/proofloop", full: "./cmd/proofloop", e.minimal: "./bench/minimal"} {
		tags := ""
		if bin == e.proofloop {
			tags = "lean"
		}
		cmd := exec.Command(goTool, "build", "-tags", tags, "-o", bin, pkg)
		cmd.Dir = ".." // the module root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
		}
	}
	return e, nil
}

// genStore writes a fresh store of n bulk statements and the reserved
// items, and syncs it, so that no figure includes its writeback.
func genStore(b *testing.B, n int, reserve map[string]int) string {
	b.Helper()
	root := filepath.Join(b.TempDir(), "c")
	if _, err := storegen.Generate(root, storegen.Options{Statements: n, Reserve: reserve}); err != nil {
		b.Fatal(err)
	}
	syscall.Sync()
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
		return d, fmt.Errorf("%s %q: %v\nstdout: %.2000s\nstderr: %s", filepath.Base(bin), args, err, stdout.Bytes(), stderr.Bytes())
	}
	var out struct {
		OK     bool   `json:"ok"`
		Status string `json:"status"`
	}
	if want != "" && (json.Unmarshal(stdout.Bytes(), &out) != nil || !out.OK || out.Status != want) {
		return d, fmt.Errorf("%s %q: got %.2000s; want ok with status %s", filepath.Base(bin), args, stdout.Bytes(), want)
	}
	return d, nil
}

// cleanEnv is the environment without PROOFLOOP_* variables: only the flags
// given decide what a command does.
var cleanEnv = slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "PROOFLOOP_") })

func median[T int64 | time.Duration](ds []T) T {
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

// runs is how many commands each figure measures: the count of
// -benchtime Nx (make bench gives 10x), else 10. Every benchmark loops with
// b.Loop, so that its set-up (a generated store) runs once, not also for
// the b.N = 1 probe that a b.N loop gets.
func runs() int {
	if f := flag.Lookup("test.benchtime"); f != nil {
		if v, ok := strings.CutSuffix(f.Value.String(), "x"); ok {
			if n, err := strconv.Atoi(v); err == nil && n > 0 {
				return n
			}
		}
	}
	return 10
}

// reserved stops a benchmark that runs more commands than it reserved
// items for: with -benchtime Nx, b.Loop runs exactly N = runs() times.
func reserved(b *testing.B, i, n int) {
	if i >= n {
		b.Fatalf("%d items are reserved per figure; give -benchtime as a count (Nx), not a duration", n)
	}
}

// bigStatements is the size of the large store.
const bigStatements = 100_000

// bigReserve is what the large store reserves: gap items for the skill
// calls the hot commands are compared with, and for the store-size pairs.
var bigReserve = map[string]int{"gap": 400}

var (
	bigOnce sync.Once
	bigRoot string
	bigErr  error
	bigNext int // the next reserved gap item of the large store not yet used
	bigMu   sync.Mutex
)

// bigStore returns this run's copy of the large store, the same for every
// benchmark of the run. The store is generated once and cached in
// $TMPDIR/proofloop-bench-cache/store100000-<key>/, where key hashes
// everything its content depends on: the generator, the skills, the store
// and model code, and the schemas. The run works on a copy: documents and
// leases are hard links (the store only ever replaces them by rename),
// the files it writes in place (events.jsonl, index.db) are real copies.
func bigStore(b *testing.B) string {
	b.Helper()
	bigOnce.Do(func() { bigRoot, bigErr = copyBig() })
	if bigErr != nil {
		b.Fatal(bigErr)
	}
	return bigRoot
}

// nextBigGap returns the next unused reserved has_gap statement of the
// large store.
func nextBigGap(b *testing.B) string {
	b.Helper()
	bigMu.Lock()
	defer bigMu.Unlock()
	if bigNext == bigReserve["gap"] {
		b.Fatalf("the large store's %d reserved has_gap statements are used up: use a smaller -benchtime", bigReserve["gap"])
	}
	_, s := storegen.Reserved("gap", bigNext)
	bigNext++
	return s
}

func copyBig() (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%d %v\n", bigStatements, bigReserve)
	for _, pat := range []string{"../bench/storegen/*.go", "../skills/*.go", "../store/*.go", "../model/*.go", "../loop/*.go", "../schemas/*.json"} {
		files, _ := filepath.Glob(pat)
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			raw, err := os.ReadFile(f)
			if err != nil {
				return "", err
			}
			fmt.Fprintf(h, "%s %d\n", f, len(raw))
			h.Write(raw)
		}
	}
	cache := filepath.Join(os.TempDir(), "proofloop-bench-cache")
	dir := filepath.Join(cache, fmt.Sprintf("store%d-%s", bigStatements, hex.EncodeToString(h.Sum(nil))[:12]))
	src := filepath.Join(dir, "c")
	if _, err := os.Stat(filepath.Join(dir, "complete")); err != nil {
		old, _ := filepath.Glob(filepath.Join(cache, fmt.Sprintf("store%d-*", bigStatements)))
		for _, o := range old { // stale caches hold 100,000 files each
			os.RemoveAll(o)
		}
		start := time.Now()
		sum, err := storegen.Generate(src, storegen.Options{Statements: bigStatements, Reserve: bigReserve})
		if err != nil {
			return "", err
		}
		syscall.Sync()
		if err := os.WriteFile(filepath.Join(dir, "complete"), nil, 0o644); err != nil {
			return "", err
		}
		fmt.Fprintf(os.Stderr, "bench: generated %d statements in %s in %v\n", sum.Statements, src, time.Since(start).Round(time.Second))
	}
	root := filepath.Join(work, "big")
	if out, err := exec.Command("cp", "-al", src, root).CombinedOutput(); err != nil {
		return "", fmt.Errorf("cp -al: %v: %s", err, out)
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return "", err
	}
	for _, en := range entries {
		if en.IsDir() {
			continue
		}
		p := filepath.Join(root, en.Name())
		raw, err := os.ReadFile(p)
		if err == nil {
			err = os.Remove(p)
		}
		if err == nil {
			err = os.WriteFile(p, raw, 0o644)
		}
		if err != nil {
			return "", err
		}
	}
	syscall.Sync()
	return root, nil
}

func execCommand(name string, args ...string) ([]byte, error) {
	return exec.Command(name, args...).CombinedOutput()
}
