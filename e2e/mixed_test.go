package e2e

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestMixedWorkload runs 32 agent processes at once against one store. Each
// agent reads a statement with `show ID --json --sentences`, picks a skill
// its status allows (reject, confirm, patch, gap-filling or planned
// sub-statements, complete a proof, mark false; now and then a new wrap-up
// statement or subgoal) and runs it as a separate process with --json and
// its own --actor, half the time with --expect-revision. Refusals (exit 4)
// and conflicts (exit 5) are expected. Afterwards every successful call must
// be in the store exactly once, in the place it reported, and nothing else:
// see checkLedger.
func TestMixedWorkload(t *testing.T) { mixedWorkload(t, "") }

// TestMixedWorkloadPostgres is TestMixedWorkload on the PostgreSQL store:
// 32 agent processes over TCP, each call its own connection.
func TestMixedWorkloadPostgres(t *testing.T) { mixedWorkload(t, newPostgres(t)) }

func mixedWorkload(t *testing.T, dsn string) {
	const agents = 32
	steps := 30 * scale()
	if dsn != "" {
		// A call costs about three times as much (a connection per
		// process): fewer steps keep make test short; make soak runs 150.
		steps = 15 * scale()
	}
	seed := seedFor(t)
	w := newWorldOn(t, filepath.Join(t.TempDir(), "contents"), dsn, 100*scale())
	w.setup(3, 2)
	start := time.Now()
	var wg sync.WaitGroup
	for n := range agents {
		wg.Go(func() { w.agent(rand.New(rand.NewPCG(seed, uint64(n))), fmt.Sprintf("agent%02d", n), steps) })
	}
	wg.Wait()
	t.Logf("%d agents x %d steps: %d calls in %v", agents, steps, len(w.c.all()), time.Since(start).Round(time.Millisecond))

	doc := w.c.run(&call{Skill: "doctor", Expect: -1})
	if !doc.ok() || doc.Out.Report == nil || len(doc.Out.Report.Findings) > 0 {
		t.Errorf("doctor after the workload: %v", doc)
	}
	snap, err := readSnapshot(w.c.snapshotDir(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range snap.check() {
		t.Error(b)
	}
	successes := checkLedger(t, snap, w.c.all())
	if doc.Out.Report != nil && doc.Out.Report.Events != successes+snap.configSets {
		t.Errorf("doctor counts %d events; want %d, one per successful mutating call", doc.Out.Report.Events, successes)
	}
	busiest := ""
	for id, st := range snap.statements {
		if b := snap.statements[busiest]; b == nil || len(st.Validate.Issues)+len(st.Validate.Responses) > len(b.Validate.Issues)+len(b.Validate.Responses) {
			busiest = id
		}
	}
	if b := snap.statements[busiest]; b != nil {
		t.Logf("%d documents, %d events; busiest statement %s: revision %d, %d issues, %d responses, %d confirmations",
			len(snap.raw), len(snap.events), busiest, b.Revision, len(b.Validate.Issues), len(b.Validate.Responses), len(b.Validate.Confirmations))
	}
	logCounts(t, w.c.all())
	// Every skill of the mix must have succeeded at least once, or the test
	// did not exercise what it claims to.
	perSkill := map[string]int{}
	for _, k := range w.c.all() {
		if k.ok() {
			perSkill[k.Skill]++
		}
	}
	for _, sk := range []string{"check-reject-proof", "fix-patch-proof", "fix-create-substatement", "state-setup-substatement",
		"state-complete-proof", "check-confirm-proof", "state-mark-false", "prob-wrapup-statement", "prob-setup-subgoal", "reopen"} {
		if perSkill[sk] == 0 {
			t.Errorf("no successful %s in the whole run (seed %d): the workload did not exercise it", sk, seed)
		}
	}
}

// seedFor returns the run's random seed, from PROOFLOOP_E2E_SEED if set, and
// logs it so that a failure can be replayed (as far as scheduling allows).
func seedFor(t *testing.T) uint64 {
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("PROOFLOOP_E2E_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("PROOFLOOP_E2E_SEED=%q: %v", s, err)
		}
		seed = n
	}
	t.Logf("seed %d (set PROOFLOOP_E2E_SEED to reuse it)", seed)
	return seed
}

// world is what the agents share: the ids known so far and the last status
// seen of each, which only steer their choices; the binary decides.
type world struct {
	t *testing.T
	c *cli

	mu         sync.Mutex
	problems   []string
	roots      []string // wrap-up statements of root problems: the hot spots
	statements []string
	status     map[string]string
	maxDocs    int
}

func newWorld(t *testing.T, root string, maxDocs int) *world {
	return &world{t: t, c: newCLI(root), status: map[string]string{}, maxDocs: maxDocs}
}

// newWorldOn is newWorld on the PostgreSQL store of dsn ("" for the file
// store); root is then this machine's folder.
func newWorldOn(t *testing.T, root, dsn string, maxDocs int) *world {
	w := newWorld(t, root, maxDocs)
	w.c.store = dsn
	return w
}

// do runs k, checks its output against the CLI contract and that it either
// succeeded, was refused (4) or lost a race (5), and learns from a success.
func (w *world) do(k *call) *call {
	w.c.run(k)
	if msg := contractError(k); msg != "" {
		w.t.Errorf("%s\n%v", msg, k)
	}
	switch k.Code {
	case 0:
		w.learn(k)
	case 4, 5:
	default:
		w.t.Errorf("unexpected exit %d: %v", k.Code, k)
	}
	return k
}

func (w *world) learn(k *call) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, cr := range k.Out.Created {
		if strings.HasPrefix(cr.ID, "prob_") {
			w.problems = append(w.problems, cr.ID)
			continue
		}
		w.statements = append(w.statements, cr.ID)
		if k.Skill == "prob-wrapup-statement" && !strings.Contains(k.Target, "_sub") {
			w.roots = append(w.roots, cr.ID)
		}
		w.status[cr.ID] = "pending"
	}
	if strings.HasPrefix(k.Out.ID, "stmt_") && k.Out.Status != "" {
		w.status[k.Out.ID] = k.Out.Status
	}
}

