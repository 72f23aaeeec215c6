package loop

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// RunOptions configure the orchestrator.
type RunOptions struct {
	Problem     string        // the root problem to drive; "" for every root
	Jobs        int           // workers running turns at once
	MaxTurns    int           // stop after this many turns (0: no limit)
	TurnTimeout time.Duration // kill an agent that runs longer
	Progress    io.Writer     // one line per turn; nil for none
	Self        string        // the proofloop binary, put first on the agents' PATH
}

// Stuck is an item nobody can move, and why.
type Stuck struct {
	ID     string     `json:"id"`
	Role   model.Role `json:"role"`
	Reason string     `json:"reason"`
}

// RunSummary is what a run did.
type RunSummary struct {
	RunID    string         `json:"run_id"`
	Outcome  string         `json:"outcome"` // solved, max_turns, stuck, interrupted
	Turns    int            `json:"turns"`
	ByRole   map[string]int `json:"by_role"`
	Idle     int            `json:"idle"`      // turns that changed nothing
	Failed   int            `json:"failed"`    // agents that exited non-zero
	TimedOut int            `json:"timed_out"` // agents killed at the turn timeout
	Stuck    []Stuck        `json:"stuck"`
	Logs     string         `json:"logs"` // runs/<run-id>/ under the root
}

// runner is the shared state of one run's workers.
type runner struct {
	s      *store.Store
	opts   RunOptions
	agents map[model.Role]string
	roles  []model.Role
	ttl    time.Duration
	dir    string // runs/<run-id>

	mu       sync.Mutex
	changed  *sync.Cond // signalled whenever a turn ends
	running  int
	turns    int
	gen      int    // counts ended turns, so a worker knows whether the store moved while it looked
	numbered int    // turns that claimed an item, numbering the log files
	done     string // the outcome, once decided
	sum      RunSummary
}

// Run drives the store with the agent commands of config.json until the
// problem is solved, the turn limit is reached, or nothing is actionable
// while nothing is running. Each turn claims an item, runs its role's
// agent with sh -c (PROOFLOOP_ROOT, _ROLE, _ID, _LEASE and _ACTOR set),
// waits at most TurnTimeout, releases the lease and keeps the agent's
// output under runs/<run-id>/. A turn that changed nothing counts against
// the item's budget. When ctx ends (SIGINT, SIGTERM), running agents are
// killed and their leases released before Run returns.
func Run(ctx context.Context, s *store.Store, opts RunOptions) (*RunSummary, error) {
	cfg, err := s.Config()
	if err != nil {
		return nil, err
	}
	r := &runner{s: s, opts: opts, agents: map[model.Role]string{}}
	r.changed = sync.NewCond(&r.mu)
	for _, role := range []model.Role{model.RoleSolve, model.RoleProve, model.RoleCheck, model.RoleFix, model.RoleDecide} {
		if c := strings.TrimSpace(cfg.Agents[string(role)]); c != "" {
			r.agents[role] = c
			r.roles = append(r.roles, role)
		}
	}
	if len(r.roles) == 0 {
		return nil, store.Errorf(store.CodeInvalidInput, "config.json sets no agents").
			WithHint(`set "agents": {"solve": CMD, "prove": CMD, "check": CMD, "fix": CMD} in config.json`)
	}
	if opts.Problem != "" {
		if _, err := s.Read(opts.Problem); err != nil {
			return nil, err
		}
	}
	if r.ttl, err = LeaseTTL(s, 0); err != nil {
		return nil, err
	}
	if opts.TurnTimeout > 0 && r.ttl < opts.TurnTimeout+time.Minute {
		r.ttl = opts.TurnTimeout + time.Minute // a lease outlives the turn it covers
	}
	r.sum = RunSummary{RunID: time.Now().UTC().Format("20060102T150405.000Z"), ByRole: map[string]int{}, Stuck: []Stuck{}}
	r.sum.RunID = strings.ReplaceAll(r.sum.RunID, ".", "")
	if err := s.Root().MkdirAll("runs", 0o755); err != nil {
		return nil, store.Errorf(store.CodeInternal, "create runs/").Wrap(err)
	}
	// Two runs started in the same millisecond get distinct folders.
	base := r.sum.RunID
	for i := 2; ; i++ {
		r.dir = "runs/" + r.sum.RunID
		err := s.Root().Mkdir(r.dir, 0o755)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) || i > 100 {
			return nil, store.Errorf(store.CodeInternal, "create %s", r.dir).Wrap(err)
		}
		r.sum.RunID = fmt.Sprintf("%s-%d", base, i)
	}
	r.sum.Logs = r.dir
	jobs := max(opts.Jobs, 1)
	var wg sync.WaitGroup
	errs := make(chan error, jobs)
	for w := 1; w <= jobs; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := r.worker(ctx, w); err != nil {
				errs <- err
				r.finish("error")
			}
		}()
	}
	stop := context.AfterFunc(ctx, func() { r.finish("interrupted") })
	defer stop()
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return nil, err
	}
	r.sum.Outcome, r.sum.Turns = r.done, r.turns
	if r.done == "stuck" || r.done == "max_turns" || r.done == "interrupted" {
		r.sum.Stuck, err = r.stuck()
		if err != nil {
			return nil, err
		}
	}
	return &r.sum, nil
}

