package loop_test

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRunKillsOrphans (issue 10, defect 5; issue 34, N11): an agent that
// leaves a background child behind and exits (0 or 1) does not outlive its
// turn: the child is killed before run returns, also one that left the
// agent's process group and session with setsid (run's reaper is its
// subreaper), even when the agent killed its reaper (run, a subreaper
// too, adopts the orphans), and it writes nothing to the store afterwards.
//
// The child holds the write end of a FIFO. Reading the FIFO ends (EOF) only
// once every process holding that end is dead, so the test knows for sure,
// without looking at /proc, whether anything of the turn is left.
func TestRunKillsOrphans(t *testing.T) {
	for _, tc := range []struct {
		code    string
		outcome string
		setsid  string
	}{{"0", "ok", ""}, {"1", "failed", ""}, {"0", "ok", "setsid"}, {"0", "failed", "killreaper"}} {
		t.Run("exit"+tc.code+tc.setsid, func(t *testing.T) {
			state := t.TempDir()
			fifo := filepath.Join(state, "fifo")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Fatal(err)
			}
			root := newRoot(t, map[string]any{"agents": map[string]string{"prove": strings.TrimSpace(testAgent("orphan", state, tc.code, tc.setsid))}})
			newOdd(t, root)
			t.Cleanup(func() { killPidFile(state, "child.pid") })

			// Open the read end first: the child's open for writing waits for it.
			eof := make(chan error, 1)
			go func() {
				f, err := os.Open(fifo)
				if err != nil {
					eof <- err
					return
				}
				defer f.Close()
				_, err = io.Copy(io.Discard, f)
				eof <- err
			}()

			r := runLoop(t, root, "--max-turns", "1", "--turn-timeout", "1m")
			wantOutcome(t, r, 8, "max_turns")
			// A killed reaper ends the turn as killed by a signal: no exit code.
			if e := r.ended(t, 1); e.Outcome != tc.outcome || (tc.setsid != "killreaper" && (e.ExitCode == nil || strconv.Itoa(*e.ExitCode) != tc.code)) {
				t.Errorf("turn 1 ended %+v; want outcome %s, exit %s", e, tc.outcome, tc.code)
			}
			checkSettled(t, root, r)
			eventsAfter := readFile(t, filepath.Join(root, "events.jsonl"))

			// run has returned: the child must already be dead. The bound is
			// hang protection for a broken run, not a timing assertion.
			select {
			case err := <-eof:
				if err != nil {
					t.Fatalf("reading the FIFO: %v", err)
				}
			case <-time.After(30 * time.Second):
				t.Fatalf("the agent's background child still holds its FIFO 30s after run returned (pid %s)", readFile(t, filepath.Join(state, "child.pid")))
			}
			// Let a surviving child go on to write, as it would have; none is left.
			if err := os.WriteFile(filepath.Join(state, "go"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			if got := readFile(t, filepath.Join(root, "events.jsonl")); got != eventsAfter {
				t.Errorf("events.jsonl changed after run returned:\n%s", strings.TrimPrefix(got, eventsAfter))
			}
			if _, err := os.Stat(filepath.Join(root, "problem", "prob_late.json")); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("problem/prob_late.json: %v; want no such file (the child must not write after its turn)", err)
			}
		})
	}
}

