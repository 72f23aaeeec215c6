package loop_test

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestRunFifoUsageDoesNotHang (issue 34, N4): an agent that replaces
// $PROOFLOOP_USAGE (and its turn's log) with a FIFO used to hang run for
// ever, deaf to SIGINT and SIGTERM, with the item's lease held. The file
// is opened without blocking and read only when it is a regular file; the
// log is read from the file run opened. The run ends within the turn's
// deadline, says why the usage was not counted, and releases the lease.
func TestRunFifoUsageDoesNotHang(t *testing.T) {
	root := newRoot(t, map[string]any{"agents": map[string]string{"prove": testAgent("fifo")}})
	newOdd(t, root)
	const deadline = time.Minute // the turn's --turn-timeout: the run must end before it
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	cmd := runCmd(root, "--max-turns", "1", "--turn-timeout", deadline.String())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		cmd.Process.Kill()
		<-done
		t.Fatalf("run did not end within the turn's deadline (%s): an agent's FIFO hangs it\nstderr: %s", deadline, stderr.String())
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	r := decodeRun(t, code, stdout.String(), stderr.String())
	wantOutcome(t, r, 8, "max_turns")
	e := r.ended(t, 1)
	if e.Outcome != "ok" || !strings.Contains(e.UsageWarning, "$PROOFLOOP_USAGE is not a regular file") {
		t.Errorf("turn 1 ended %+v; want ok, with a usage warning that $PROOFLOOP_USAGE is not a regular file", e)
	}
	checkReleased(t, root, r.sum.Turns) // the turn's log is a FIFO now: checkSettled would block on it
}

// TestRunFailureBeforeAnyCall (issue 35, item 3): a turn whose agent fails
// (any non-zero exit, not only sh's 126 and 127) before any proofloop call
// counts toward max_agent_failures and never against the item's round
// budget; the progress and give-up lines quote the agent's own error from
// its output, not a warning it printed on stderr. A failed turn that made
// a recorded call is charged as before.
func TestRunFailureBeforeAnyCall(t *testing.T) {
	for _, code := range []string{"1", "2"} {
		root := newRoot(t, map[string]any{"agents": map[string]string{"prove": testAgent("fail", code)}, "max_rounds": 2})
		newOdd(t, root)
		r := runLoop(t, root, "--max-turns", "20", "--turn-timeout", "1m")
		wantOutcome(t, r, 7, "stuck")
		if r.sum.Turns != 3 || r.sum.Failed != 3 || r.sum.Idle != 0 || len(r.sum.GivenUp) != 1 {
			t.Errorf("exit %s: summary %+v; want 3 failed turns, none idle, the prove agent given up", code, r.sum)
		}
		if got := fieldOf(t, root, "stmt_odd_wrap", "idle_turns"); got != "" && got != "0" {
			t.Errorf("exit %s: stmt_odd_wrap has idle_turns %s; want none charged (the agent failed before any proofloop call)", code, got)
		}
		quote := "unexpected status 401 Unauthorized: Incorrect API key provided"
		if e := r.ended(t, 1); e.Outcome != "failed" || !e.NoCall || e.Idle == nil || *e.Idle || e.AgentError != quote {
			t.Errorf("exit %s: turn 1 ended %+v; want failed, no_call, not idle, quoting the agent's error", code, e)
		}
		if g := r.sum.GivenUp; len(g) == 1 && g[0].AgentError != quote {
			t.Errorf("exit %s: given up %+v; want agent_error %q", code, g[0], quote)
		}
		if msg := r.last.Error.Message; !strings.Contains(msg, "exit "+code+": "+quote) || strings.Contains(msg, "some warning") {
			t.Errorf("exit %s: error message %q; want the last failure quoted as exit %s: %s", code, msg, code, quote)
		}
	}

	// For a person: the lines say it was not charged, and quote the error.
	root := newRoot(t, map[string]any{"agents": map[string]string{"prove": testAgent("fail", "1")}})
	newOdd(t, root)
	text := pl(t, root, nil, "run", "--turn-timeout", "1m")
	for _, want := range []string{
		"turn 1: prove on stmt_odd_wrap ended: exit 1 (unexpected status 401 Unauthorized: Incorrect API key provided) after",
		"; failed before any proofloop call (not charged to stmt_odd_wrap)",
		"giving up on the prove agent (" + testAgent("fail", "1") + "): it failed 3 turns in a row, the last with exit 1: unexpected status 401",
	} {
		if !strings.Contains(text.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, text.stderr)
		}
	}

	// A failed turn that made a recorded call is the item's, as before.
	root = newRoot(t, map[string]any{"agents": map[string]string{"prove": testAgent("fail", "1", "call")}})
	newOdd(t, root)
	r := runLoop(t, root, "--max-turns", "1", "--turn-timeout", "1m")
	if e := r.ended(t, 1); e.Outcome != "failed" || e.NoCall || e.Idle == nil || !*e.Idle {
		t.Errorf("turn 1 ended %+v; want failed, charged to the item (idle), since it made a call", e)
	}
	if got := fieldOf(t, root, "stmt_odd_wrap", "idle_turns"); got != "1" {
		t.Errorf("stmt_odd_wrap has idle_turns %q; want 1", got)
	}
}
