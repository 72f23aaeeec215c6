package loop_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// runSummary is the summary `proofloop run --json` prints.
type runSummary struct {
	RunID    string         `json:"run_id"`
	Outcome  string         `json:"outcome"`
	Turns    int            `json:"turns"`
	ByRole   map[string]int `json:"by_role"`
	Idle     int            `json:"idle"`
	Failed   int            `json:"failed"`
	TimedOut int            `json:"timed_out"`
	Stuck    []struct {
		ID     string `json:"id"`
		Role   string `json:"role"`
		Reason string `json:"reason"`
	} `json:"stuck"`
	Logs string `json:"logs"`
}

// copyContents copies the repository's example contents/ (its documents,
// events and config; not what a local run left in it) to a fresh root.
func copyContents(t *testing.T) string {
	t.Helper()
	src := filepath.Join(repoRoot, "contents")
	dst := filepath.Join(t.TempDir(), "contents")
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() && (rel == "runs" || rel == "leases") {
			return filepath.SkipDir
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if !d.Type().IsRegular() || strings.HasPrefix(d.Name(), ".") {
			return nil // the lock file, a journal, temp files
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// scriptedAgent is the command line of the repository's scripted agent for
// role, by absolute path.
func scriptedAgent(role string) string {
	return filepath.Join(repoRoot, "examples", "agents", role+".sh")
}

// testAgent is the command line of a misbehaving agent of testdata/agents.
func testAgent(name string, args ...string) string {
	p, _ := filepath.Abs(filepath.Join("testdata", "agents", name+".sh"))
	return strings.Join(append([]string{"sh", p}, args...), " ")
}

// runCmd is `proofloop run --json` on root, from the repository root, where
// the example config.json's agent paths point.
func runCmd(root string, args ...string) *exec.Cmd {
	cmd := command(root, nil, append([]string{"run", "--json"}, args...)...)
	cmd.Dir = repoRoot
	return cmd
}

// runLoop runs `proofloop run --json` to its end and returns its summary
// and its progress lines (stderr).
func runLoop(t *testing.T, root string, args ...string) (runSummary, string) {
	t.Helper()
	cmd := runCmd(root, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("proofloop run %s: %v\nstdout: %s\nstderr: %s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return decodeRun(t, stdout.String(), stderr.String()), stderr.String()
}

func decodeRun(t *testing.T, stdout, stderr string) runSummary {
	t.Helper()
	var out struct {
		OK      bool       `json:"ok"`
		Summary runSummary `json:"summary"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil || !out.OK {
		t.Fatalf("run printed %q (%v); want one ok JSON object\nstderr: %s", stdout, err, stderr)
	}
	t.Logf("run summary: %+v\nprogress:\n%s", out.Summary, stderr)
	return out.Summary
}

// checkSettled checks what every run must leave behind: doctor finds
// nothing, no lease is live, and runs/<run-id>/ holds one log per turn.
func checkSettled(t *testing.T, root string, sum runSummary) {
	t.Helper()
	var doc struct {
		OK     bool `json:"ok"`
		Report struct {
			Journal  string `json:"journal"`
			Findings []any  `json:"findings"`
		} `json:"report"`
	}
	must(t, root, "doctor", "--json").decode(t, &doc)
	if !doc.OK || doc.Report.Journal != "none" || len(doc.Report.Findings) != 0 {
		t.Errorf("doctor after the run: %+v; want a clean store with no journal", doc)
	}
	leases, _ := filepath.Glob(filepath.Join(root, "leases", "*.json"))
	if len(leases) == 0 && sum.Turns > 0 {
		t.Errorf("no lease files after %d turns; want one per claimed item", sum.Turns)
	}
	for _, p := range leases {
		var l leaseFile
		readJSON(t, p, &l)
		if l.ReleasedAt == nil {
			t.Errorf("%s = %+v after the run; want released_at set", filepath.Base(p), l)
		}
	}
	for id, it := range status(t, root) {
		if it.Holder != "" {
			t.Errorf("status after the run: %s leased to %s; want no holder", id, it.Holder)
		}
	}
	if sum.Logs != "runs/"+sum.RunID {
		t.Errorf("summary logs %q; want runs/%s", sum.Logs, sum.RunID)
	}
	logs, err := os.ReadDir(filepath.Join(root, "runs", sum.RunID))
	if err != nil {
		t.Fatalf("runs/<run-id>: %v", err)
	}
	if len(logs) != sum.Turns {
		t.Errorf("runs/%s holds %d files; want one log per turn, %d", sum.RunID, len(logs), sum.Turns)
	}
	name := regexp.MustCompile(`^([0-9]+)-(solve|prove|check|fix|decide)-([a-z0-9_]+)\.log$`)
	seen := map[int]bool{}
	for _, f := range logs {
		m := name.FindStringSubmatch(f.Name())
		if m == nil {
			t.Errorf("runs/%s/%s: want NNNN-role-id.log", sum.RunID, f.Name())
			continue
		}
		n, _ := strconv.Atoi(m[1])
		seen[n] = true
		text := readFile(t, filepath.Join(root, "runs", sum.RunID, f.Name()))
		if head := fmt.Sprintf("# turn %d: %s on %s", n, m[2], m[3]); !strings.HasPrefix(text, head) {
			t.Errorf("runs/%s/%s starts %.60q; want %q", sum.RunID, f.Name(), text, head)
		}
	}
	for n := 1; n <= sum.Turns; n++ {
		if !seen[n] {
			t.Errorf("runs/%s has no log of turn %d", sum.RunID, n)
		}
	}
}

// fieldOf is one top-level field of a document, as `show --field` prints
// it; "" when the document has no such field.
func fieldOf(t *testing.T, root, id, field string) string {
	t.Helper()
	r := pl(t, root, nil, "show", id, "--field", field)
	if r.code == 3 && strings.Contains(r.stderr, "no field") {
		return ""
	}
	if r.code != 0 {
		t.Fatalf("%v\nwant exit 0", r)
	}
	return strings.TrimSpace(r.stdout)
}

// The skills the scripted agents must use between them, and decide.
var allSkills = []string{"prob-wrapup-statement", "prob-setup-subgoal", "prob-finish-up", "state-complete-proof",
	"state-setup-substatement", "state-mark-false", "state-propose-modification", "check-confirm-proof",
	"check-reject-proof", "fix-patch-proof", "fix-create-substatement", "decide"}

// TestRunScriptedAgents: `run` with the scripted agents of examples/agents
// drives a fresh copy of contents/ to solved through every skill, alone and
// with four workers.
func TestRunScriptedAgents(t *testing.T) {
	for _, jobs := range []string{"1", "4"} {
		t.Run("j"+jobs, func(t *testing.T) {
			root := copyContents(t)
			sum, _ := runLoop(t, root, "-j", jobs, "--max-turns", "100", "--turn-timeout", "1m")
			if sum.Outcome != "solved" || sum.Failed != 0 || sum.TimedOut != 0 || sum.Idle != 0 || len(sum.Stuck) != 0 {
				t.Errorf("run -j %s: %+v; want solved with no failed, timed-out, idle turn or stuck item", jobs, sum)
			}
			if got := fieldOf(t, root, "prob_odd_squares", "status"); got != "solved" {
				t.Errorf("prob_odd_squares is %s; want solved", got)
			}
			turns := 0
			for _, n := range sum.ByRole {
				turns += n
			}
			if turns != sum.Turns {
				t.Errorf("by_role %v adds up to %d; want turns %d", sum.ByRole, turns, sum.Turns)
			}
			checkSettled(t, root, sum)

			lines, evs := events(t, root)
			used := map[string]bool{}
			for i, ev := range evs {
				used[ev.Command] = true
				if ev.Seq != i+1 {
					t.Fatalf("events.jsonl line %d has seq %d: %s", i+1, ev.Seq, lines[i])
				}
			}
			for _, sk := range allSkills {
				if !used[sk] {
					t.Errorf("no %s in events.jsonl; want the scripted agents to use every skill", sk)
				}
			}
			// The agents acted as distinct role-worker actors under their lease.
			for _, ev := range evs {
				if slices.Contains(allSkills, ev.Command) {
					if ev.Actor == nil || !regexp.MustCompile(`^(solve|prove|check|fix|decide)-[0-9]+$`).MatchString(*ev.Actor) || ev.LeaseHolder == nil {
						t.Errorf("event %d (%s): actor %v, lease holder %v; want a role-worker actor holding the lease", ev.Seq, ev.Command, deref(ev.Actor), deref(ev.LeaseHolder))
					}
				}
			}
		})
	}
}

func deref(s *string) string {
	if s == nil {
		return "<null>"
	}
	return *s
}

// TestRunAgentHangs: the solver's first turn hangs; at --turn-timeout the
// agent's whole process group is killed, the turn counts as timed out, the
// lease is released, and the run goes on to solved.
func TestRunAgentHangs(t *testing.T) {
	root := copyContents(t)
	state := t.TempDir()
	setConfig(t, root, map[string]any{"agents": map[string]string{
		"solve":  testAgent("hang", state, scriptedAgent("solve")),
		"prove":  "sh " + scriptedAgent("prove"),
		"check":  "sh " + scriptedAgent("check"),
		"fix":    "sh " + scriptedAgent("fix"),
		"decide": "sh " + scriptedAgent("decide"),
	}})
	// The scripted agents take milliseconds, but on a loaded machine one of
	// them may pass the short timeout too; the hung first turn must time out
	// in any case, and the summary must count what the progress reports.
	sum, progress := runLoop(t, root, "-j", "2", "--turn-timeout", "2s", "--max-turns", "100")
	if !regexp.MustCompile(`(?m)^turn 1 +solve +prob_odd_squares .*\[timeout\]$`).MatchString(progress) {
		t.Errorf("progress:\n%s\nwant turn 1 (solve on prob_odd_squares) reported as [timeout]", progress)
	}
	if n := strings.Count(progress, "[timeout]"); sum.TimedOut != n || n < 1 || sum.Failed != 0 || sum.Outcome != "solved" {
		t.Errorf("run: %+v; want solved with timed_out %d, as the progress shows, and no failed turn", sum, n)
	}
	checkSettled(t, root, sum)
	for _, f := range []string{"agent.pid", "sleep.pid"} {
		checkGone(t, state, f)
	}
	// The hung turn's lease was released by the run, not left to expire (the
	// lease outlives the turn timeout by far): the item was claimed again.
	_, evs := events(t, root)
	claims := 0
	released := false
	for _, ev := range evs {
		if slices.Contains(ev.IDs, "prob_odd_squares") {
			switch {
			case ev.Command == "next":
				claims++
			case ev.Command == "release" && claims == 1:
				released = true
			}
		}
	}
	if !released || claims < 2 {
		t.Errorf("prob_odd_squares: claimed %d times, released after the first: %v; want the hung turn's lease released and the item claimed again", claims, released)
	}
	if log := readFile(t, filepath.Join(root, "runs", sum.RunID, "0001-solve-prob_odd_squares.log")); !strings.Contains(log, "hanging on prob_odd_squares") {
		t.Errorf("log of turn 1: %q; want the hung agent's output kept", log)
	}
}

// TestRunAgentCrashes: the prover's first turn exits 1; it counts as
// failed, its lease is released, and the run goes on to solved.
func TestRunAgentCrashes(t *testing.T) {
	root := copyContents(t)
	state := t.TempDir()
	setConfig(t, root, map[string]any{"agents": map[string]string{
		"solve":  "sh " + scriptedAgent("solve"),
		"prove":  testAgent("crash", state, scriptedAgent("prove")),
		"check":  "sh " + scriptedAgent("check"),
		"fix":    "sh " + scriptedAgent("fix"),
		"decide": "sh " + scriptedAgent("decide"),
	}})
	sum, _ := runLoop(t, root, "-j", "1", "--turn-timeout", "1m", "--max-turns", "100")
	if sum.Failed != 1 || sum.TimedOut != 0 || sum.Outcome != "solved" {
		t.Errorf("run: %+v; want solved with exactly one failed turn", sum)
	}
	checkSettled(t, root, sum)
	logs, _ := filepath.Glob(filepath.Join(root, "runs", sum.RunID, "*-prove-*.log"))
	slices.Sort(logs)
	if len(logs) == 0 || !strings.Contains(readFile(t, logs[0]), "crashing on") {
		t.Errorf("prove logs %v; want the first to keep the crashed agent's stderr", logs)
	}
}

// TestRunAgentIdle: a prover that changes nothing spends the statement's
// budget one idle turn at a time; with max_rounds 2 the third idle turn
// leaves it to decide (outcome exhausted), and with no decide agent the run
// stops as stuck, naming the statement and why.
func TestRunAgentIdle(t *testing.T) {
	root := newRoot(t, map[string]any{"max_rounds": 2, "agents": map[string]string{"prove": testAgent("idle")}})
	newOdd(t, root)
	sum, _ := runLoop(t, root, "--turn-timeout", "1m", "--max-turns", "20")
	if sum.Outcome != "stuck" || sum.Turns != 3 || sum.Idle != 3 || sum.Failed != 0 {
		t.Errorf("run: %+v; want stuck after 3 idle turns", sum)
	}
	var found bool
	for _, s := range sum.Stuck {
		if s.ID == "stmt_odd_wrap" {
			found = true
			if s.Role != "decide" || !strings.Contains(s.Reason, "budget") {
				t.Errorf("stuck entry %+v; want role decide and a reason about the spent budget", s)
			}
		}
	}
	if !found {
		t.Errorf("stuck %+v; want stmt_odd_wrap listed", sum.Stuck)
	}
	checkSettled(t, root, sum)

	if got := fieldOf(t, root, "stmt_odd_wrap", "idle_turns"); got != "3" {
		t.Errorf("stmt_odd_wrap idle_turns = %s; want 3", got)
	}
	if got := fieldOf(t, root, "stmt_odd_wrap", "status"); got != "pending" {
		t.Errorf("stmt_odd_wrap status = %s; want pending (an idle turn changes no status)", got)
	}
	// Each idle turn raised idle_turns by one, in its own transaction.
	_, evs := events(t, root)
	var idle []int
	for _, ev := range evs {
		if ev.Command == "run-idle" && slices.Contains(ev.IDs, "stmt_odd_wrap") {
			idle = append(idle, ev.Seq)
		}
	}
	if len(idle) != 3 {
		t.Errorf("run-idle events %v; want 3", idle)
	}
	it := status(t, root)["stmt_odd_wrap"]
	if it.Role != "decide" || it.Outcome != "exhausted" {
		t.Errorf("status: stmt_odd_wrap %+v; want role decide with outcome exhausted", it)
	}
	var next struct {
		Items []statusItem `json:"items"`
	}
	must(t, root, "next", "--json").decode(t, &next)
	if len(next.Items) != 1 || next.Items[0].ID != "stmt_odd_wrap" || next.Items[0].Role != "decide" || next.Items[0].Outcome != "exhausted" {
		t.Errorf("next: %+v; want only stmt_odd_wrap for decide, exhausted", next.Items)
	}

	// Run again, for a person: it stops at once and says what is stuck and why.
	cmd := command(root, nil, "run")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if !regexp.MustCompile(`(?m)^.*stuck.*stmt_odd_wrap.*decide.*budget`).Match(out) {
		t.Errorf("run printed %q; want a line naming stmt_odd_wrap, decide and the spent budget", out)
	}
}

// TestRunInterrupted: SIGINT while an agent runs kills the agent, releases
// its lease and ends the run promptly, with nothing half done.
func TestRunInterrupted(t *testing.T) {
	root := copyContents(t)
	state := t.TempDir()
	setConfig(t, root, map[string]any{"agents": map[string]string{
		"solve": testAgent("hang", state, scriptedAgent("solve")),
		"prove": "sh " + scriptedAgent("prove"),
	}})
	cmd := runCmd(root, "-j", "2", "--turn-timeout", "10m")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() { cmd.Process.Kill() })

	// Wait for the agent to hang (a deadline only so that a broken run fails
	// instead of hanging the test).
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(state, "sleep.pid")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the agent never started\nstderr: %s", stderr.String())
		}
	}
	if st := status(t, root)["prob_odd_squares"]; st.Holder == "" {
		t.Errorf("status while the agent runs: %+v; want prob_odd_squares leased", st)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	// The agent sleeps for 300s: a run that waited for it would not end
	// within this generous bound.
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) && !ee.Exited() {
			t.Fatalf("run died of a signal (%v); want it to handle SIGINT", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("run still going 60s after SIGINT\nstderr: %s", stderr.String())
	}
	sum := decodeRun(t, stdout.String(), stderr.String())
	if sum.Outcome != "interrupted" {
		t.Errorf("run outcome %q; want interrupted", sum.Outcome)
	}
	checkSettled(t, root, sum)
	checkGone(t, state, "sleep.pid")
	checkGone(t, state, "agent.pid")
	if _, err := os.Stat(filepath.Join(root, ".journal")); err == nil {
		t.Errorf("a journal is left after the interrupted run")
	}
	// The interruption is the operator's doing, not the agent's: the cut-off
	// turn must not be charged to the item's budget.
	if got := fieldOf(t, root, "prob_odd_squares", "idle_turns"); got != "0" && got != "" {
		t.Errorf("prob_odd_squares idle_turns = %s after an interrupted turn; want 0 (an interrupted turn is not an idle one)", got)
	}
}

// checkGone checks that the process whose pid is in state/file has ended
// (a zombie waiting for its reaper counts as ended).
func checkGone(t *testing.T, state, file string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(state, file))
	if errors.Is(err, fs.ErrNotExist) {
		t.Logf("%s: the agent was killed before it wrote it", file)
		return
	} else if err != nil {
		t.Fatal(err)
	}
	pid := strings.TrimSpace(string(b))
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		b, err := os.ReadFile("/proc/" + pid + "/stat")
		if err != nil {
			return
		}
		// The state follows the command name in parentheses.
		if f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:])); len(f) > 0 && (f[0] == "Z" || f[0] == "X") {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("process %s (%s) of the killed agent is still running", pid, file)
			if n, err := strconv.Atoi(pid); err == nil {
				syscall.Kill(n, syscall.SIGKILL) // do not leave it behind
			}
			return
		}
	}
}
