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

// runSummary is the summary that ends `proofloop run --json`.
type runSummary struct {
	RunID     string         `json:"run_id"`
	Outcome   string         `json:"outcome"`
	Turns     int            `json:"turns"`
	ByRole    map[string]int `json:"by_role"`
	ByOutcome map[string]int `json:"by_outcome"`
	Idle      int            `json:"idle"`
	Failed    int            `json:"failed"`
	TimedOut  int            `json:"timed_out"`
	ElapsedMS *int64         `json:"elapsed_ms"`
	Stuck     []struct {
		ID     string `json:"id"`
		Role   string `json:"role"`
		Reason string `json:"reason"`
	} `json:"stuck"`
	Leased []struct {
		ID        string `json:"id"`
		Role      string `json:"role"`
		Holder    string `json:"holder"`
		ExpiresAt string `json:"expires_at"`
	} `json:"leased"`
	GivenUp []struct {
		Role         string   `json:"role"`
		Agent        string   `json:"agent"`
		Failures     int      `json:"failures"`
		LastOutcome  string   `json:"last_outcome"`
		LastExitCode *int     `json:"last_exit_code"`
		StderrTail   []string `json:"stderr_tail"`
	} `json:"given_up"`
	Logs string `json:"logs"`
}

// runEvent is one line of `proofloop run --json` (any of its shapes).
type runEvent struct {
	Event        string   `json:"event"`
	RunID        string   `json:"run_id"`
	Turn         int      `json:"turn"`
	Role         string   `json:"role"`
	ID           string   `json:"id"`
	Kind         string   `json:"kind"`
	Reason       string   `json:"reason"`
	Agent        string   `json:"agent"`
	Actor        string   `json:"actor"`
	Log          string   `json:"log"`
	Time         string   `json:"time"`
	Outcome      string   `json:"outcome"`
	ExitCode     *int     `json:"exit_code"`
	DurationMS   *int64   `json:"duration_ms"`
	StatusBefore *string  `json:"status_before"`
	StatusAfter  *string  `json:"status_after"`
	Changed      *bool    `json:"changed"`
	Idle         *bool    `json:"idle"`
	Error        string   `json:"error"`
	Failures     int      `json:"failures"`
	StderrTail   []string `json:"stderr_tail"`
}

// runResult is one finished `proofloop run --json`: its exit code, its
// event lines and the result object that ends them.
type runResult struct {
	code   int
	events []runEvent // every line but the last
	last   struct {
		Event   string `json:"event"`
		OK      bool   `json:"ok"`
		Command string `json:"command"`
		Error   struct {
			Code    string `json:"code"`
			Message string `json:"message"`
			Hint    string `json:"hint"`
		} `json:"error"`
		Summary runSummary `json:"summary"`
	}
	sum            runSummary
	stdout, stderr string
}

