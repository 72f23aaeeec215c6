package e2e

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/proofloop/proofloop/store"
)

// crashHooks are the steps of the file store's write path that
// PROOFLOOP_TEST_CRASH stops at, from the store's own list: the commit, the
// log's sync, the writes and the checkpoint (the replay's steps need a log
// from another boot, which the store's tests make). Each says whether the
// transaction must have taken effect when it dies there: everything from
// the mark on is finished by the next command.
var crashHooks = func() (hooks []store.CrashStep) {
	for _, c := range store.CrashSteps {
		if !c.Replay {
			hooks = append(hooks, c)
		}
	}
	return hooks
}()

// crashStep is the step of crashHooks named name; a hook of export is
// none of them (ok false).
func crashStep(name string) (step store.CrashStep, ok bool) {
	for _, c := range crashHooks {
		if c.Name == name {
			return c, true
		}
	}
	return store.CrashStep{}, false
}

// multiFile are the skills that write two or more files in one transaction.
// fix-patch-proof writes the statement and appends its kept revision to
// proofs/<id>.jsonl in one transaction.
var multiFile = []string{"fix-create-substatement", "state-setup-substatement", "prob-setup-subgoal", "prob-wrapup-statement", "fix-patch-proof"}

// TestMixedCrash kills proofloop with SIGKILL while it runs the multi-file
// skills, from four workers at once, and runs `proofloop doctor` after each
// kill, which must find the store consistent. Most kills come after a random
// delay (see crasher.aim), so they land anywhere in a call, the commit
// included; the rest set PROOFLOOP_TEST_CRASH so that each step of the
// write path (crashHooks) is hit for certain. The write-ahead log is kept
// small (killWALLimit), so that the random kills land in checkpoints too. Between kills a worker brings its own statements back
// into a status the next skill accepts, with ordinary calls.
//
// At the end of each round, every call must have taken effect entirely or
// not at all, found by the unique text it writes: a gap-filling
// sub-statement together with its response, both planned sub-statements
// together, a new wrap-up statement or subproblem together with its
// parent's list. A call that exited 0, or died after the commit point, took
// effect; one that was refused or died before it did not. Each call has its
// own actor, and the events with that actor must number one if it took
// effect and none if not; the events are as many as the transactions
// present in the documents. The generic invariants (snapshot.check) hold
// too: links both ways, issue and response numbers contiguous, every
// revision of every document written by exactly one event.
//
// Each round starts a fresh store, so that doctor, which reads every file,
// stays fast and the soak mode's ten times as many rounds take ten times as
// long. Normal mode: 2 rounds of 4 workers x (25 kills + 5 hooks): 200
// random kills and 40 at the 9 steps of crashHooks, 4 to 6 at each
// step (the same length as when it aimed 8 kills at each of 5 steps).
func TestMixedCrash(t *testing.T) {
	// Enough that the four workers of a round hit every step twice: 5.
	hooksPerWorker := (2*len(crashHooks) + 3) / 4

	seed := seedFor(t)
	aims := []time.Duration{10 * time.Millisecond, 10 * time.Millisecond, 10 * time.Millisecond, 10 * time.Millisecond}
	for r := range 2 * scale() {
		t.Run(fmt.Sprintf("round%d", r+1), func(t *testing.T) { crashRound(t, "", seed+uint64(r)*1000, aims, 25, hooksPerWorker) })
	}
}

// TestMixedCrashPostgres is TestMixedCrash on the PostgreSQL store: 4
// workers x 25 kills of clients in the middle of their calls (100 in all;
// the crash hooks are steps of the file store's write path, so none here), doctor
// after each, and the same all-or-nothing ledger at the end.
func TestMixedCrashPostgres(t *testing.T) {
	seed := seedFor(t)
	// A call connects to the server before it reads: aim later at first.
	aims := []time.Duration{80 * time.Millisecond, 80 * time.Millisecond, 80 * time.Millisecond, 80 * time.Millisecond}
	for r := range scale() {
		t.Run(fmt.Sprintf("round%d", r+1), func(t *testing.T) { crashRound(t, newPostgres(t), seed+uint64(r)*1000, aims, 25, 0) })
	}
}