// mustDo runs a setup call that has to succeed.
func (w *world) mustDo(k *call) *call {
	w.do(k)
	if !k.ok() {
		w.t.Fatalf("setup call failed: %v", k)
	}
	return k
}

// setup creates the store: problems root problems with wraps wrap-up
// statements each, every second one with a proof awaiting verification.
// The acceptance quorum is 2, so confirmations race too.
func (w *world) setup(problems, wraps int) {
	w.mustDo(&call{Skill: "init", Expect: -1})
	w.configure(map[string]any{"verify_quorum": 2})
	for i := 1; i <= problems; i++ {
		tok := w.c.token()
		k := w.mustDo(&call{Skill: "new-problem", Actor: "setup", Token: tok, Expect: -1,
			Args: []string{"--name", fmt.Sprintf("m%d", i), "--objective", "Show theorem " + tok + "."}})
		pid := k.Out.Created[0].ID
		for j := 0; j < wraps; j++ {
			s := w.mustDo(w.wrapupCall("setup", pid, -1)).Out.Created[0].ID
			if j%2 == 0 {
				w.mustDo(w.completeCall("setup", s, -1))
			}
		}
	}
}

// configure sets fields of config.json, before any agent runs. The round
// budget is raised out of the way: these tests are about the store, and
// a statement may go through many rounds. Each field is one `config set`
// (doctor checks config.json against the log's config-set events); these
// calls are not recorded, and the snapshot leaves their events out.
func (w *world) configure(fields map[string]any) {
	all := map[string]any{"max_rounds": 1000}
	for k, v := range fields {
		all[k] = v
	}
	for _, k := range slices.Sorted(maps.Keys(all)) {
		v, _ := json.Marshal(all[k])
		cmd := w.c.command(&call{Skill: "config", Actor: "e2e-config", Expect: -1, Args: []string{"set", k, string(v)}})
		if out, err := cmd.CombinedOutput(); err != nil {
			w.t.Fatalf("config set %s %s: %v\n%s", k, v, err, out)
		}
	}
}

