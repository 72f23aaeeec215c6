package loop

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// The error codes of a run that ended without solving its problem. Each
// is the summary's outcome too; skills.ExitCodes gives their exit codes.
const (
	CodeStuck       store.Code = "stuck"        // work is left that no agent of config.json can do
	CodeMaxTurns    store.Code = "max_turns"    // --max-turns was reached
	CodeBudgetSpent store.Code = "budget_spent" // what is left has spent its round budget
	CodeInterrupted store.Code = "interrupted"  // SIGINT or SIGTERM
)

// RunOptions configure the orchestrator.
type RunOptions struct {
	Problem     string        // the root problem to drive; "" for every root
	Jobs        int           // workers running turns at once, at least 1
	MaxTurns    int           // stop after this many turns (0: no limit)
	TurnTimeout time.Duration // kill an agent that runs longer; must be positive
	Progress    io.Writer     // a line per turn start and end, for a person; nil for none
	LiveWidth   int           // Progress is a terminal this wide: keep a live status line on it (0: none)
	Events      io.Writer     // one JSON object per line per turn event, for programs; nil for none
	Self        string        // the proofloop binary, put first on the agents' PATH
	MaxCostUSD  float64       // stop once the run's turns cost this much (0: no limit)
	Canaries    Canaries      // plants and settles canaries (config.json canaries); nil for none
	Env         []string      // added to the agents' environment (eval unsets $PROOFLOOP_STORE)
}

// Check refuses option values whose meaning would be a surprise.
func (o RunOptions) Check() error {
	switch {
	case o.Jobs < 1:
		return store.Errorf(store.CodeUsage, "-j must be at least 1, got %d", o.Jobs).
			WithHint("-j N runs N turns at once; the default is 1")
	case o.TurnTimeout <= 0:
		// 0 used to mean "no limit"; a lease must outlive its turn, so a
		// turn without a limit could outlive its lease.
		return store.Errorf(store.CodeUsage, "--turn-timeout must be positive, got %s", o.TurnTimeout).
			WithHint("give the longest time an agent may take on one turn, e.g. --turn-timeout 10m")
	case o.MaxCostUSD < 0 || math.IsNaN(o.MaxCostUSD):
		return store.Errorf(store.CodeUsage, "--max-cost-usd must be 0 (no limit) or more, got %v", o.MaxCostUSD).
			WithHint("give the most this run may cost in US dollars, e.g. --max-cost-usd 5")
	case o.MaxTurns < 0:
		return store.Errorf(store.CodeUsage, "--max-turns must be 0 (no limit) or more, got %d", o.MaxTurns)
	}
	return nil
}

// Stuck is an item nobody can move, and why.
type Stuck struct {
	ID     string     `json:"id"`
	Role   model.Role `json:"role"`
	Reason string     `json:"reason"`

	exhausted bool
	capped    string // its root problem spent its max_cost_usd: why
}

// Leased is an actionable item that another holder than this run leases.
type Leased struct {
	ID        string     `json:"id"`
	Role      model.Role `json:"role"`
	Holder    string     `json:"holder"`
	ExpiresAt string     `json:"expires_at"`
}

// GivenUp is a role whose agent the run stopped starting, and why.
type GivenUp struct {
	Role         model.Role `json:"role"`
	Agent        string     `json:"agent"`          // the command line
	Name         string     `json:"name,omitempty"` // the agent's name, when its role has several
	Failures     int        `json:"failures"`       // in a row
	LastOutcome  string     `json:"last_outcome"`
	LastExitCode *int       `json:"last_exit_code"`
	// AgentError is the error the agent's CLI reported on its last turn
	// (from its JSON output), when it reported one that run can read.
	AgentError string   `json:"agent_error,omitempty"`
	StderrTail []string `json:"stderr_tail"`
}