// killPidFile kills the process whose pid is in state/file, if any: a
// failing test leaves nothing behind.
func killPidFile(state, file string) {
	os.WriteFile(filepath.Join(state, "go"), nil, 0o644)
	if b, err := os.ReadFile(filepath.Join(state, file)); err == nil {
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 1 {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// TestRunDamagedStoreReleasesLease (issue 10, defect 6): an agent that
// damages its item's file ends the run with exit 6 store_damaged, and the
// turn's lease is released all the same (the release reads the lease file
// only, never the damaged item).
func TestRunDamagedStoreReleasesLease(t *testing.T) {
	root := newRoot(t, map[string]any{"agents": map[string]string{"prove": testAgent("damage")}})
	newOdd(t, root)
	r := runLoop(t, root, "--max-turns", "5", "--turn-timeout", "1m")
	if r.code != 6 || r.last.OK || r.last.Error.Code != "store_damaged" || r.sum.Outcome != "store_damaged" {
		t.Fatalf("%v\nwant exit 6 with error code store_damaged and the summary's outcome store_damaged", r)
	}
	if r.sum.Turns != 1 || r.sum.Logs != "runs/"+r.sum.RunID {
		t.Errorf("summary %+v; want the one turn that damaged the store, and its logs", r.sum)
	}
	if e := r.ended(t, 1); e.ID != "stmt_odd_wrap" || e.Outcome != "ok" || e.Error == "" {
		t.Errorf("turn 1 ended %+v; want stmt_odd_wrap, ok, with the error that ended the run", e)
	}
	l := readLease(t, root, "stmt_odd_wrap")
	if l.ReleasedAt == nil {
		t.Errorf("lease of stmt_odd_wrap after the run: %+v; want released_at set", l)
	}
	_, evs := events(t, root)
	if n := len(evs); n < 2 || evs[n-2].Command != "release" || len(evs[n-2].IDs) != 1 || evs[n-2].IDs[0] != "stmt_odd_wrap" || evs[n-1].Command != "run-turn" {
		t.Errorf("last events %+v; want the run's release of stmt_odd_wrap, then the turn's run-turn record", evs[max(0, n-2):])
	}
	if _, err := os.Stat(filepath.Join(root, ".journal")); err == nil {
		t.Errorf("a journal is left after the run")
	}
}

// TestRunSecondRunFindsLeases (issue 10, defect 13): a second run on the
// same problem while the first holds the only actionable item does not say
// "stuck": it exits 5 lease_held at once, naming the item, its holder and
// the expiry, and writes nothing. The first run is undisturbed.
func TestRunSecondRunFindsLeases(t *testing.T) {
	state := t.TempDir()
	root := newRoot(t, map[string]any{"agents": map[string]string{"prove": testAgent("wait", state)}})
	newOdd(t, root)
	first := runCmd(root, "--max-turns", "1", "--turn-timeout", "1m")
	var stdout, stderr bytes.Buffer
	first.Stdout, first.Stderr = &stdout, &stderr
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- first.Wait() }()
	t.Cleanup(func() {
		os.WriteFile(filepath.Join(state, "go"), nil, 0o644)
		first.Process.Kill()
	})
	waitFile(t, filepath.Join(state, "started"), &stderr)

	lease := readLease(t, root, "stmt_odd_wrap")
	before := treeOf(t, root)
	second := runLoop(t, root, "--problem", "prob_odd", "--turn-timeout", "1m")
	wantOutcome(t, second, 5, "lease_held")
	msg := second.last.Error.Message
	for _, want := range []string{"leased by others", "stmt_odd_wrap", lease.Holder, lease.ExpiresAt} {
		if !strings.Contains(msg, want) {
			t.Errorf("error message %q; want it to name %q", msg, want)
		}
	}
	if !strings.Contains(second.last.Error.Hint, "retry") {
		t.Errorf("hint %q; want it to say retry", second.last.Error.Hint)
	}
	if l := second.sum.Leased; len(l) != 1 || l[0].ID != "stmt_odd_wrap" || l[0].Role != "prove" || l[0].Holder != lease.Holder || l[0].ExpiresAt != lease.ExpiresAt {
		t.Errorf("summary leased %+v; want stmt_odd_wrap for prove, held by %s until %s", l, lease.Holder, lease.ExpiresAt)
	}
	if second.sum.Turns != 0 || len(second.events) != 0 || second.sum.Logs != "" {
		t.Errorf("second run: %+v, %d events; want no turn, no event, no logs", second.sum, len(second.events))
	}
	// For a person: the same on stderr, the leases in the summary.
	text := pl(t, root, nil, "run", "--turn-timeout", "1m")
	if text.code != 5 || !strings.Contains(text.stderr, "proofloop run: everything left to do is leased by others: stmt_odd_wrap (prove) to "+lease.Holder) ||
		!regexp.MustCompile(`(?m)^Leased by others:\n  stmt_odd_wrap \(prove\) to run-`).MatchString(text.stdout) {
		t.Errorf("%v\nwant exit 5, the leased item named on stderr and in the summary", text)
	}
	if after := treeOf(t, root); after != before {
		t.Errorf("the second runs changed the root:\nbefore:\n%s\nafter:\n%s", before, after)
	}

	// Let the first run's agent go: its turn ends, and it stops at its one turn.
	if err := os.WriteFile(filepath.Join(state, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatalf("the first run did not end after its agent was let go\nstderr: %s", stderr.String())
	}
	r := decodeRun(t, first.ProcessState.ExitCode(), stdout.String(), stderr.String())
	wantOutcome(t, r, 8, "max_turns")
	checkSettled(t, root, r)
}

// treeOf lists every file under root with its size and modification time,
// one per line, for "nothing changed" checks.
func treeOf(t *testing.T, root string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			b.WriteString(rel + "/\n")
		} else {
			b.WriteString(rel + " " + strconv.FormatInt(info.Size(), 10) + " " + info.ModTime().String() + "\n")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestRunGivesUpOnBrokenAgent (issue 11, item 13): an agent command that
// does not exist fails max_agent_failures turns in a row (3 by default, or
// as config.json says); then run stops starting it, says why with the last
// line of its stderr, and exits 7 stuck instead of burning the turn budget.
func TestRunGivesUpOnBrokenAgent(t *testing.T) {
	for _, tc := range []struct {
		name  string
		limit any // max_agent_failures in config.json; nil for the default
		want  int
	}{{"default", nil, 3}, {"config2", 2, 2}} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := map[string]any{"agents": map[string]string{"prove": "no-such-agent-cmd --go"}}
			if tc.limit != nil {
				cfg["max_agent_failures"] = tc.limit
			}
			root := newRoot(t, cfg)
			newOdd(t, root)
			r := runLoop(t, root, "--max-turns", "50", "--turn-timeout", "1m")
			wantOutcome(t, r, 7, "stuck")
			sum := r.sum
			if sum.Turns != tc.want || sum.Failed != tc.want || sum.ByOutcome["not_started"] != tc.want || sum.Idle != 0 {
				t.Errorf("summary %+v; want %d turns that did not start, none idle, then no more", sum, tc.want)
			}
			// A start that failed is the configuration's fault: nothing is
			// charged to the item's round budget.
			if got := fieldOf(t, root, "stmt_odd_wrap", "idle_turns"); got != "" && got != "0" {
				t.Errorf("stmt_odd_wrap has idle_turns %s after agents that never started; want none charged", got)
			}
			if len(sum.GivenUp) != 1 {
				t.Fatalf("given_up %+v; want the prove agent", sum.GivenUp)
			}
			g := sum.GivenUp[0]
			tail := strings.Join(g.StderrTail, "\n")
			if g.Role != "prove" || g.Agent != "no-such-agent-cmd --go" || g.Failures != tc.want || g.LastOutcome != "not_started" ||
				g.LastExitCode == nil || *g.LastExitCode != 127 || !strings.Contains(tail, "no-such-agent-cmd") || !strings.Contains(tail, "not found") {
				t.Errorf("given up %+v; want prove, its command, %d failures, exit 127 and sh's \"not found\" in the stderr tail", g, tc.want)
			}
			msg := r.last.Error.Message
			if !strings.Contains(msg, "gave up on the prove agent after "+strconv.Itoa(tc.want)+" failures in a row") || !strings.Contains(msg, "exit 127") || !strings.Contains(msg, "not found") {
				t.Errorf("error message %q; want it to say it gave up on the prove agent, with exit 127 and its stderr", msg)
			}
			if len(sum.Stuck) != 1 || sum.Stuck[0].ID != "stmt_odd_wrap" || !strings.Contains(sum.Stuck[0].Reason, "given up") {
				t.Errorf("stuck %+v; want stmt_odd_wrap, saying its agent was given up", sum.Stuck)
			}
			// The give-up event comes right after the turn that decided it.
			n := len(r.events)
			if n < 2 || r.events[n-1].Event != "agent_given_up" || r.events[n-1].Role != "prove" || r.events[n-1].Failures != tc.want ||
				r.events[n-2].Event != "turn_ended" || r.events[n-2].Turn != tc.want {
				t.Errorf("events %+v; want agent_given_up for prove after turn %d ended", r.events, tc.want)
			}
			checkSettled(t, root, r)
		})
	}

	// For a person: the give-up line quotes the stderr, and the summary too.
	root := newRoot(t, map[string]any{"agents": map[string]string{"prove": "no-such-agent-cmd --go"}})
	newOdd(t, root)
	text := pl(t, root, nil, "run", "--turn-timeout", "1m")
	if text.code != 7 ||
		!regexp.MustCompile(`(?m)^giving up on the prove agent \(no-such-agent-cmd --go\): it could not start 3 turns in a row, the last with exit 127 \(its command was not found or is not executable; check agents.prove in config.json\); the last lines of its stderr:\n    .*no-such-agent-cmd.*not found`).MatchString(text.stderr) ||
		!regexp.MustCompile(`(?m)^Given up:\n  the prove agent \(no-such-agent-cmd --go\), after 3 failures in a row:\n    .*not found`).MatchString(text.stdout) {
		t.Errorf("%v\nwant exit 7, the give-up line with the stderr on stderr, and the agent under \"Given up\" in the summary", text)
	}
	if !strings.Contains(text.stderr, "turn 1: prove on stmt_odd_wrap ended: did not start (exit 127: the command was not found; not charged to stmt_odd_wrap)") {
		t.Errorf("stderr %q; want each turn reported as one that did not start, not charged to the item", text.stderr)
	}

	// A command that is there but not executable (sh exits 126) did not
	// start either.
	script := filepath.Join(t.TempDir(), "prove.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nexit 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	root = newRoot(t, map[string]any{"agents": map[string]string{"prove": script}})
	newOdd(t, root)
	r := runLoop(t, root, "--max-turns", "50", "--turn-timeout", "1m")
	wantOutcome(t, r, 7, "stuck")
	if r.sum.ByOutcome["not_started"] != 3 || r.sum.Idle != 0 || len(r.sum.GivenUp) != 1 ||
		r.sum.GivenUp[0].LastExitCode == nil || *r.sum.GivenUp[0].LastExitCode != 126 {
		t.Errorf("summary %+v; want 3 turns that did not start (exit 126), none idle, the prove agent given up", r.sum)
	}
	if got := fieldOf(t, root, "stmt_odd_wrap", "idle_turns"); got != "" && got != "0" {
		t.Errorf("stmt_odd_wrap has idle_turns %s; want none charged", got)
	}
}

// TestRunProgressText (issue 11, item 12): for a person, run prints a line
// when each turn starts (number, role, item, agent) and ends (exit code,
// duration, status before -> after) on stderr, never a live line when
// stderr is not a terminal, and a summary on stdout: turns by outcome,
// time, logs, and what is left.
func TestRunProgressText(t *testing.T) {
	solve, prove := testAgent("solve"), testAgent("prove")
	root := newRoot(t, map[string]any{"agents": map[string]string{"solve": solve, "prove": prove}})
	must(t, root, "new-problem", "--name", "odd", "--objective", "The sum of the first n odd numbers is n^2.")
	r := pl(t, root, nil, "run", "--turn-timeout", "1m")
	if r.code != 7 {
		t.Fatalf("%v\nwant exit 7 (nobody checks the proof)", r)
	}
	lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
	want := []*regexp.Regexp{
		regexp.MustCompile(`^turn 1: solve on prob_odd started: ` + regexp.QuoteMeta(solve) + `$`),
		regexp.MustCompile(`^turn 1: solve on prob_odd ended: exit 0 after [0-9.]+s; still pending, revision 1 -> 2$`),
		regexp.MustCompile(`^turn 2: prove on stmt_odd_wrap started: ` + regexp.QuoteMeta(prove) + `$`),
		regexp.MustCompile(`^turn 2: prove on stmt_odd_wrap ended: exit 0 after [0-9.]+s; pending -> awaiting_verification$`),
		regexp.MustCompile(`^proofloop run: stuck after 2 turns: nothing left that the agents of config.json can do$`),
	}
	if len(lines) < len(want) {
		t.Fatalf("stderr %q; want at least %d lines", r.stderr, len(want))
	}
	for i, re := range want {
		if !re.MatchString(lines[i]) {
			t.Errorf("stderr line %d = %q; want %s", i+1, lines[i], re)
		}
	}
	if strings.ContainsAny(r.stderr, "\r\x1b") {
		t.Errorf("stderr %q holds a live line; want none when stderr is not a terminal", r.stderr)
	}
	sum := regexp.MustCompile(`^Run ([0-9]{8}T[0-9]{9}Z-[0-9a-f]{8}): stuck after 2 turns in [0-9.]+m?s \(2 ok; 0 idle\); logs in .*/contents/runs/([0-9]{8}T[0-9]{9}Z-[0-9a-f]{8})\.\nLeft:\n(  .*\n)*  stmt_odd_wrap \(check\): .*\(no agent for check in config.json\)\n`)
	m := sum.FindStringSubmatch(r.stdout)
	if m == nil || m[1] != m[2] {
		t.Errorf("stdout %q; want the summary %s", r.stdout, sum)
	}
	if m != nil {
		log := readFile(t, filepath.Join(root, "runs", m[1], "0002-prove-stmt_odd_wrap.log"))
		if !regexp.MustCompile(`\n# turn 2 ended: ok, exit 0, [0-9.]+(ms|s|µs)\n$`).MatchString(log) {
			t.Errorf("turn log %q; want it to end with the exit code and duration", log)
		}
	}
}

// TestRunLiveLine (issue 11, item 12): on a terminal, run keeps a live line
// (elapsed time, turns in flight) on stderr, rewritten with \r and cleared
// before every other line. util-linux script gives the run a terminal.
func TestRunLiveLine(t *testing.T) {
	script, err := exec.LookPath("script")
	if err != nil {
		t.Skip("no script(1) to give the run a terminal")
	}
	root := newRoot(t, map[string]any{"agents": map[string]string{"prove": testAgent("prove")}})
	newOdd(t, root)
	cmd := exec.Command(script, "-qec", bin+" run --turn-timeout 1m", "/dev/null")
	cmd.Env = cleanEnv("PROOFLOOP_ROOT="+root, "TERM=dumb")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 7 {
		t.Fatalf("script run: %v; want exit 7\n%q", err, out)
	}
	text := string(out)
	live := regexp.MustCompile(`\r\x1b\[K[0-9.]+m?s elapsed, 1 turn in flight: 1 prove stmt_odd_wrap \([0-9.]+m?s\)`)
	if !live.MatchString(text) {
		t.Errorf("terminal output %q; want a live line with the elapsed time and turn 1 in flight", text)
	}
	// Each progress line starts on a cleared line, not after the live one.
	if !strings.Contains(text, "\r\x1b[Kturn 1: prove on stmt_odd_wrap ended: exit 0") {
		t.Errorf("terminal output %q; want the live line cleared before the turn's end line", text)
	}
}

// TestRunPrunesOldRuns (issue 11, item 12): when a run starts, runs/ keeps
// the newest keep_runs run folders, this one included; anything else under
// runs/ is left alone.
func TestRunPrunesOldRuns(t *testing.T) {
	root := newRoot(t, map[string]any{"keep_runs": 3, "agents": map[string]string{"prove": testAgent("prove")}})
	newOdd(t, root)
	runs := filepath.Join(root, "runs")
	for _, d := range []string{"20200101T000000000Z", "20200101T000000000Z-10", "20200101T000000000Z-2", "20210101T000000000Z-0a1b2c3d", "keep-me"} {
		if err := os.MkdirAll(filepath.Join(runs, d), 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(runs, d, "0001-x.log"), []byte("old\n"), 0o644)
	}
	os.WriteFile(filepath.Join(runs, "notes.txt"), []byte("mine\n"), 0o644)
	r := runLoop(t, root, "--turn-timeout", "1m")
	wantOutcome(t, r, 7, "stuck")
	entries, err := os.ReadDir(runs)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	want := []string{"20200101T000000000Z-10", "20210101T000000000Z-0a1b2c3d", r.sum.RunID, "keep-me", "notes.txt"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("runs/ holds %v; want %v (the 3 newest runs, and what is not a run)", got, want)
	}
}
