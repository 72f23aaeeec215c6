package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/proofloop/proofloop/bench/storegen"
	"github.com/proofloop/proofloop/store"
)

// The tests of this file hold for both stores or for PostgreSQL alone;
// each PostgreSQL database is fresh and migrated (newPostgres), on the
// throwaway cluster of pgtest.

// TestHammer and TestHammerPostgres: 64 processes at once, 4 calls each,
// all wrapping the same problem: every call reads the problem, allocates
// the next statement id and appends it to the problem's progresses. No
// update may be lost and the numbering must be exact: 256 statements
// named _wrap, _wrap2 ... _wrap256, each in the problem's list once, the
// problem at revision 257, and the log numbered 1..257 without a gap.
func TestHammer(t *testing.T)         { hammer(t, "") }
func TestHammerPostgres(t *testing.T) { hammer(t, newPostgres(t)) }

func hammer(t *testing.T, dsn string) {
	const procs, each = 64, 4
	c := oneProblem(t, dsn, "h")
	var wg sync.WaitGroup
	for p := range procs {
		wg.Go(func() {
			for i := range each {
				k := c.run(&call{Skill: "prob-wrapup-statement", Actor: fmt.Sprintf("p%02d", p), Expect: -1,
					Args: []string{"--problem-path", "prob_h", "--claim", fmt.Sprintf("Claim %d of %d.", i, p), "--purpose", "p"}})
				if !k.ok() {
					t.Errorf("%v", k)
				}
			}
		})
	}
	wg.Wait()
	dir := c.snapshotDir(t)
	raw, err := os.ReadFile(filepath.Join(dir, "problem", "prob_h.json"))
	if err != nil {
		t.Fatal(err)
	}
	var prob struct {
		Revision   int      `json:"revision"`
		Progresses []string `json:"progresses"`
	}
	if err := json.Unmarshal(raw, &prob); err != nil {
		t.Fatal(err)
	}
	var want []string
	for i := 1; i <= procs*each; i++ {
		id := "stmt_h_wrap"
		if i > 1 {
			id += fmt.Sprint(i)
		}
		want = append(want, id)
		if _, err := os.Stat(filepath.Join(dir, "statement", id+".json")); err != nil {
			t.Errorf("%s: %v", id, err)
		}
	}
	got := slices.Sorted(slices.Values(prob.Progresses))
	slices.Sort(want)
	if !slices.Equal(got, want) || prob.Revision != procs*each+1 {
		t.Errorf("prob_h: revision %d, %d progresses; want revision %d and exactly %s..%s", prob.Revision, len(got), procs*each+1, want[0], want[len(want)-1])
	}
	seqs := logSeqs(t, filepath.Join(dir, store.EventsFile))
	if len(seqs) != procs*each+1 || seqs[len(seqs)-1] != len(seqs) {
		t.Errorf("the log has %d events ending at seq %d; want 1..%d", len(seqs), seqs[len(seqs)-1], procs*each+1)
	}
	k := c.run(&call{Skill: "doctor", Expect: -1})
	if !k.ok() || len(k.Out.Report.Findings) > 0 {
		t.Errorf("doctor: %v", k)
	}
}

// logSeqs reads the seq of every line of an events.jsonl and checks that
// they count up from 1 without a gap.
func logSeqs(t *testing.T, path string) []int {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var seqs []int
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var ev struct{ Seq int }
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatal(err)
		}
		if ev.Seq != len(seqs)+1 {
			t.Fatalf("line %d of %s has seq %d", len(seqs)+1, path, ev.Seq)
		}
		seqs = append(seqs, ev.Seq)
	}
	return seqs
}

// pgExec runs one statement on the database of dsn, as an operator would.
func pgExec(t *testing.T, dsn, sql string, args ...any) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql, args...); err != nil {
		t.Fatal(err)
	}
}