// RunSummary is what a run did.
type RunSummary struct {
	RunID     string                `json:"run_id"`
	Outcome   string                `json:"outcome"` // solved, or the error code: stuck, max_turns, budget_spent, lease_held, interrupted, ...
	Turns     int                   `json:"turns"`
	ByRole    map[string]int        `json:"by_role"`
	ByOutcome map[string]int        `json:"by_outcome"` // ok, failed, timeout, interrupted, not_started
	Idle      int                   `json:"idle"`       // turns that changed nothing
	Failed    int                   `json:"failed"`     // agents that exited non-zero or did not start
	TimedOut  int                   `json:"timed_out"`  // agents killed at the turn timeout
	ElapsedMS int64                 `json:"elapsed_ms"`
	CostUSD   float64               `json:"cost_usd"` // what the turns' agents reported they cost
	Stuck     []Stuck               `json:"stuck"`    // what is left, and why
	Leased    []Leased              `json:"leased"`
	GivenUp   []GivenUp             `json:"given_up"`
	Debates   []DebateEnd           `json:"debates"`  // the debates the run took turns on, as they stand at its end
	Canaries  []model.CheckerRecord `json:"canaries"` // settled by this run, a killed run's first (docs/eval.md)
	Logs      string                `json:"logs"`     // runs/<run-id>/ under the root; "" when no turn ran
}

// runner is the shared state of one run's workers.
type runner struct {
	s        *store.Store
	opts     RunOptions
	table    store.AgentTable        // config.json's agents, for the lookup by protocol and role
	agents   map[string]store.Agents // the agents with a command, by their key below agents (judge, panel.judge)
	ttl      time.Duration
	maxFails int
	dir      string // runs/<run-id>
	rep      *reporter
	abort    context.CancelFunc // kills the running agents when a worker fails

	mu      sync.Mutex
	changed *sync.Cond   // signalled whenever a turn ends
	roles   []model.Role // the roles of the agents keys not given up (liveRoles)
	live    map[string]bool
	// debateRoles are the roles of those keys that are debate roles.
	debateRoles []model.Role
	running     int
	turns       int
	gen         int            // counts ended turns, so a worker knows whether the store moved while it looked
	numbered    int            // turns that claimed an item, numbering the log files
	done        string         // why the workers stopped, once decided
	failures    map[string]int // failed turns in a row, by agentKey
	givenUp     map[string]bool
	rotation    map[string]int     // the agent of each agents key that takes its next turn
	passed      map[string]string  // items no agent may take (verify_distinct), and why
	maxCost     float64            // config.json max_cost_usd: per root problem, all runs
	rootCost    map[string]float64 // each root problem's cost so far, all runs
	costStop    string             // why --max-cost-usd stopped the run, or which roots are capped
	debateTurns map[string]int     // the run's turns per debate
	planted     map[string]bool    // the canaries' root problems, until settled
	sum         RunSummary
}

