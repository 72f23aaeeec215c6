package loop_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/proofloop/proofloop/internal/pgtest"
)

// The tests of this package run the real proofloop binary as separate
// processes: the lease races, the event follower and the orchestrator are
// about processes, so an in-process call would prove nothing about them.

// bin is the proofloop binary TestMain builds once for the whole package.
var bin string

// repoRoot is the repository root: the scripted agents of examples/agents
// are named relative to it.
var repoRoot string

func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "proofloop-loop-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	bin = filepath.Join(dir, "proofloop")
	build := exec.Command("go", "build", "-o", bin, "github.com/proofloop/proofloop/cmd/proofloop")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build proofloop: %v\n%s", err, out)
		return 1
	}
	if repoRoot, err = filepath.Abs(".."); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer cluster.Done()
	return m.Run()
}

// cleanEnv is the environment of every child: the test's own, without the
// proofloop variables a developer's shell may have set.
func cleanEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PROOFLOOP_") {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}

// result is one finished run of the binary.
type result struct {
	args   []string
	code   int
	stdout string
	stderr string
}

func (r result) String() string {
	return fmt.Sprintf("proofloop %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(r.args, " "), r.code, r.stdout, r.stderr)
}

// decode parses the single JSON object a --json command prints.
func (r result) decode(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(r.stdout), v); err != nil {
		t.Fatalf("%v\nstdout is not one JSON object: %v", r, err)
	}
}

// errorCode is error.code of a --json failure, "" on success.
func (r result) errorCode(t *testing.T) string {
	t.Helper()
	var out struct {
		OK    bool `json:"ok"`
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	r.decode(t, &out)
	return out.Error.Code
}

// command builds a proofloop process on root with a clean environment.
func command(root string, env []string, args ...string) *exec.Cmd {
	cmd := exec.Command(bin, args...)
	cmd.Env = cleanEnv(append([]string{"PROOFLOOP_ROOT=" + root}, env...)...)
	if testStore != "" {
		cmd.Env = append(cmd.Env, "PROOFLOOP_STORE="+testStore)
	}
	return cmd
}

// testStore, when set by onPostgres, is the PostgreSQL store every command
// of the test uses; root is then only the folder for run logs.
var testStore string

// cluster is the throwaway PostgreSQL cluster of the tests that run on
// that store, started by the first of them.
var cluster pgtest.Shared

// onPostgres runs the rest of the test on a fresh, migrated database.
func onPostgres(t *testing.T) {
	testStore = cluster.NewMigratedDB(t)
	t.Cleanup(func() { testStore = "" })
}

// runPL runs proofloop on root and returns what it did, whatever the exit
// code; the error is for a binary that could not run at all. It is safe to
// call from any goroutine.
func runPL(root string, env []string, args ...string) (result, error) {
	cmd := command(root, env, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := result{args: args, stdout: stdout.String(), stderr: stderr.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		return r, fmt.Errorf("proofloop %s: %w", strings.Join(args, " "), err)
	}
	return r, nil
}

// pl is runPL for the test's own goroutine.
func pl(t *testing.T, root string, env []string, args ...string) result {
	t.Helper()
	r, err := runPL(root, env, args...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// must runs proofloop and fails the test unless it exits 0.
func must(t *testing.T, root string, args ...string) result {
	t.Helper()
	r := pl(t, root, nil, args...)
	if r.code != 0 {
		t.Fatalf("%v\nwant exit 0", r)
	}
	return r
}

// newRoot makes an empty contents root; config, when not nil, overrides
// fields of the config.json that init wrote.
func newRoot(t *testing.T, config map[string]any) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "contents")
	must(t, root, "init")
	if config != nil {
		setConfig(t, root, config)
	}
	return root
}

// setConfig overrides fields of root's config.json with `proofloop config
// set`, one key at a time (agents as a whole map), so that the log records
// each change: doctor checks config.json against the log.
func setConfig(t *testing.T, root string, fields map[string]any) {
	t.Helper()
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		must(t, root, "config", "set", k, jsonText(t, fields[k]))
	}
}

func jsonText(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// leaseFile is leases/<id>.json as the store writes it.
type leaseFile struct {
	ID         string  `json:"id"`
	Role       string  `json:"role"`
	Holder     string  `json:"holder"`
	Token      string  `json:"token"`
	ClaimedAt  string  `json:"claimed_at"`
	ExpiresAt  string  `json:"expires_at"`
	ReleasedAt *string `json:"released_at"`
}

func readLease(t *testing.T, root, id string) leaseFile {
	t.Helper()
	var l leaseFile
	readJSON(t, filepath.Join(root, "leases", id+".json"), &l)
	return l
}

// statusItem is one entry of `status --json` and `next --json`.
type statusItem struct {
	ID         string `json:"id"`
	Kind       string `json:"kind"`
	Status     string `json:"status"`
	Role       string `json:"role"`
	Reason     string `json:"reason"`
	Outcome    string `json:"outcome"`
	Round      int    `json:"round"`
	OpenIssues []int  `json:"open_issues"`
	Holder     string `json:"lease_holder"`
	Expires    string `json:"lease_expires_at"`
}

// status runs `status --json` and returns its items by id.
func status(t *testing.T, root string) map[string]statusItem {
	t.Helper()
	var out struct {
		OK    bool         `json:"ok"`
		Items []statusItem `json:"items"`
	}
	must(t, root, "status", "--json").decode(t, &out)
	m := map[string]statusItem{}
	for _, it := range out.Items {
		m[it.ID] = it
	}
	return m
}

// event is the part of an events.jsonl line the tests look at.
type event struct {
	Seq         int      `json:"seq"`
	Actor       *string  `json:"actor"`
	Command     string   `json:"command"`
	IDs         []string `json:"ids"`
	LeaseHolder *string  `json:"lease_holder"`
}

// events reads root's events.jsonl: its raw lines and their decoded events.
func events(t *testing.T, root string) ([]string, []event) {
	t.Helper()
	dir := root
	if testStore != "" {
		dir = filepath.Join(t.TempDir(), "export")
		must(t, root, "export", "--to", dir)
	}
	text := readFile(t, filepath.Join(dir, "events.jsonl"))
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if text == "" {
		lines = nil
	}
	evs := make([]event, len(lines))
	for i, l := range lines {
		if err := json.Unmarshal([]byte(l), &evs[i]); err != nil {
			t.Fatalf("events.jsonl line %d: %v: %s", i+1, err, l)
		}
	}
	return lines, evs
}

// A small tree the lease and event tests share: problem prob_odd with its
// wrap-up statement stmt_odd_wrap.
const (
	oddProof = "Step 1: For n = 1 both sides are 1. Step 2: Adding 2n+1 to n^2 gives (n+1)^2. Hence the claim holds for every n >= 1."
)

func newOdd(t *testing.T, root string) {
	t.Helper()
	must(t, root, "new-problem", "--name", "odd", "--objective", "The sum of the first n odd numbers is n^2.")
	must(t, root, "prob-wrapup-statement", "--problem-path", "prob_odd",
		"--claim", "For every n >= 1, 1 + 3 + ... + (2n-1) = n^2.", "--purpose", "It is the objective.")
}