// agent is one agent process's life: steps choices, each one or more calls.
func (w *world) agent(rng *rand.Rand, actor string, steps int) {
	for range steps {
		r := rng.Float64()
		switch {
		case r < 0.06 && w.canCreate(""):
			w.do(w.wrapupCall(actor, w.pickProblem(rng), -1))
			continue
		case r < 0.09 && w.canCreate(""):
			w.do(w.subgoalCall(actor, w.pickProblem(rng), -1))
			continue
		}
		id := w.pickStatement(rng)
		if id == "" {
			w.do(w.wrapupCall(actor, w.pickProblem(rng), -1))
			continue
		}
		if st, sents := w.show(actor, id); st != nil {
			w.act(rng, actor, st, sents, 3)
		}
	}
}

func (w *world) pickProblem(rng *rand.Rand) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.problems[rng.IntN(len(w.problems))]
}

// pickStatement picks a statement not known to be finished, half the time
// one of the root wrap-up statements so that agents collide on them.
func (w *world) pickStatement(rng *rand.Rand) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	live := func(ids []string) []string {
		var out []string
		for _, id := range ids {
			if s := w.status[id]; s != "true" && s != "false" && s != "needs_modification" {
				out = append(out, id)
			}
		}
		return out
	}
	// Now and then a true statement, for a late finding (reopen).
	if rng.IntN(8) == 0 {
		var done []string
		for _, id := range w.statements {
			if w.status[id] == "true" {
				done = append(done, id)
			}
		}
		if len(done) > 0 {
			return done[rng.IntN(len(done))]
		}
	}
	if hot := live(w.roots); len(hot) > 0 && rng.IntN(2) == 0 {
		return hot[rng.IntN(len(hot))]
	}
	if all := live(w.statements); len(all) > 0 {
		return all[rng.IntN(len(all))]
	}
	return ""
}

// canCreate says whether a new document may be made (under id, when not
// ""): the store stays under maxDocs documents and three levels of nesting.
func (w *world) canCreate(id string) bool {
	w.mu.Lock()
	n := len(w.problems) + len(w.statements)
	w.mu.Unlock()
	return n < w.maxDocs && strings.Count(id, "_sub")+strings.Count(id, "_fix") < 3
}

// show reads a statement as an agent does. It returns nil when it cannot.
func (w *world) show(actor, id string) (*statementDoc, []string) {
	k := w.c.run(&call{Skill: "show", Actor: actor, Expect: -1, Args: []string{id, "--sentences"}})
	if !k.ok() {
		w.t.Errorf("show of a known statement failed: %v", k)
		return nil, nil
	}
	var st statementDoc
	if err := json.Unmarshal(k.Out.Document, &st); err != nil {
		w.t.Errorf("show %s: document: %v", id, err)
		return nil, nil
	}
	if st.Revision != k.Out.Revision || st.Status != k.Out.Status || st.ID != id {
		w.t.Errorf("show %s reports %s revision %d, its document says %s %s revision %d", id, k.Out.Status, k.Out.Revision, st.ID, st.Status, st.Revision)
	}
	w.mu.Lock()
	w.status[id] = st.Status
	w.mu.Unlock()
	var numbered []struct {
		Number int    `json:"number"`
		Text   string `json:"text"`
	}
	if err := json.Unmarshal(k.Out.Sentences, &numbered); err != nil {
		w.t.Errorf("show %s --sentences: %v", id, err)
	}
	var sents []string
	for i, s := range numbered {
		if s.Number != i+1 {
			w.t.Errorf("show %s --sentences numbers sentence %d as %d", id, i+1, s.Number)
		}
		sents = append(sents, s.Text)
	}
	return &st, sents
}