// Run drives the store with the agent commands of config.json until the
// problem is solved, the turn limit is reached, or nothing is actionable
// while nothing is running. Each turn claims an item, runs its role's
// agent with sh -c (PROOFLOOP_ROOT, _ROLE, _ID, _LEASE and _ACTOR set) in
// a process group of its own, waits at most TurnTimeout, kills whatever is
// left of the group, releases the lease and keeps the agent's output under
// runs/<run-id>/. A turn that changed nothing counts against the item's
// budget. A role whose agent fails max_agent_failures times in a row is
// given up. When ctx ends (SIGINT, SIGTERM), running agents are killed and
// their leases released before Run returns.
//
// A run that ends unsolved returns its summary with an error whose code
// names the outcome (CodeStuck, CodeMaxTurns, CodeBudgetSpent,
// CodeInterrupted, or store.CodeLeaseHeld when everything left is leased by
// others). Other errors come with the summary so far once turns ran.
func Run(ctx context.Context, s *store.Store, opts RunOptions) (*RunSummary, error) {
	if err := opts.Check(); err != nil {
		return nil, err
	}
	cfg, err := s.Config()
	if err != nil {
		return nil, err
	}
	if opts.Problem != "" {
		if err := checkRootProblem(s, opts.Problem); err != nil {
			return nil, err
		}
	}
	r := &runner{s: s, opts: opts, maxFails: cfg.MaxAgentFailures,
		failures: map[string]int{}, givenUp: map[string]bool{}, rotation: map[string]int{}, passed: map[string]string{}, planted: map[string]bool{}}
	r.changed = sync.NewCond(&r.mu)
	r.maxCost, r.rootCost = cfg.MaxCostUSD, map[string]float64{}
	if r.maxCost > 0 {
		costs, err := Costs(ctx, s)
		if err != nil {
			return nil, err
		}
		for _, c := range costs {
			r.rootCost[c.Root] = AddCost(r.rootCost[c.Root], c.CostUSD)
		}
		if opts.Problem != "" && r.rootCost[opts.Problem] >= r.maxCost {
			return nil, store.Errorf(CodeBudgetSpent, "%s has cost $%.4f of its max_cost_usd $%.4f already", opts.Problem, r.rootCost[opts.Problem], r.maxCost).
				WithHint("raise it: `proofloop config set max_cost_usd N`; `proofloop status --cost` shows where it went")
		}
	}
	r.setAgents(cfg.Agents)
	if err := checkModelsKnown(cfg, r.agents[string(model.RoleCheck)]); err != nil {
		return nil, err
	}
	if len(r.roles) == 0 {
		return nil, store.Errorf(store.CodeInvalidInput, "config.json sets no agents").
			WithHint("give each role a command: `proofloop config set agents.ROLE CMD` for solve, prove, check and fix (`proofloop gen-claude` prints them for Claude Code; `proofloop init --example DIR` is a project with scripted agents)")
	}
	if r.ttl, err = LeaseTTL(s, 0); err != nil {
		return nil, err
	}
	r.ttl = max(r.ttl, opts.TurnTimeout+time.Minute) // a lease outlives the turn it covers
	if opts.Self != "" {
		becomeSubreaper() // the second wall behind each turn's reaper
	}
	start := time.Now()
	if r.sum.RunID, r.dir, err = newRunDir(s, start, cfg.KeepRuns); err != nil {
		return nil, err
	}
	r.sum.ByRole, r.sum.ByOutcome = map[string]int{}, map[string]int{}
	r.sum.Stuck, r.sum.Leased, r.sum.GivenUp, r.sum.Debates, r.sum.Canaries = []Stuck{}, []Leased{}, []GivenUp{}, []DebateEnd{}, []model.CheckerRecord{}
	r.rep = newReporter(opts, r.sum.RunID, start)
	defer r.rep.close()
	if err := r.recoverCanaries(); err != nil {
		return nil, err
	}

	ctx, r.abort = context.WithCancel(ctx)
	defer r.abort()
	var wg sync.WaitGroup
	errs := make(chan error, opts.Jobs)
	for w := 1; w <= opts.Jobs; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := r.worker(ctx, w); err != nil {
				errs <- err
				r.finish("error")
				r.abort() // the other turns are cut off: their leases go back
			}
		}()
	}
	stop := context.AfterFunc(ctx, func() { r.finish(string(CodeInterrupted)) })
	wg.Wait()
	stop()
	close(errs)
	r.sum.Turns, r.sum.ElapsedMS = r.turns, time.Since(start).Milliseconds()
	r.sum.Logs = r.dir
	if r.numbered == 0 {
		// A run that took no turn leaves no folder behind.
		if err := s.Root().Remove(r.dir); err == nil {
			r.sum.Logs = ""
		}
	}
	r.debatesEnd()
	if err := <-errs; err != nil {
		r.sum.Outcome = cmpOr(string(store.CodeOf(err)), string(store.CodeInternal))
		return &r.sum, err
	}
	if err := r.settle(); err != nil {
		return &r.sum, err
	}
	return &r.sum, r.outcomeError()
}

