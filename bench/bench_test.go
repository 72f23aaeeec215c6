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
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
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
		return nil, fmt.Errorf("the benchmarks build proofloop with the go tool, which is not on PATH: %v", err)
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