// act chooses and runs a skill for a statement in the state just read.
// Under awaiting_substatements it first looks for an open child to work on
// (down to depth levels).
func (w *world) act(rng *rand.Rand, actor string, st *statementDoc, sents []string, depth int) {
	expect := -1
	if rng.IntN(2) == 0 {
		expect = st.Revision
	}
	id, r := st.ID, rng.Float64()
	open := st.openIssues()
	switch st.Status {
	case "pending":
		switch {
		case r < 0.75:
			w.do(w.completeCall(actor, id, expect))
		case r < 0.93 && w.canCreate(id):
			w.do(w.setupSubCall(actor, id, 1+rng.IntN(2), expect))
		case r < 0.93:
			w.do(w.completeCall(actor, id, expect))
		default:
			w.do(w.markFalseCall(actor, id, 0, expect))
		}
	case "true":
		if len(sents) > 0 {
			w.do(w.reopenCall(actor, id, rng, sents, expect))
		}
	case "awaiting_verification":
		if r < 0.5 && len(sents) > 0 {
			w.do(w.rejectCall(actor, id, rng, sents, expect))
		} else {
			w.do(w.confirmCall(actor, id, expect))
		}
	case "has_gap":
		switch {
		case len(open) == 0 || r < 0.15:
			w.do(w.rejectCall(actor, id, rng, sents, expect))
		case r < 0.6 || (r < 0.9 && !w.canCreate(id)):
			w.do(w.patchCall(actor, id, rng, pickIssues(rng, open), len(sents), expect))
		case r < 0.9:
			w.do(w.fixCreateCall(actor, id, open[rng.IntN(len(open))], expect))
		default:
			w.do(w.markFalseCall(actor, id, open[rng.IntN(len(open))], expect))
		}
	case "awaiting_substatements":
		if r < 0.04 {
			w.do(w.markFalseCall(actor, id, 0, expect))
			return
		}
		if depth > 0 {
			subs := slices.Clone(st.SubStatements)
			slices.Reverse(subs) // the newest are the likeliest open
			for _, c := range subs {
				if s := w.knownStatus(c); s == "true" || s == "false" {
					continue
				}
				cst, csents := w.show(actor, c)
				if cst != nil && cst.Status != "true" && cst.Status != "false" {
					w.act(rng, actor, cst, csents, depth-1)
					return
				}
			}
		}
		switch {
		case len(open) > 0:
			w.do(w.patchCall(actor, id, rng, open, len(sents), expect))
		case r < 0.8 || !w.canCreate(id):
			w.do(w.completeCall(actor, id, expect))
		default:
			w.do(w.setupSubCall(actor, id, 1, expect))
		}
	}
}

func (w *world) knownStatus(id string) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.status[id]
}

// pickIssues names all open issues or one of them.
func pickIssues(rng *rand.Rand, open []int) []int {
	if rng.IntN(2) == 0 {
		return open
	}
	return []int{open[rng.IntN(len(open))]}
}

// The calls. Each carries a fresh token in the text it writes, so that the
// test can find exactly where (and whether) it landed.

func (w *world) completeCall(actor, id string, expect int) *call {
	tok := w.c.token()
	return &call{Skill: "state-complete-proof", Actor: actor, Target: id, Token: tok, Expect: expect,
		Args: []string{"--statement-path", id, "--strategy", "direct",
			"--proof-text", fmt.Sprintf("Step 1: A holds for %s. Step 2: B follows from A for %s. Hence the claim holds for %s.", tok, tok, tok)}}
}

func (w *world) setupSubCall(actor, id string, n, expect int) *call {
	tok := w.c.token()
	var subs []map[string]any
	for i := 1; i <= n; i++ {
		subs = append(subs, map[string]any{"claim": fmt.Sprintf("Part %d of %s.", i, tok), "premises": []string{"premise of " + tok}})
	}
	js, _ := json.Marshal(subs)
	return &call{Skill: "state-setup-substatement", Actor: actor, Target: id, Token: tok, Expect: expect,
		Args: []string{"--parent-statement-path", id, "--sub-statements", string(js), "--rationale", "Split by " + tok + "."}}
}

func (w *world) markFalseCall(actor, id string, issue, expect int) *call {
	tok := w.c.token()
	args := []string{"--statement-path", id, "--counterexample", "Counterexample " + tok + ".", "--source", "prove"}
	if issue > 0 {
		args = []string{"--statement-path", id, "--counterexample", "Counterexample " + tok + ".", "--source", "fix", "--issue-number", strconv.Itoa(issue)}
	}
	return &call{Skill: "state-mark-false", Actor: actor, Target: id, Token: tok, Expect: expect, Args: args}
}