// checkRootProblem refuses a --problem that is not a root problem: the run
// drives whole trees, and an item of a tree belongs to its root.
func checkRootProblem(s *store.Store, id string) error {
	d, err := s.Read(id)
	if err != nil {
		return err
	}
	if d.Kind == model.KindProblem && (!d.Get("parent").Exists() || d.Get("parent").Type == 0) {
		return nil
	}
	what := "a statement"
	if d.Kind == model.KindProblem {
		what = "a subproblem of " + d.Get("parent").String()
	}
	e := store.Errorf(store.CodeInvalidInput, "--problem must name a root problem; %s is %s", id, what)
	if snap, err := Load(s); err == nil && snap.Items[id] != nil {
		root := snap.Items[id].Root
		e.WithHint(fmt.Sprintf("%s belongs to the root problem %s: run `proofloop run --problem %s`", id, root, root))
	}
	return e
}

// finish records why the workers stop, once, and wakes every waiting worker.
func (r *runner) finish(outcome string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.done = cmpOr(r.done, outcome)
	r.changed.Broadcast()
}

// worker claims and runs turns until the run is done.
func (r *runner) worker(ctx context.Context, w int) error {
	holder := fmt.Sprintf("run-%s-w%d", r.sum.RunID, w)
	for {
		r.mu.Lock()
		if r.done == "" && r.opts.MaxTurns > 0 && r.turns >= r.opts.MaxTurns {
			r.done = string(CodeMaxTurns)
			r.changed.Broadcast()
		}
		if r.done == "" && len(r.roles) == 0 {
			r.done = "idle" // every agent was given up
			r.changed.Broadcast()
		}
		if r.done != "" {
			r.mu.Unlock()
			return nil
		}
		r.running++ // counts as running while it claims, so no other worker calls the run over meanwhile
		r.turns++   // reserved now so that -j workers never pass MaxTurns
		gen, roles := r.gen, slices.Clone(r.roles)
		r.mu.Unlock()

		solved, err := r.solved()
		if err != nil {
			return err
		}
		if solved && r.opts.Problem == "" {
			// Debates belong to no problem's tree: a run over the whole
			// store still drives its open debates once every problem is
			// solved, and leaves what is left of the solved trees alone.
			roles = slices.DeleteFunc(roles, func(role model.Role) bool { return !slices.Contains(r.debateRoles, role) })
		}
		var c *Claimed
		if !solved || len(roles) > 0 {
			c, _, err = claimNext(r.s, store.TxOptions{Command: "next", Actor: holder}, roles, r.opts.Problem, holder, r.actorFor(w, ""), r.ttl)
			if store.CodeOf(err) == store.CodeLockTimeout {
				// The store is busy, not empty: look again.
				r.mu.Lock()
				r.running--
				r.turns--
				r.mu.Unlock()
				continue
			}
			if err != nil {
				return err
			}
		}
		if c != nil {
			var t *turnRecord
			r.mu.Lock()
			if r.done == "" && r.live[c.Acting.Key] {
				// Numbered and reported under the lock: the start lines
				// come in the order of their numbers.
				r.numbered++
				t = r.newTurn(w, r.numbered, c)
				r.rep.turnStarted(t)
			}
			r.mu.Unlock()
			if t != nil {
				if err = r.turn(ctx, t, c); err == nil {
					err = r.canaryAfter(ctx, w, t)
				}
			} else if err = release(r.s, c.Item.ID, c.Lease.Token, holder); err == nil {
				// The run ended, or the role was given up, while we claimed:
				// the claim goes back untouched.
				c = nil
			}
		}
		r.mu.Lock()
		r.running--
		if c != nil {
			r.gen++
		} else {
			r.turns-- // no turn was taken
			switch {
			case solved && len(roles) == 0:
				r.done = cmpOr(r.done, "solved")
			case r.gen != gen:
				// A turn ended while we looked: look again.
			case r.running == 0 && solved:
				r.done = cmpOr(r.done, "solved") // and every debate is closed or waits for no agent of ours
			case r.running == 0:
				r.done = cmpOr(r.done, "idle")
			case r.done == "":
				r.changed.Wait() // until another worker's turn ends
			}
		}
		r.changed.Broadcast()
		r.mu.Unlock()
		if err != nil {
			return err
		}
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// solved reports whether the run's problem (or every root problem) is solved.
func (r *runner) solved() (bool, error) {
	roots := []string{r.opts.Problem}
	if r.opts.Problem == "" {
		var err error
		if roots, err = r.rootProblems(); err != nil {
			return false, err
		}
	}
	for _, id := range roots {
		d, err := r.s.Read(id)
		if err != nil {
			return false, err
		}
		if d.Status() != model.ProblemSolved {
			return false, nil
		}
	}
	return len(roots) > 0, nil
}

func (r *runner) rootProblems() ([]string, error) {
	ids, err := r.s.List(model.KindProblem)
	if err != nil {
		return nil, err
	}
	var roots []string
	for _, id := range ids {
		if r.plantedRoot(id) {
			continue // a canary is no work of the run's
		}
		d, err := r.s.Read(id)
		if err != nil {
			return nil, err
		}
		if !d.Get("parent").Exists() || d.Get("parent").Type == 0 {
			roots = append(roots, id)
		}
	}
	return roots, nil
}

// settle decides the outcome of a run whose workers stopped without an
// error, and lists what is left.
func (r *runner) settle() error {
	switch r.done {
	case "solved":
		r.sum.Outcome = r.done
		return nil
	case "idle":
		r.sum.Outcome = string(CodeStuck)
	default:
		r.sum.Outcome = r.done
	}
	snap, err := Load(r.s)
	if err != nil {
		return err
	}
	r.sum.Stuck = r.left(snap)
	if r.done != "idle" {
		return nil
	}
	if len(r.sum.Stuck) == 0 {
		// Nothing is left for any role: a run on debates alone (no
		// problem to solve) ends when every debate is closed.
		if roots, err := r.rootProblems(); err == nil && len(roots) == 0 {
			r.sum.Outcome = OutcomeDone
			return nil
		}
	}
	// Nothing was actionable while nothing of ours ran. If another holder
	// leases work our agents could do, the run is not stuck: it may retry.
	for _, it := range snap.Actionable("", r.opts.Problem) {
		if it.leased && slices.Contains(r.roles, it.Role) {
			r.sum.Leased = append(r.sum.Leased, Leased{it.ID, it.Role, it.Holder, it.Expires})
		}
	}
	slices.SortFunc(r.sum.Leased, func(a, b Leased) int { return strings.Compare(a.ExpiresAt, b.ExpiresAt) })
	// Out of budget when every item left has spent its round budget or
	// belongs to a root problem that spent its max_cost_usd.
	exhausted := len(r.sum.Stuck) > 0 && len(r.sum.GivenUp) == 0
	var capped []string
	for _, st := range r.sum.Stuck {
		exhausted = exhausted && (st.exhausted || st.capped != "")
		if st.capped != "" && !slices.Contains(capped, st.capped) {
			capped = append(capped, st.capped)
		}
	}
	switch {
	case len(r.sum.Leased) > 0:
		r.sum.Outcome = string(store.CodeLeaseHeld)
	case exhausted:
		r.sum.Outcome = string(CodeBudgetSpent)
		r.costStop = strings.Join(capped, "; ")
	}
	return nil
}

// left lists what keeps the run from going on: every item some role must
// act on, and every item whose budget is spent.
func (r *runner) left(snap *Snapshot) []Stuck {
	given := map[model.Role]bool{}
	for _, g := range r.sum.GivenUp {
		given[g.Role] = true
	}
	out := []Stuck{}
	ids := make([]string, 0, len(snap.Items))
	for id := range snap.Items {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		it := snap.Items[id]
		if r.opts.Problem != "" && it.Root != r.opts.Problem || r.isPlanted(it.Root) {
			continue
		}
		st := Stuck{ID: id, Role: it.Role, Reason: it.Reason, exhausted: it.Outcome == model.OutcomeExhausted}
		switch {
		case it.Role != "" && given[it.Role]:
			st.Reason += fmt.Sprintf(" (the %s agent was given up after %d failures in a row)", it.Role, r.maxFails)
		case it.Role != "" && r.noAgent(it) != "":
			st.Reason += " (" + r.noAgent(it) + ")"
		case it.Role != "" && r.capped(it.Root) != "":
			st.capped = r.capped(it.Root)
			st.Reason += " (" + st.capped + ")"
		case it.Role != "" && r.passed[id] != "":
			st.Reason += " (" + r.passed[id] + ")"
		case it.Role != "":
		case st.exhausted:
		default:
			continue
		}
		out = append(out, st)
	}
	return out
}

// outcomeError is the error of an unsolved run, nil for a solved one.
func (r *runner) outcomeError() error {
	sum := &r.sum
	turns := plural(sum.Turns, "turn")
	switch store.Code(sum.Outcome) {
	case CodeInterrupted:
		return store.Errorf(CodeInterrupted, "interrupted after %s; the running agents were killed and their leases released", turns).
			WithHint("run it again to go on")
	case CodeMaxTurns:
		return store.Errorf(CodeMaxTurns, "out of turns: stopped at --max-turns %d with %s left", r.opts.MaxTurns, plural(len(sum.Stuck), "item")).
			WithHint("run it again to go on, or raise --max-turns")
	case CodeBudgetSpent:
		var why, hints []string
		if r.costStop != "" {
			why = append(why, r.costStop)
			hints = append(hints, "`proofloop status --cost` shows where it went; raise --max-cost-usd or `proofloop config set max_cost_usd N`")
		}
		var ids []string
		for _, st := range sum.Stuck {
			if st.exhausted && st.capped == "" {
				ids = append(ids, st.ID)
			}
		}
		if len(ids) > 0 {
			why = append(why, strings.Join(ids, ", ")+" spent its round budget")
			hints = append(hints, "`proofloop decide ID --extend N` grants N more rounds; or set a decide agent in config.json")
		}
		return store.Errorf(CodeBudgetSpent, "out of budget after %s: %s", turns, strings.Join(why, "; ")).
			WithHint(strings.Join(hints, "; "))
	case store.CodeLeaseHeld:
		var held []string
		for _, l := range sum.Leased {
			held = append(held, fmt.Sprintf("%s (%s) to %s until %s", l.ID, l.Role, l.Holder, l.ExpiresAt))
		}
		return store.Errorf(store.CodeLeaseHeld, "everything left to do is leased by others: %s", strings.Join(held, "; ")).
			WithHint("retry when those leases are released or expire (the first at " + sum.Leased[0].ExpiresAt + ")")
	case CodeStuck:
		msg := fmt.Sprintf("stuck after %s: nothing left that the agents of config.json can do", turns)
		for _, g := range sum.GivenUp {
			msg += fmt.Sprintf("; gave up on the %s agent after %s in a row (%s)", g.Role, plural(g.Failures, "failure"), lastWords(g))
		}
		hint := "the summary lists each item left and why; `proofloop status` shows the tree"
		if len(r.passed) > 0 {
			hint += "; a check agent whose model (or agent, per verify_distinct) can still count, and that is not measured below verify_min_reliability (`proofloop status --checkers`), or a person's `proofloop check-confirm-proof`, confirms what no check agent could"
		}
		return store.Errorf(CodeStuck, "%s", msg).WithHint(hint)
	}
	return nil
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