// finish records the run's outcome once and wakes every waiting worker.
func (r *runner) finish(outcome string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done == "" {
		r.done = outcome
	}
	r.changed.Broadcast()
}

// worker claims and runs turns until the run is done.
func (r *runner) worker(ctx context.Context, w int) error {
	for {
		r.mu.Lock()
		if r.done == "" && r.opts.MaxTurns > 0 && r.turns >= r.opts.MaxTurns {
			r.done = "max_turns"
			r.changed.Broadcast()
		}
		if r.done != "" {
			r.mu.Unlock()
			return nil
		}
		r.running++ // counts as running while it claims, so no other worker calls the run stuck meanwhile
		r.turns++   // reserved now so that -j workers never pass MaxTurns
		gen := r.gen
		r.mu.Unlock()

		solved, err := r.solved()
		if err != nil {
			return err
		}
		var c *Claimed
		if !solved {
			holder := fmt.Sprintf("run-%s-w%d", r.sum.RunID, w)
			c, _, err = ClaimNext(r.s, store.TxOptions{Command: "next", Actor: holder}, r.roles, r.opts.Problem, holder, r.ttl)
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
			r.mu.Lock()
			r.numbered++
			turn := r.numbered
			r.mu.Unlock()
			err = r.turn(ctx, w, turn, c)
		}
		r.mu.Lock()
		r.running--
		if c != nil {
			r.gen++
		} else {
			r.turns-- // no turn was taken
			switch {
			case solved:
				r.done = cmpOr(r.done, "solved")
			case r.gen != gen:
				// A turn ended while we looked: look again.
			case r.running == 0:
				r.done = cmpOr(r.done, "stuck")
			default:
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

// turn runs one agent on a claimed item and settles the turn.
func (r *runner) turn(ctx context.Context, w, n int, c *Claimed) error {
	id, role := c.Item.ID, c.Item.Role
	actor := fmt.Sprintf("%s-%d", role, w)
	before, err := r.s.Read(id)
	if err != nil {
		return err
	}
	log := fmt.Sprintf("%s/%04d-%s-%s.log", r.dir, n, role, id)
	f, err := r.s.Root().OpenFile(log, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return store.Errorf(store.CodeInternal, "create %s", log).Wrap(err)
	}
	defer f.Close()
	root, _ := filepath.Abs(r.s.Dir)
	cmd := exec.Command("sh", "-c", r.agents[role])
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Env = append(os.Environ(), "PROOFLOOP_ROOT="+root, "PROOFLOOP_ROLE="+string(role), "PROOFLOOP_ID="+id,
		"PROOFLOOP_KIND="+string(c.Item.Kind), "PROOFLOOP_LEASE="+c.Lease.Token, "PROOFLOOP_ACTOR="+actor,
		"PROOFLOOP_RUN_ID="+r.sum.RunID)
	if r.opts.Self != "" {
		cmd.Env = append(cmd.Env, "PATH="+filepath.Dir(r.opts.Self)+string(os.PathListSeparator)+os.Getenv("PATH"))
	}
	fmt.Fprintf(f, "# turn %d: %s on %s (%s) as %s\n", n, role, id, c.Item.Reason, actor)
	outcome := "ok"
	if err := cmd.Start(); err != nil {
		outcome = "failed to start: " + err.Error()
	} else {
		outcome = r.wait(ctx, cmd)
	}
	// Release the lease whatever the agent did. A skill that ended the turn
	// has released it already (conflict: not live), and another worker may
	// hold a new lease on the item by now (lease_held): neither is ours.
	if _, err := Release(r.s, store.TxOptions{Command: "release", Actor: actor}, id, c.Lease.Token, false); err != nil &&
		store.CodeOf(err) != store.CodeConflict && store.CodeOf(err) != store.CodeLeaseHeld {
		return err
	}
	after, err := r.s.Read(id)
	if err != nil {
		return err
	}
	// An interrupted turn is the run's doing, not the agent's: it is not
	// charged to the item's budget.
	idle := after.Revision() == before.Revision() && outcome != "interrupted"
	if idle {
		if err := r.idle(id, actor); err != nil {
			return err
		}
	}
	r.mu.Lock()
	r.sum.ByRole[string(role)]++
	switch outcome {
	case "ok", "interrupted":
	case "timeout":
		r.sum.TimedOut++
	default:
		r.sum.Failed++
	}
	if idle {
		r.sum.Idle++
	}
	r.mu.Unlock()
	if r.opts.Progress != nil {
		note := fmt.Sprintf("%s -> %s", before.Status(), after.Status())
		if idle {
			note = "changed nothing (counts against its budget)"
		}
		fmt.Fprintf(r.opts.Progress, "turn %d  %-6s %-40s %s [%s]\n", n, role, id, note, outcome)
	}
	return nil
}

// wait waits for the agent, killing its process group at the turn timeout
// or when the run is interrupted.
func (r *runner) wait(ctx context.Context, cmd *exec.Cmd) string {
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var timeout <-chan time.Time
	if r.opts.TurnTimeout > 0 {
		t := time.NewTimer(r.opts.TurnTimeout)
		defer t.Stop()
		timeout = t.C
	}
	kill := func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return fmt.Sprintf("exit %d", ee.ExitCode())
		} else if err != nil {
			return err.Error()
		}
		return "ok"
	case <-timeout:
		kill()
		<-done
		return "timeout"
	case <-ctx.Done():
		kill()
		<-done
		return "interrupted"
	}
}

// idle charges a turn that changed nothing to the item's budget.
func (r *runner) idle(id, actor string) error {
	_, err := r.s.Update(store.TxOptions{Command: "run-idle", Actor: actor, Target: id}, func(tx *store.Tx) error {
		d, err := tx.Get(id)
		if err != nil {
			return err
		}
		return d.Set("idle_turns", d.Get("idle_turns").Int()+1)
	})
	return err
}

// stuck lists what keeps the run from going on.
func (r *runner) stuck() ([]Stuck, error) {
	snap, err := Load(r.s)
	if err != nil {
		return nil, err
	}
	out := []Stuck{}
	ids := make([]string, 0, len(snap.Items))
	for id := range snap.Items {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		it := snap.Items[id]
		if r.opts.Problem != "" && it.Root != r.opts.Problem {
			continue
		}
		switch {
		case it.Role != "" && r.agents[it.Role] == "":
			out = append(out, Stuck{id, it.Role, it.Reason + " (no agent for " + string(it.Role) + " in config.json)"})
		case it.Role != "":
			out = append(out, Stuck{id, it.Role, it.Reason})
		case it.Outcome == model.OutcomeExhausted:
			out = append(out, Stuck{id, it.Role, it.Reason})
		}
	}
	return out, nil
}
