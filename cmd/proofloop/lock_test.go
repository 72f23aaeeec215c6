package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/proofloop/proofloop/store"
)

// runCLI runs the CLI in-process and returns its exit code and streams.
func lockTestRun(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// TestLockTimeout holds the store's lock as another process would and runs
// a mutating command: it must give up with lock_timeout (exit 5) and write
// nothing; once the lock is released the same command succeeds.
func TestLockTimeout(t *testing.T) {
	root := filepath.Join(t.TempDir(), "contents")
	t.Setenv("PROOFLOOP_ROOT", root)
	t.Setenv("PROOFLOOP_ACTOR", "")
	t.Setenv("PROOFLOOP_LEASE", "")
	t.Setenv("PROOFLOOP_LOCK_TIMEOUT", "200ms")
	if code, _, stderr := lockTestRun(t, "init"); code != 0 {
		t.Fatalf("init: exit %d; want 0\n%s", code, stderr)
	}
	events := filepath.Join(root, "events.jsonl")
	problem := filepath.Join(root, "problem", "prob_odd.json")
	eventsBefore := lockTestRead(t, events)

	// The store locks its root folder; this is a separate open file
	// description, so flock excludes the CLI's own open of it even within
	// this process.
	lf, err := os.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer lf.Close()
	if err := syscall.Flock(int(lf.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatalf("flock: %v", err)
	}

	args := []string{"new-problem", "--name", "odd", "--objective", "The sum of the first n odd numbers is n^2.", "--json"}
	code, stdout, stderr := lockTestRun(t, args...)
	if code != 5 {
		t.Errorf("new-problem while the lock is held: exit %d; want 5\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	var out struct {
		OK    bool   `json:"ok"`
		Cmd   string `json:"command"`
		Error struct {
			Code, Message, Hint string
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s", err, stdout)
	}
	if out.OK || out.Cmd != "new-problem" || out.Error.Code != "lock_timeout" {
		t.Errorf("JSON = %s; want ok false, command new-problem, error code lock_timeout", stdout)
	}
	if !strings.Contains(out.Error.Message, "200ms") || !strings.Contains(out.Error.Message, "lock") {
		t.Errorf("error message = %q; want it to say the lock was not taken within 200ms", out.Error.Message)
	}
	if stderr != "" {
		t.Errorf("stderr = %q; want nothing: with --json the error is on stdout only", stderr)
	}
	if _, err := os.Stat(problem); !os.IsNotExist(err) {
		t.Errorf("after a lock timeout, stat %s: %v; want it not to exist", problem, err)
	}
	if got := lockTestRead(t, events); got != eventsBefore {
		t.Errorf("after a lock timeout, events.jsonl = %q; want it unchanged (%q)", got, eventsBefore)
	}
	if _, err := os.Stat(filepath.Join(root, store.JournalFile)); !os.IsNotExist(err) {
		t.Errorf("after a lock timeout, a journal exists (stat: %v)", err)
	}

	if err := syscall.Flock(int(lf.Fd()), syscall.LOCK_UN); err != nil {
		t.Fatalf("unlock: %v", err)
	}
	// The abandoned waiter of the first run may hold the lock for an instant
	// before it lets go; a generous timeout keeps this from being a race.
	t.Setenv("PROOFLOOP_LOCK_TIMEOUT", "10s")
	code, stdout, stderr = lockTestRun(t, args...)
	if code != 0 {
		t.Fatalf("new-problem after the lock was released: exit %d; want 0\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, `"id":"prob_odd"`) {
		t.Errorf("stdout = %s; want the created prob_odd", stdout)
	}
	if _, err := os.Stat(problem); err != nil {
		t.Errorf("after the retry: %v; want %s to exist", err, problem)
	}
	if got := lockTestRead(t, events); strings.Count(got, "\n") != strings.Count(eventsBefore, "\n")+1 {
		t.Errorf("after the retry, events.jsonl = %q; want exactly one more line", got)
	}
}

func lockTestRead(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