// TestServerKilledPostgres: 8 writers wrap statements while the server is
// killed (pg_ctl stop -m immediate) and started again. Every call that
// reported success is in the store; a call that failed while the server
// was away exits 5 (never 1, which is for bugs) and says it may have taken
// effect; nothing is half-applied (doctor is clean, and every statement is
// in its problem's list).
func TestServerKilledPostgres(t *testing.T) {
	dsn := newPostgres(t)
	cl, _ := cluster.Get()
	c := oneProblem(t, dsn, "s")
	stop := make(chan struct{})
	var mu sync.Mutex
	var oks []string
	failed, away := 0, 0 // away: the calls that exited 5, the server gone
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				claim := fmt.Sprintf("Claim %d of writer %d.", i, w)
				k := c.run(&call{Skill: "prob-wrapup-statement", Expect: -1, Args: []string{"--problem-path", "prob_s", "--claim", claim, "--purpose", "p"}})
				mu.Lock()
				switch {
				case k.ok():
					oks = append(oks, k.Out.ID)
				case k.Code == 5 && strings.Contains(k.Stdout, "may or may not have taken effect"):
					failed++
					away++
				case k.Code == 5:
					away++
				default:
					t.Errorf("during the outage: %v", k)
				}
				mu.Unlock()
				if k.Code == 5 {
					time.Sleep(50 * time.Millisecond)
				}
			}
		})
	}
	// Each phase lasts until the writers have met it (a minute at most,
	// against a hang), not for a fixed time: under load before the kill,
	// refused while the server is away, committing again after the start.
	until := func(what string, cond func() bool) {
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
			mu.Lock()
			ok := cond()
			mu.Unlock()
			if ok {
				return
			}
			if time.Now().After(deadline) {
				close(stop)
				wg.Wait()
				t.Fatalf("after a minute, still no %s", what)
			}
		}
	}
	until("8 commits before the kill", func() bool { return len(oks) >= 8 })
	mu.Lock()
	refused := away // a conflict exits 5 too
	mu.Unlock()
	if err := cl.StopImmediate(); err != nil {
		t.Fatal(err)
	}
	until("8 calls refused with the server away", func() bool { return away >= refused+8 })
	if err := cl.Start(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	committed := len(oks)
	mu.Unlock()
	until("8 commits after the start", func() bool { return len(oks) >= committed+8 })
	close(stop)
	wg.Wait()
	t.Logf("%d calls succeeded, %d failed with the server away", len(oks), failed)
	if failed == 0 {
		t.Errorf("no call met the outage: the test did not kill the server under load")
	}
	dir := c.snapshotDir(t)
	var prob struct{ Progresses []string }
	raw, _ := os.ReadFile(filepath.Join(dir, "problem", "prob_s.json"))
	json.Unmarshal(raw, &prob)
	for _, id := range oks {
		if !slices.Contains(prob.Progresses, id) {
			t.Errorf("%s reported success but is not in prob_s's progresses", id)
		}
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "statement"))
	if len(entries) != len(prob.Progresses) {
		t.Errorf("%d statements, %d in prob_s's progresses: a half-applied call", len(entries), len(prob.Progresses))
	}
	logSeqs(t, filepath.Join(dir, store.EventsFile))
	if k := c.run(&call{Skill: "doctor", Expect: -1}); !k.ok() || len(k.Out.Report.Findings) > 0 {
		t.Errorf("doctor after the restart: %v", k)
	}
}