func (r runResult) String() string {
	return fmt.Sprintf("run: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
}

// ended is the turn_ended event of turn n.
func (r runResult) ended(t *testing.T, n int) runEvent {
	t.Helper()
	for _, e := range r.events {
		if e.Event == "turn_ended" && e.Turn == n {
			return e
		}
	}
	t.Fatalf("no turn_ended event of turn %d\n%v", n, r)
	return runEvent{}
}

// copyContents writes a fresh copy of the example project (the binary's,
// `init --example`) to a new root.
func copyContents(t *testing.T) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "contents")
	if out, err := exec.Command(bin, "init", "--example", dst).CombinedOutput(); err != nil {
		t.Fatalf("init --example: %v\n%s", err, out)
	}
	// The copy has no index: build it now, so that the run's own output
	// carries no "rebuilding the index" notice.
	if out, err := exec.Command(bin, "--root", dst, "doctor", "--reindex").CombinedOutput(); err != nil {
		t.Fatalf("doctor --reindex: %v\n%s", err, out)
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

// runLoop runs `proofloop run --json` to its end, whatever its exit code.
func runLoop(t *testing.T, root string, args ...string) runResult {
	t.Helper()
	cmd := runCmd(root, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok && ee.Exited() {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("proofloop run %s: %v\nstdout: %s\nstderr: %s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return decodeRun(t, code, stdout.String(), stderr.String())
}

// decodeRun parses the JSON Lines of run --json: event objects, then the
// result object with the summary.
func decodeRun(t *testing.T, code int, stdout, stderr string) runResult {
	t.Helper()
	r := runResult{code: code, stdout: stdout, stderr: stderr}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	for i, l := range lines {
		if i == len(lines)-1 {
			if err := json.Unmarshal([]byte(l), &r.last); err != nil {
				t.Fatalf("the last line of run --json is not its result object: %v\n%v", err, r)
			}
			break
		}
		var e runEvent
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("line %d of run --json is not a JSON object: %v\n%v", i+1, err, r)
		}
		r.events = append(r.events, e)
	}
	r.sum = r.last.Summary
	t.Logf("run exit %d, summary: %+v\nstderr:\n%s", code, r.sum, stderr)
	return r
}

// wantOutcome checks a run's exit code and, for an unsolved run, that the
// result object's error code and the summary's outcome both name it.
func wantOutcome(t *testing.T, r runResult, exit int, outcome string) {
	t.Helper()
	if r.code != exit || r.sum.Outcome != outcome || r.last.Event != "summary" || r.last.Command != "run" {
		t.Errorf("run ended with exit %d, outcome %q (event %q, command %q); want exit %d, outcome %s\n%v",
			r.code, r.sum.Outcome, r.last.Event, r.last.Command, exit, outcome, r)
	}
	if outcome == "solved" {
		if !r.last.OK || r.last.Error.Code != "" {
			t.Errorf("result object %+v; want ok:true and no error", r.last)
		}
	} else if r.last.OK || r.last.Error.Code != outcome || r.last.Error.Message == "" {
		t.Errorf("result object ok %v, error %+v; want ok:false with error code %s and a message", r.last.OK, r.last.Error, outcome)
	}
}

// checkSettled checks what every run must leave behind: doctor finds
// nothing, no lease is live, runs/<run-id>/ holds one log per turn, each
// with its header and its trailer, and the event lines tell the same
// story as the summary.
func checkSettled(t *testing.T, root string, r runResult) {
	t.Helper()
	sum := r.sum
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
	checkReleased(t, root, sum.Turns)
	checkEvents(t, root, r)
}

// checkReleased checks that no lease under root is live.
func checkReleased(t *testing.T, root string, turns int) {
	t.Helper()
	leases, _ := filepath.Glob(filepath.Join(root, "leases", "*.json"))
	if len(leases) == 0 && turns > 0 {
		t.Errorf("no lease files after %d turns; want one per claimed item", turns)
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
}

// checkEvents checks the event lines of run --json against the summary
// and the logs: turns numbered 1, 2, ... in the order they started, each
// started once and ended once, the summary's counts those of the ended
// turns, and each log named for its turn, with a trailer that agrees with
// its turn_ended event.
func checkEvents(t *testing.T, root string, r runResult) {
	t.Helper()
	sum := r.sum
	if sum.ElapsedMS == nil || sum.ByOutcome == nil || sum.Stuck == nil || sum.Leased == nil || sum.GivenUp == nil {
		t.Errorf("summary %+v; want elapsed_ms, by_outcome, stuck, leased and given_up always present", sum)
	}
	started := map[int]runEvent{}
	ended := map[int]runEvent{}
	byOutcome := map[string]int{}
	idle := 0
	for i, e := range r.events {
		if e.RunID != sum.RunID {
			t.Errorf("event %d has run_id %q; want %q", i+1, e.RunID, sum.RunID)
		}
		if _, err := time.Parse(time.RFC3339Nano, e.Time); err != nil {
			t.Errorf("event %d time %q: %v", i+1, e.Time, err)
		}
		switch e.Event {
		case "turn_started":
			if e.Turn != len(started)+1 {
				t.Errorf("event %d starts turn %d after %d turns started; want turns numbered in start order", i+1, e.Turn, len(started))
			}
			want := fmt.Sprintf("runs/%s/%04d-%s-%s.log", sum.RunID, e.Turn, e.Role, e.ID)
			if e.Log != want || e.Agent == "" || e.Actor == "" || e.Kind == "" || e.Reason == "" {
				t.Errorf("turn_started %+v; want log %s, agent, actor, kind and reason set", e, want)
			}
			started[e.Turn] = e
		case "turn_ended":
			s, ok := started[e.Turn]
			if _, dup := ended[e.Turn]; !ok || dup || s.Role != e.Role || s.ID != e.ID {
				t.Errorf("turn_ended %+v; want it to end a started turn of the same role and item, once", e)
			}
			if e.DurationMS == nil || e.StatusBefore == nil || e.StatusAfter == nil || e.Changed == nil || e.Idle == nil {
				t.Fatalf("turn_ended %+v; want duration_ms, status_before, status_after, changed and idle", e)
			}
			// A turn that did not start has sh's 126 or 127, or no code
			// when sh itself could not be started.
			notStarted := e.Outcome == "not_started" && (e.ExitCode == nil || *e.ExitCode == 126 || *e.ExitCode == 127)
			if !notStarted && (e.ExitCode == nil) != (e.Outcome == "timeout" || e.Outcome == "interrupted" || e.Outcome == "not_started") ||
				(e.Outcome == "ok") != (e.ExitCode != nil && *e.ExitCode == 0) {
				t.Errorf("turn_ended %+v: outcome %s with exit code %v", e, e.Outcome, e.ExitCode)
			}
			if *e.Idle && *e.Changed {
				t.Errorf("turn_ended %+v: idle and changed", e)
			}
			if *e.Idle {
				idle++
			}
			byOutcome[e.Outcome]++
			ended[e.Turn] = e
		case "agent_given_up":
		default:
			t.Errorf("event %d: unknown event %q", i+1, e.Event)
		}
	}
	if len(started) != sum.Turns || len(ended) != sum.Turns || idle != sum.Idle {
		t.Errorf("%d turns started, %d ended, %d idle; the summary says %d turns, %d idle", len(started), len(ended), idle, sum.Turns, sum.Idle)
	}
	for k, n := range sum.ByOutcome {
		if byOutcome[k] != n {
			t.Errorf("summary by_outcome %v; the turn_ended events count %v", sum.ByOutcome, byOutcome)
			break
		}
	}
	roles := 0
	for _, n := range sum.ByRole {
		roles += n
	}
	if roles != sum.Turns {
		t.Errorf("by_role %v adds up to %d; want turns %d", sum.ByRole, roles, sum.Turns)
	}
	if sum.Turns == 0 {
		if sum.Logs != "" {
			t.Errorf("summary logs %q after no turn; want \"\"", sum.Logs)
		}
		if _, err := os.Stat(filepath.Join(root, "runs", sum.RunID)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("runs/%s after no turn: %v; want no folder", sum.RunID, err)
		}
		return
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
	trailer := regexp.MustCompile(`\n# turn ([0-9]+) ended: ([a-z_]+), (exit [0-9]+(?:: [a-z ]+)?|killed|killed by a signal|not started), [0-9.]+(ms|s|µs|m[0-9.]+s)\n$`)
	for n, s := range started {
		text := readFile(t, filepath.Join(root, s.Log))
		if head := fmt.Sprintf("# turn %d: %s on %s", n, s.Role, s.ID); !strings.HasPrefix(text, head) {
			t.Errorf("%s starts %.60q; want %q", s.Log, text, head)
		}
		m := trailer.FindStringSubmatch(text)
		e := ended[n]
		exit := "killed"
		if e.ExitCode != nil {
			exit = fmt.Sprintf("exit %d", *e.ExitCode)
		}
		if m == nil || m[1] != strconv.Itoa(n) || m[2] != e.Outcome || (m[3] != exit && !strings.HasPrefix(m[3], exit)) {
			t.Errorf("%s ends %q; want a trailer with turn %d, outcome %s, %s and the duration", s.Log, text[max(0, len(text)-80):], n, e.Outcome, exit)
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
// with four workers, and reports every turn on stdout as JSON Lines.
func TestRunScriptedAgents(t *testing.T) {
	for _, jobs := range []string{"1", "4"} {
		t.Run("j"+jobs, func(t *testing.T) {
			root := copyContents(t)
			r := runLoop(t, root, "-j", jobs, "--max-turns", "100", "--turn-timeout", "1m")
			wantOutcome(t, r, 0, "solved")
			sum := r.sum
			if sum.Failed != 0 || sum.TimedOut != 0 || sum.Idle != 0 || len(sum.Stuck) != 0 || sum.ByOutcome["ok"] != sum.Turns {
				t.Errorf("run -j %s: %+v; want every turn ok, none idle, nothing stuck", jobs, sum)
			}
			if got := fieldOf(t, root, "prob_odd_squares", "status"); got != "solved" {
				t.Errorf("prob_odd_squares is %s; want solved", got)
			}
			checkSettled(t, root, r)
			// The last turn solved the problem, and said so.
			last := r.ended(t, sum.Turns)
			if last.ID != "prob_odd_squares" || *last.StatusBefore != "pending" || *last.StatusAfter != "solved" || !*last.Changed {
				t.Errorf("last turn_ended %+v; want prob_odd_squares pending -> solved", last)
			}
			if r.stderr != "" {
				t.Errorf("run --json wrote to stderr: %q; want the progress on stdout only", r.stderr)
			}

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
	// in any case, and the summary must count what the events report.
	r := runLoop(t, root, "-j", "2", "--turn-timeout", "2s", "--max-turns", "100")
	wantOutcome(t, r, 0, "solved")
	if e := r.ended(t, 1); e.Role != "solve" || e.ID != "prob_odd_squares" || e.Outcome != "timeout" || e.ExitCode != nil {
		t.Errorf("turn 1 ended %+v; want solve on prob_odd_squares, timeout, no exit code", e)
	}
	timeouts := 0
	for _, e := range r.events {
		if e.Event == "turn_ended" && e.Outcome == "timeout" {
			timeouts++
		}
	}
	if r.sum.TimedOut != timeouts || r.sum.Failed != 0 {
		t.Errorf("run: %+v; want timed_out %d, as the events show, and no failed turn", r.sum, timeouts)
	}
	checkSettled(t, root, r)
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
	if log := readFile(t, filepath.Join(root, "runs", r.sum.RunID, "0001-solve-prob_odd_squares.log")); !strings.Contains(log, "hanging on prob_odd_squares") {
		t.Errorf("log of turn 1: %q; want the hung agent's output kept", log)
	}
}

// TestRunAgentCrashes: the prover's first turn exits 1; it counts as
// failed, its lease is released, and the run goes on to solved (one
// failure is not max_agent_failures in a row).
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
	r := runLoop(t, root, "-j", "1", "--turn-timeout", "1m", "--max-turns", "100")
	wantOutcome(t, r, 0, "solved")
	if r.sum.Failed != 1 || r.sum.TimedOut != 0 || r.sum.ByOutcome["failed"] != 1 || len(r.sum.GivenUp) != 0 {
		t.Errorf("run: %+v; want exactly one failed turn and no agent given up", r.sum)
	}
	checkSettled(t, root, r)
	var crashed *runEvent
	for _, e := range r.events {
		if e.Event == "turn_ended" && e.Outcome == "failed" {
			crashed = &e
		}
	}
	if crashed == nil || crashed.Role != "prove" || crashed.ExitCode == nil || *crashed.ExitCode != 1 || !*crashed.Idle {
		t.Fatalf("failed turn %+v; want the prover's, exit 1, idle", crashed)
	}
	log := readFile(t, filepath.Join(root, "runs", r.sum.RunID, fmt.Sprintf("%04d-prove-%s.log", crashed.Turn, crashed.ID)))
	if !strings.Contains(log, "crashing on") {
		t.Errorf("log of the failed turn: %q; want the crashed agent's stderr kept", log)
	}
}

// TestRunAgentIdle: a prover that changes nothing spends the statement's
// budget one idle turn at a time; with max_rounds 2 the third idle turn of
// a level climbs the ladder (revise, replan, rewrite: nothing was tried, so
// nothing is a dead end), the third at the last level leaves it to decide
// (outcome exhausted), and with no decide agent the run stops out of
// budget (exit 8), naming the statement and why.
func TestRunAgentIdle(t *testing.T) {
	root := newRoot(t, map[string]any{"max_rounds": 2, "agents": map[string]string{"prove": testAgent("idle")}})
	newOdd(t, root)
	r := runLoop(t, root, "--turn-timeout", "1m", "--max-turns", "20")
	wantOutcome(t, r, 8, "budget_spent")
	sum := r.sum
	if sum.Turns != 9 || sum.Idle != 9 || sum.Failed != 0 {
		t.Errorf("run: %+v; want 9 idle turns, 3 per level", sum)
	}
	if got := fieldOf(t, root, "stmt_odd_wrap", "level"); got != "rewrite" {
		t.Errorf("stmt_odd_wrap level = %s; want rewrite, the last", got)
	}
	if got := fieldOf(t, root, "stmt_odd_wrap", "dead_ends"); got != "" {
		t.Errorf("stmt_odd_wrap has %s dead ends; want none (no proof was tried)", got)
	}
	if len(sum.Stuck) != 1 || sum.Stuck[0].ID != "stmt_odd_wrap" || sum.Stuck[0].Role != "decide" || !strings.Contains(sum.Stuck[0].Reason, "budget") {
		t.Errorf("stuck %+v; want only stmt_odd_wrap, for decide, with a reason about the spent budget", sum.Stuck)
	}
	if !strings.Contains(r.last.Error.Message, "out of budget") || !strings.Contains(r.last.Error.Message, "stmt_odd_wrap") || !strings.Contains(r.last.Error.Hint, "--extend") {
		t.Errorf("error %+v; want it to say out of budget, name stmt_odd_wrap and hint at decide --extend", r.last.Error)
	}
	checkSettled(t, root, r)

	if got := fieldOf(t, root, "stmt_odd_wrap", "idle_turns"); got != "9" {
		t.Errorf("stmt_odd_wrap idle_turns = %s; want 9", got)
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
	if len(idle) != 9 {
		t.Errorf("run-idle events %v; want 9", idle)
	}
	it := status(t, root)["stmt_odd_wrap"]
	if it.Role != "decide" || it.Outcome != "exhausted" {
		t.Errorf("status: stmt_odd_wrap %+v; want role decide with outcome exhausted", it)
	}

	// Run again, for a person: it stops at once, says what is left and why,
	// exits 8 again, and leaves no folder under runs/ for a run without turns.
	before, _ := os.ReadDir(filepath.Join(root, "runs"))
	again := pl(t, root, nil, "run")
	if again.code != 8 || !regexp.MustCompile(`(?m)^  stmt_odd_wrap \(decide\): .*budget`).MatchString(again.stdout) ||
		!strings.Contains(again.stdout, "out of budget after 0 turns") || !strings.Contains(again.stderr, "proofloop run: out of budget") {
		t.Errorf("%v\nwant exit 8, the summary naming stmt_odd_wrap for decide and its budget on stdout, and the outcome on stderr", again)
	}
	if after, _ := os.ReadDir(filepath.Join(root, "runs")); len(after) != len(before) {
		t.Errorf("runs/ holds %d folders after a run without turns; want %d, as before", len(after), len(before))
	}
}

// TestRunInterrupted: SIGINT while an agent runs kills the agent, releases
// its lease and ends the run promptly with exit 130, with nothing half done.
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
	waitFile(t, filepath.Join(state, "sleep.pid"), &stderr)
	if st := status(t, root)["prob_odd_squares"]; st.Holder == "" {
		t.Errorf("status while the agent runs: %+v; want prob_odd_squares leased", st)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	// The agent sleeps for 300s: a run that waited for it would not end
	// within this generous bound.
	var err error
	select {
	case err = <-done:
	case <-time.After(60 * time.Second):
		t.Fatalf("run still going 60s after SIGINT\nstderr: %s", stderr.String())
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if !ee.Exited() {
			t.Fatalf("run died of a signal (%v); want it to handle SIGINT", err)
		}
		code = ee.ExitCode()
	}
	r := decodeRun(t, code, stdout.String(), stderr.String())
	wantOutcome(t, r, 130, "interrupted")
	if e := r.ended(t, 1); e.Outcome != "interrupted" || e.ExitCode != nil {
		t.Errorf("turn 1 ended %+v; want interrupted, no exit code", e)
	}
	checkSettled(t, root, r)
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

// waitFile waits until path exists. The deadline is hang protection only:
// a broken run fails the test instead of hanging it.
func waitFile(t *testing.T, path string, stderr *bytes.Buffer) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never appeared\nstderr: %s", path, stderr.String())
		}
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