// crashRound runs one round of TestMixedCrash with len(aims) workers, each
// making kills kills and hooks crash-hook runs. aims carries each worker's
// delay bound over to the next round.
func crashRound(t *testing.T, dsn string, seed uint64, aims []time.Duration, kills, hooks int) {
	w := newWorldOn(t, filepath.Join(t.TempDir(), "contents"), dsn, 1<<30)
	w.c.smallWAL = dsn == ""
	w.mustDo(&call{Skill: "init", Expect: -1})
	w.configure(nil)
	var problems []string
	var killMu sync.Mutex
	crashers := make([]*crasher, len(aims))
	for n := range crashers {
		cr := &crasher{w: w, rng: rand.New(rand.NewPCG(seed, uint64(n))), resolved: map[string]bool{}, killMu: &killMu, aim: aims[n]}
		cr.setup(n + 1)
		problems = append(problems, cr.problem)
		crashers[n] = cr
	}
	setupCalls := len(w.c.all())
	start := time.Now()
	var wg sync.WaitGroup
	for n, cr := range crashers {
		cr.problems = problems
		wg.Go(func() { cr.run(n, kills, hooks) })
	}
	wg.Wait()

	var landed, missed, journals int
	for n, cr := range crashers {
		landed, missed, journals = landed+cr.landed, missed+cr.missed, journals+cr.journals
		aims[n] = cr.aim
	}
	t.Logf("%d workers in %v: %d calls killed while running, %d more had exited first; %d crash-hook runs; doctor finished or discarded %d journals",
		len(crashers), time.Since(start).Round(time.Millisecond), landed, missed, len(crashers)*hooks, journals)

	doc := w.c.run(&call{Skill: "doctor", Expect: -1})
	if !doc.ok() || doc.Out.Report == nil || len(doc.Out.Report.Findings) > 0 {
		t.Errorf("final doctor: %v", doc) // the checks below say more
	}
	snap, err := readSnapshot(w.c.snapshotDir(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range snap.check() {
		t.Error(b)
	}
	txs := checkCrashLedger(t, snap, w.c.all(), setupCalls)
	if doc.Out.Report != nil && doc.Out.Report.Events != txs+snap.configSets {
		t.Errorf("doctor counts %d events; %d transactions took effect", doc.Out.Report.Events, txs)
	}
	logCounts(t, w.c.all())
}

// crasher is one worker of TestMixedCrash. It owns two statements of its own
// problem: gap, kept in has_gap for fix-create-substatement, and plan, kept
// pending or with every sub-statement resolved for state-setup-substatement.
// New wrap-up statements and subproblems go to any worker's problem.
type crasher struct {
	w        *world
	rng      *rand.Rand
	problem  string
	problems []string
	gap      string
	plan     string
	resolved map[string]bool // sub-statements this worker has seen resolved
	killMu   *sync.Mutex     // shared: held from a killed call to its doctor

	// aim bounds the random delay before a kill. It starts at 10 ms and
	// adapts to the machine: it shrinks by a tenth when the call had
	// exited before the kill and grows by 3% when the kill landed, which
	// settles where about a fifth of the kills come too late, so that the
	// rest spread over the whole run of a call, its commit included.
	aim      time.Duration
	landed   int // calls the test killed while they ran
	missed   int // calls that had exited before the test's kill
	journals int // leftover journals doctor finished or discarded
}

func (cr *crasher) setup(n int) {
	w := cr.w
	tok := w.c.token()
	cr.problem = w.mustDo(&call{Skill: "new-problem", Actor: "setup", Token: tok, Expect: -1,
		Args: []string{"--name", fmt.Sprintf("k%d", n), "--objective", "Show theorem " + tok + "."}}).Out.Created[0].ID
	cr.gap = w.mustDo(w.wrapupCall("setup", cr.problem, -1)).Out.Created[0].ID
	cr.plan = w.mustDo(w.wrapupCall("setup", cr.problem, -1)).Out.Created[0].ID
	w.mustDo(w.completeCall("setup-prover", cr.gap, -1))
	for range 2 {
		st, sents := w.show("setup", cr.gap)
		if st == nil {
			w.t.FailNow()
		}
		w.mustDo(w.rejectCall("setup-checker", cr.gap, cr.rng, sents, -1))
	}
}

// run makes calls of multi-file skills until kills of them were killed by
// the test while running and hooks died at a crash hook (or were refused),
// each call followed by doctor.
func (cr *crasher) run(n, kills, hooks int) {
	w := cr.w
	hooked := 0
	for i := 0; (cr.landed < kills || hooked < hooks) && i < 4*(kills+hooks); i++ {
		if w.t.Failed() {
			return // one failure is enough to read; the rest would repeat it
		}
		k := cr.prepare(multiFile[cr.rng.IntN(len(multiFile))])
		if k == nil {
			continue
		}
		k.Actor = "x" + strings.TrimPrefix(k.Token, "tk")
		delay := time.Duration(-1)
		if hooked*kills < cr.landed*hooks || cr.landed >= kills {
			// Worker n takes the hooks steps after the previous worker's,
			// so that four workers cover every step in a round.
			k.Hook = crashHooks[(hooked+n*hooks)%len(crashHooks)].Name
			hooked++
		} else {
			delay = time.Duration(cr.rng.Int64N(int64(cr.aim) + 1))
		}
		// One killed call at a time, with its doctor: other workers only
		// prepare meanwhile, so the delay lands where it aims.
		cr.killMu.Lock()
		w.c.runKill(k, delay)
		switch {
		case k.Killed && k.Hook == "":
			cr.landed++
			cr.aim = cr.aim * 103 / 100
		case k.Killed:
		case contractError(k) != "":
			w.t.Errorf("%s\n%v", contractError(k), k)
		case k.Code != 0 && k.Code != 4 && k.Code != 5:
			w.t.Errorf("unexpected exit %d: %v", k.Code, k)
		case k.Code == 0 && k.Hook != "":
			w.t.Errorf("with PROOFLOOP_TEST_CRASH=%s the call ran to its end: the step was never reached: %v", k.Hook, k)
		case k.Hook == "":
			cr.missed++
			cr.aim = cr.aim * 9 / 10
		}
		d := w.c.run(&call{Skill: "doctor", Expect: -1})
		if !d.ok() || d.Out.Report == nil || len(d.Out.Report.Findings) > 0 {
			w.t.Errorf("doctor after %s (hook %q, delay %v, killed %v) finds the store damaged: %v", k.Skill, k.Hook, k.Delay, k.Killed, d)
		} else if d.Out.Report.Journal != "none" {
			cr.journals++
		}
		cr.killMu.Unlock()
	}
	if cr.landed < kills || hooked < hooks {
		w.t.Logf("worker %d: only %d kills landed and %d crash hooks ran", n, cr.landed, hooked)
	}
}

// prepare brings the worker's documents into a status the skill accepts,
// with ordinary calls, and returns the call to kill (nil if it cannot).
func (cr *crasher) prepare(skill string) *call {
	w := cr.w
	switch skill {
	case "prob-wrapup-statement":
		return w.wrapupCall("", cr.problems[cr.rng.IntN(len(cr.problems))], -1)
	case "prob-setup-subgoal":
		return w.subgoalCall("", cr.problems[cr.rng.IntN(len(cr.problems))], -1)
	case "state-setup-substatement":
		st, _ := w.show("setup", cr.plan)
		if st == nil || (st.Status == "awaiting_substatements" && !cr.resolveSubs(st)) {
			return nil
		}
		return w.setupSubCall("", cr.plan, 2, -1)
	}
	for range 6 {
		st, sents := w.show("setup", cr.gap)
		if st == nil {
			return nil
		}
		open := st.openIssues()
		switch st.Status {
		case "has_gap":
			if len(open) > 0 && skill == "fix-patch-proof" {
				return w.patchCall("", cr.gap, cr.rng, open[:1], len(sents), -1)
			}
			if len(open) > 0 {
				return w.fixCreateCall("", cr.gap, open[0], -1)
			}
			w.do(cr.own(w.rejectCall("", cr.gap, cr.rng, sents, -1)))
		case "awaiting_substatements":
			// The gap-filling sub-statement is refuted; the patch then
			// answers the issue, which leaves has_gap while others are
			// open, else awaiting_verification.
			if !cr.resolveSubs(st) || len(open) == 0 {
				return nil
			}
			w.do(cr.own(w.patchCall("", cr.gap, cr.rng, open[:1], 1, -1)))
		case "awaiting_verification":
			for range 3 {
				w.do(cr.own(w.rejectCall("", cr.gap, cr.rng, sents, -1)))
			}
		default:
			w.t.Errorf("%s is %s; the worker keeps it in has_gap", cr.gap, st.Status)
			return nil
		}
	}
	return nil
}

// resolveSubs marks every sub-statement of st that may be open false.
func (cr *crasher) resolveSubs(st *statementDoc) bool {
	for _, c := range st.SubStatements {
		if cr.resolved[c] {
			continue
		}
		k := cr.w.do(cr.own(cr.w.markFalseCall("", c, 0, -1)))
		if k.Code != 0 && k.Code != 4 {
			return false
		}
		cr.resolved[c] = true // refused (4): it was false already
	}
	return true
}

// own gives an ordinary call an actor of its own, made from its token, so
// that every call's events can be told apart.
func (cr *crasher) own(k *call) *call {
	k.Actor = "s" + strings.TrimPrefix(k.Token, "tk")
	return k
}

// checkCrashLedger checks that each call took effect entirely or not at all,
// as its outcome requires, and that the events are exactly those of the
// calls that took effect. It returns how many did, setup calls included.
func checkCrashLedger(t *testing.T, snap *snapshot, calls []*call, setupCalls int) int {
	t.Helper()
	eventsBy := map[string][]*event{}
	for i := range snap.events {
		ev := &snap.events[i]
		eventsBy[deref(ev.Actor)] = append(eventsBy[deref(ev.Actor)], ev)
	}
	creator := map[string]*call{} // document -> the call whose text created it
	effects, setup := 0, 0
	killedBefore, killedAfterCommit := 0, 0
	for i, k := range calls {
		if !mutating(k.Skill) {
			continue
		}
		if i < setupCalls {
			setup++
			continue // checked by construction: mustDo
		}
		hits := snap.containing(k.Token)
		took := len(hits) > 0
		if why := partsMissing(snap, k, hits); took && why != "" {
			t.Errorf("half a transaction: %s: %v", why, k)
		}
		for _, id := range hits {
			if id != k.Target {
				creator[id] = k
			}
		}
		switch {
		case k.Killed && k.Hook != "":
			if h, _ := crashStep(k.Hook); took != h.Committed {
				t.Errorf("died at crash hook %s; took effect: %v, want %v: %v", k.Hook, took, h.Committed, k)
			}
		case k.Killed:
			if took {
				killedAfterCommit++
			} else {
				killedBefore++
			}
		case k.Code == 0 && !took:
			t.Errorf("exited 0 but took no effect: %v", k)
		case k.Code != 0 && took:
			t.Errorf("exited %d but took effect in %v: %v", k.Code, hits, k)
		}
		evs := eventsBy[k.Actor]
		want := 0
		if took {
			want = 1
			effects++
		}
		if len(evs) != want {
			t.Errorf("took effect: %v, but events.jsonl has %d events by its actor %s: %v", took, len(evs), k.Actor, k)
		} else if want == 1 && evs[0].Command != k.Skill {
			t.Errorf("its event is a %s: %v", evs[0].Command, k)
		}
	}
	t.Logf("calls killed by the test: %d before their commit point, %d after it", killedBefore, killedAfterCommit)
	if len(snap.events) != setup+effects {
		t.Errorf("events.jsonl has %d lines; %d setup calls and %d later transactions took effect", len(snap.events), setup, effects)
	}
	// Every document is a setup document or one whose creating event is
	// the call whose text it holds.
	idx := snap.eventIndex()
	for _, id := range sortedKeys(snap.raw) {
		ev := idx[docKey{id, 1}]
		k := creator[id]
		switch {
		case ev == nil:
			t.Errorf("no event created %s", id)
		case k == nil && ev.Seq > setup:
			t.Errorf("%s holds the text of no call, but event %d (%s by %s) created it", id, ev.Seq, ev.Command, deref(ev.Actor))
		case k != nil && (ev.Command != k.Skill || deref(ev.Actor) != k.Actor):
			t.Errorf("%s holds the text of a %s by %s, but event %d (%s by %s) created it", id, k.Skill, k.Actor, ev.Seq, ev.Command, deref(ev.Actor))
		}
	}
	return setup + effects
}

// partsMissing says which part of k is missing from the store when some part
// of it (hits: the documents holding its text) is there, or "".
func partsMissing(snap *snapshot, k *call, hits []string) string {
	var children []string
	for _, id := range hits {
		if id == k.Target {
			continue
		}
		parent := ""
		if p, ok := snap.problems[id]; ok && p.Parent != nil {
			parent = *p.Parent
		} else if st, ok := snap.statements[id]; ok {
			parent = st.Context
		}
		if parent != k.Target {
			return fmt.Sprintf("its text is in %s, which is not %s nor a child of it", id, k.Target)
		}
		children = append(children, id)
	}
	hasTarget := slices.Contains(hits, k.Target)
	want := map[string]int{"prob-wrapup-statement": 1, "prob-setup-subgoal": 1, "fix-create-substatement": 1, "state-setup-substatement": 2}[k.Skill]
	if len(children) != want {
		return fmt.Sprintf("it created %d documents %v, want %d", len(children), children, want)
	}
	switch k.Skill {
	case "fix-create-substatement":
		if !hasTarget {
			return fmt.Sprintf("its sub-statement %v exists but %s has no response of it", children, k.Target)
		}
		for _, r := range snap.statements[k.Target].Validate.Responses {
			if r.Purpose != nil && strings.Contains(*r.Purpose, k.Token) && r.SubStatementID != children[0] {
				return fmt.Sprintf("its response names %s, but it created %s", r.SubStatementID, children[0])
			}
		}
	case "prob-wrapup-statement", "prob-setup-subgoal", "state-setup-substatement":
		// The target need not hold the text (a later plan replaces the
		// rationale); that it lists the children is snapshot.check's.
	default:
		if !hasTarget {
			return fmt.Sprintf("its text is in %v but not in %s", hits, k.Target)
		}
	}
	return ""
}