// TestConnectionDroppedPostgres: a command waits inside its transaction
// for a row an operator holds; its connection is then terminated
// (pg_terminate_backend). It exits 5, saying it may have taken effect, and
// nothing of it is written.
func TestConnectionDroppedPostgres(t *testing.T) {
	dsn := newPostgres(t)
	c := oneProblem(t, dsn, "d")
	ctx := context.Background()
	tx := holdRow(t, dsn, "prob_d")
	done := make(chan *call)
	go func() {
		done <- c.run(&call{Skill: "prob-wrapup-statement", Expect: -1, Args: []string{"--problem-path", "prob_d", "--claim", "Dropped.", "--purpose", "p"}})
	}()
	// Wait until the command's backend waits for the lock (no clock: poll
	// the server's own view), then cut its connection.
	// (From another connection: inside a transaction, pg_stat_activity
	// stays as first read.)
	watcher, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer watcher.Close(ctx)
	var pid int
	for pid == 0 {
		watcher.QueryRow(ctx, `SELECT coalesce(max(pid), 0) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()`).Scan(&pid)
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := watcher.Exec(ctx, `SELECT pg_terminate_backend($1)`, pid); err != nil {
		t.Fatal(err)
	}
	k := <-done
	if k.Code != 5 || !strings.Contains(k.Stdout, "may or may not have taken effect") {
		t.Errorf("got %v; want exit 5 saying the command may have taken effect", k)
	}
	tx.Rollback(ctx)
	dir := c.snapshotDir(t)
	if _, err := os.Stat(filepath.Join(dir, "statement", "stmt_d_wrap.json")); err == nil {
		t.Errorf("the dropped command's statement was written")
	}
	if seqs := logSeqs(t, filepath.Join(dir, store.EventsFile)); len(seqs) != 1 {
		t.Errorf("the log has %d events; want 1 (new-problem)", len(seqs))
	}
}

// TestLeaseClockSkewPostgres: leases follow the database's clock, whatever
// the client's says. A client whose clock is an hour slow takes a lease of
// 10s; clients an hour fast and on time may not take the item (by their
// own clocks the lease ran out long ago). Once it has run out by the
// database's clock, a client an hour slow (by whose clock it would still
// hold) takes the item.
func TestLeaseClockSkewPostgres(t *testing.T) {
	dsn := newPostgres(t)
	c := oneProblem(t, dsn, "l")
	claim := func(skew, holder string) (string, int) {
		cmd := exec.Command(bin, "next", "--role", "solve", "--claim", "--ttl", "10s", "--holder", holder, "--json", "--root", c.root)
		cmd.Env = append(c.env(""), store.SkewEnv+"="+skew)
		out, err := cmd.Output()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		var r struct{ Item *struct{ ID string } }
		json.Unmarshal(out, &r)
		if r.Item != nil {
			return r.Item.ID, code
		}
		return "", code
	}
	if id, code := claim("-1h", "slow"); id != "prob_l" {
		t.Fatalf("the first claim got %q (exit %d); want prob_l", id, code)
	}
	for _, skew := range []string{"1h", "0s"} {
		if id, _ := claim(skew, "other"+skew); id == "prob_l" {
			t.Errorf("a client %s off took prob_l while its lease held by the database's clock", skew)
		}
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for {
		var out bool
		err := conn.QueryRow(ctx, `SELECT now() > (convert_from(content, 'UTF8')::jsonb->>'expires_at')::timestamptz FROM files WHERE name = 'leases/prob_l.json'`).Scan(&out)
		if err != nil {
			t.Fatal(err)
		}
		if out {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if id, code := claim("-1h", "slow2"); id != "prob_l" {
		t.Errorf("a client an hour slow got %q (exit %d) after the lease ran out by the database's clock; want prob_l", id, code)
	}
}

// genericAgent is an agent for any problem: the solver wraps the problem
// into one statement and finishes it once that is true, the prover writes a
// two-sentence proof, the checker confirms.
const genericAgent = `#!/bin/sh
set -eu
id=$PROOFLOOP_ID
case $PROOFLOOP_ROLE in
solve)
  for w in $(proofloop show "$id" --field progresses | tr -d '[]"' | tr ',' ' '); do
    if [ "$(proofloop show "$w" --field status)" = true ]; then
      exec proofloop prob-finish-up --problem-path "$id" --key-statement-id "$w" --resolution "It is $w."
    fi
  done
  exec proofloop prob-wrapup-statement --problem-path "$id" --claim "The claim of $id." --purpose "The objective." ;;
prove) exec proofloop state-complete-proof --statement-path "$id" --strategy direct --proof-text "Step 1: It holds for $id. Step 2: Hence it is so." ;;
check) exec proofloop check-confirm-proof --statement-path "$id" --verification-summary "Checked." ;;
*) exit 3 ;;
esac
`

// TestManyMachinesPostgres simulates four machines sharing one server:
// each has its own folder (--root) and runs two `proofloop run -j 4` at
// once, one on its own problem and one on a problem all four share: 32
// agents in all. Every problem ends solved, the log is whole, doctor is
// clean, and no item was ever worked by two holders at once: each claim of
// an item came after the last holder released it or its lease ran out,
// and every change made under a lease was made by the holder of the time.
func TestManyMachinesPostgres(t *testing.T) {
	dsn := newPostgres(t)
	tmp := t.TempDir()
	agent := filepath.Join(tmp, "agent.sh")
	if err := os.WriteFile(agent, []byte(genericAgent), 0o755); err != nil {
		t.Fatal(err)
	}
	admin := &cli{root: filepath.Join(tmp, "admin"), store: dsn}
	setup := []*call{{Skill: "init", Expect: -1}}
	for _, role := range []string{"solve", "prove", "check"} {
		js, _ := json.Marshal("sh " + agent)
		setup = append(setup, &call{Skill: "config", Expect: -1, Args: []string{"set", "agents." + role, string(js)}})
	}
	problems := []string{"shared"}
	for m := 1; m <= 4; m++ {
		problems = append(problems, fmt.Sprintf("m%d", m))
	}
	for _, p := range problems {
		setup = append(setup, &call{Skill: "new-problem", Expect: -1, Args: []string{"--name", p, "--objective", "Show " + p + "."}})
	}
	for _, k := range setup {
		if admin.run(k); !k.ok() {
			t.Fatalf("setup: %v", k)
		}
	}
	var wg sync.WaitGroup
	var turnsMu sync.Mutex
	var progress []byte // every run's JSON Lines
	for m := 1; m <= 4; m++ {
		machine := &cli{root: filepath.Join(tmp, fmt.Sprintf("machine%d", m)), store: dsn}
		for _, p := range []string{fmt.Sprintf("prob_m%d", m), "prob_shared"} {
			wg.Go(func() {
				// As an orchestrator would: a run that finds everything
				// leased by another machine (exit 5) is started again.
				for attempt := 0; ; attempt++ {
					cmd := exec.Command(bin, "run", "--json", "--root", machine.root, "--problem", p, "-j", "4", "--max-turns", "60", "--turn-timeout", "2m")
					cmd.Env = append(machine.env(""), "PROOFLOOP_ACTOR=machine"+fmt.Sprint(m))
					out, err := cmd.Output()
					turnsMu.Lock()
					progress = append(append(progress, out...), '\n')
					turnsMu.Unlock()
					// Exit 5: everything left is leased by another machine; 7:
					// nothing is actionable until another machine's turn ends.
					if ee, ok := err.(*exec.ExitError); ok && (ee.ExitCode() == 5 || ee.ExitCode() == 7 && p == "prob_shared") && attempt < 200 {
						time.Sleep(100 * time.Millisecond)
						continue
					}
					if err != nil {
						t.Errorf("machine %d, run --problem %s: %v\n%.3000s", m, p, err, out)
					}
					return
				}
			})
		}
	}
	wg.Wait()
	dir := admin.snapshotDir(t)
	for _, p := range problems {
		raw, _ := os.ReadFile(filepath.Join(dir, "problem", "prob_"+p+".json"))
		var doc struct{ Status string }
		json.Unmarshal(raw, &doc)
		if doc.Status != "solved" {
			t.Errorf("prob_%s is %q; want solved", p, doc.Status)
		}
	}
	checkTurns(t, progress)
	logSeqs(t, filepath.Join(dir, store.EventsFile))
	if k := admin.run(&call{Skill: "doctor", Expect: -1}); !k.ok() || len(k.Out.Report.Findings) > 0 {
		t.Errorf("doctor: %v", k)
	}
}

// checkTurns reads the turn_started and turn_ended lines of every run and
// reports an item on which two turns (of any machines) overlapped.
func checkTurns(t *testing.T, progress []byte) {
	type span struct {
		run        string
		start, end time.Time
		turn       int
		ended      bool
	}
	turns := map[string]*span{} // run_id/turn
	turnsOf := map[string]string{}
	for line := range strings.SplitSeq(strings.TrimSpace(string(progress)), "\n") {
		var ev struct {
			Event, ID, Time string
			RunID           string `json:"run_id"`
			Turn            int
		}
		if json.Unmarshal([]byte(line), &ev) != nil || ev.Turn == 0 {
			continue
		}
		at, err := time.Parse(time.RFC3339Nano, ev.Time)
		if err != nil {
			t.Fatalf("turn time %q: %v", ev.Time, err)
		}
		key := fmt.Sprintf("%s/%d", ev.RunID, ev.Turn)
		sp := turns[key]
		if sp == nil {
			sp = &span{run: ev.RunID, turn: ev.Turn}
			turns[key] = sp
		}
		switch ev.Event {
		case "turn_started":
			sp.start = at
		case "turn_ended":
			sp.end, sp.ended = at, true
		}
		turnsOf[key] = ev.ID
	}
	byItem := map[string][]*span{}
	for key, sp := range turns {
		if !sp.ended || sp.start.IsZero() {
			t.Errorf("turn %s has no start or no end", key)
			continue
		}
		byItem[turnsOf[key]] = append(byItem[turnsOf[key]], sp)
	}
	for id, sps := range byItem {
		slices.SortFunc(sps, func(a, b *span) int { return a.start.Compare(b.start) })
		for i := 1; i < len(sps); i++ {
			if sps[i].start.Before(sps[i-1].end) {
				t.Errorf("%s was worked twice at once: run %s turn %d (%s-%s) and run %s turn %d (from %s)", id,
					sps[i-1].run, sps[i-1].turn, sps[i-1].start.Format("15:04:05.000"), sps[i-1].end.Format("15:04:05.000"),
					sps[i].run, sps[i].turn, sps[i].start.Format("15:04:05.000"))
			}
		}
	}
	t.Logf("%d turns on %d items by %d machines' runs", len(turns), len(byItem), 4)
	if len(turns) < 5*4 {
		t.Errorf("only %d turns: the runs did not work the problems", len(turns))
	}
}

// TestRoundTripPostgres: a generated store of 400 statements (every
// status, issues, responses, leases, kept proof revisions) is imported
// into an empty database and exported again: every file of the store comes
// back byte for byte, and doctor passes on both sides.
func TestRoundTripPostgres(t *testing.T) {
	dsn := newPostgres(t)
	from := filepath.Join(t.TempDir(), "from")
	if _, err := storegen.Generate(from, storegen.Options{Statements: 400}); err != nil {
		t.Fatal(err)
	}
	machine := filepath.Join(t.TempDir(), "machine")
	back := filepath.Join(t.TempDir(), "back")
	for _, args := range [][]string{
		{"--store", "", "--root", from, "doctor"},
		{"import", "--from", from, "--store", dsn, "--root", machine},
		{"--store", dsn, "--root", machine, "doctor"},
		{"export", "--to", back, "--store", dsn, "--root", machine},
		{"--store", "", "--root", back, "doctor"},
	} {
		if out, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
			t.Fatalf("proofloop %q: %v\n%s", args, err, out)
		}
	}
	files := 0
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if rel == store.IndexFile || strings.HasPrefix(filepath.Base(rel), ".") && !strings.HasPrefix(rel, ".debates") {
			return nil // derived, or not the store's
		}
		files++
		want, _ := os.ReadFile(p)
		got, err := os.ReadFile(filepath.Join(back, rel))
		if err != nil {
			t.Errorf("%s: not exported back: %v", rel, err)
		} else if string(got) != string(want) {
			t.Errorf("%s differs after the round trip", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d files identical after file store -> PostgreSQL -> file store", files)
	if files < 400 {
		t.Errorf("only %d files compared", files)
	}
}

// holdRow is an operator's transaction that holds the row of document id
// (SELECT ... FOR UPDATE) until it is rolled back, or the test ends.
func holdRow(t *testing.T, dsn, id string) pgx.Tx {
	t.Helper()
	ctx := context.Background()
	holder, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { holder.Close(ctx) })
	tx, err := holder.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tx.Rollback(ctx) })
	if _, err := tx.Exec(ctx, `SELECT 1 FROM documents WHERE id = $1 FOR UPDATE`, id); err != nil {
		t.Fatal(err)
	}
	return tx
}