func (w *world) rejectCall(actor, id string, rng *rand.Rand, sents []string, expect int) *call {
	tok := w.c.token()
	n, quote := 1, "Step"
	if len(sents) > 0 {
		n = 1 + rng.IntN(len(sents))
		quote = sents[n-1]
	}
	return &call{Skill: "check-reject-proof", Actor: actor, Target: id, Token: tok, Expect: expect,
		Args: []string{"--statement-path", id, "--sentence-number", strconv.Itoa(n), "--sentence-text", quote,
			"--error-type", "gap", "--explanation", "Gap found by " + tok + ".", "--suggested-fix", "Justify it."}}
}

// reopenCall records a late finding against a true statement's accepted
// proof: the fields and checks of a rejection.
func (w *world) reopenCall(actor, id string, rng *rand.Rand, sents []string, expect int) *call {
	k := w.rejectCall(actor, id, rng, sents, expect)
	k.Skill = "reopen"
	return k
}

func (w *world) confirmCall(actor, id string, expect int) *call {
	tok := w.c.token()
	return &call{Skill: "check-confirm-proof", Actor: actor, Target: id, Token: tok, Expect: expect,
		Args: []string{"--statement-path", id, "--verification-summary", "Checked by " + tok + "."}}
}

// patchCall replaces one sentence by one sentence, so proofs keep their
// length and sentence numbers read earlier stay mostly valid.
func (w *world) patchCall(actor, id string, rng *rand.Rand, issues []int, nsents, expect int) *call {
	tok := w.c.token()
	s := 1 + rng.IntN(max(1, nsents))
	args := []string{"--statement-path", id, "--sentence-range", strconv.Itoa(s),
		"--replacement-text", fmt.Sprintf("Step %d: this holds as %s shows.", s, tok), "--change-description", "Patch " + tok + "."}
	for _, i := range issues {
		args = append(args, "--issue-number", strconv.Itoa(i))
	}
	return &call{Skill: "fix-patch-proof", Actor: actor, Target: id, Token: tok, Expect: expect, Args: args}
}

func (w *world) fixCreateCall(actor, id string, issue, expect int) *call {
	tok := w.c.token()
	return &call{Skill: "fix-create-substatement", Actor: actor, Target: id, Token: tok, Expect: expect,
		Args: []string{"--statement-path", id, "--issue-number", strconv.Itoa(issue), "--sub-claim", "Gap filler " + tok + ".",
			"--sub-premises", "premise of " + tok, "--gap-location", "1", "--purpose", "Fills the gap for " + tok + "."}}
}

func (w *world) wrapupCall(actor, pid string, expect int) *call {
	tok := w.c.token()
	return &call{Skill: "prob-wrapup-statement", Actor: actor, Target: pid, Token: tok, Expect: expect,
		Args: []string{"--problem-path", pid, "--claim", "Wrap-up claim " + tok + ".", "--premises", "premise of " + tok, "--purpose", "Resolves it by " + tok + "."}}
}

func (w *world) subgoalCall(actor, pid string, expect int) *call {
	tok := w.c.token()
	return &call{Skill: "prob-setup-subgoal", Actor: actor, Target: pid, Token: tok, Expect: expect,
		Args: []string{"--parent-problem-path", pid, "--subproblem-objective", "Subgoal " + tok + ".", "--subproblem-hypothesis", "hypothesis of " + tok, "--rationale", "Smaller by " + tok + "."}}
}

// logCounts logs, per command, the successes and the refusals by code.
func logCounts(t *testing.T, calls []*call) {
	type tally struct {
		ok, killed int
		codes      map[string]int
	}
	by := map[string]*tally{}
	for _, k := range calls {
		tl := by[k.Skill]
		if tl == nil {
			tl = &tally{codes: map[string]int{}}
			by[k.Skill] = tl
		}
		switch {
		case k.Killed:
			tl.killed++
		case k.ok():
			tl.ok++
		case k.Out.Error != nil:
			tl.codes[k.Out.Error.Code]++
		default:
			tl.codes[fmt.Sprintf("exit%d", k.Code)]++
		}
	}
	names := make([]string, 0, len(by))
	for n := range by {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		tl := by[n]
		t.Logf("%-28s ok %4d  killed %4d  refused %v", n, tl.ok, tl.killed, tl.codes)
	}
}
