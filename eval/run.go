package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/proofloop/proofloop/loop"
	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// Options configure an eval run.
type Options struct {
	Role        model.Role
	Agents      store.Agents // the role's agents of config.json to measure
	Jobs        int          // items run at once, at least 1
	TurnTimeout time.Duration
	Self        string    // the proofloop binary, first on the agents' PATH
	Progress    io.Writer // a line per item, for a person; nil for none
	Scratch     string    // where the scratch roots go ("": the OS temp folder)
}

// Figures are one agent's results on a set.
type Figures struct {
	Agent   string       `json:"agent"` // its name in config.json, "" for a role's single unnamed agent
	Model   string       `json:"model"` // its model label, "" for none
	Label   string       `json:"label"` // how run names it: its name, else its command's program
	Command string       `json:"command"`
	Counts  model.Counts `json:"counts"`
	Rates   model.Rates  `json:"rates"`
	Items   []ItemResult `json:"items"`
}

// ItemResult is what one agent did with one item.
type ItemResult struct {
	ID       string `json:"id"`
	Label    string `json:"label"`
	Category string `json:"category,omitempty"`
	Verdict  string `json:"verdict"`
	Located  bool   `json:"located,omitempty"`
	Turn     string `json:"turn"` // the turn's outcome: ok, failed, timeout, not_started, interrupted
}

// Report is an eval run's result.
type Report struct {
	Role    model.Role `json:"role"`
	Set     string     `json:"set"`
	Items   int        `json:"items"`   // the set's items that measure the role
	Skipped int        `json:"skipped"` // the set's items that measure the other role
	Agents  []Figures  `json:"agents"`
}

// Run measures each agent of opts on the items of set that measure
// opts.Role: each item in a fresh scratch root of its own (a file store in
// a temporary folder, removed after), put up as a person would (PutUp),
// with the agent as the role's only agent and verify_quorum 1, for one turn
// of `run` (the same command line, environment and limits as a live run).
// What the agent did is read from the statement after (model.ItemVerdict).
func Run(ctx context.Context, set *Set, opts Options) (*Report, error) {
	items := set.For(opts.Role)
	rep := &Report{Role: opts.Role, Set: set.Name, Items: len(items), Skipped: len(set.Items) - len(items), Agents: []Figures{}}
	if len(items) == 0 {
		return nil, store.Errorf(store.CodeInvalidInput, "%s has no item for the %s role", set.Name, opts.Role).
			WithHint("check is measured on correct and flawed proofs, prove on false claims (docs/eval.md)")
	}
	type job struct{ a, i int }
	jobs := make(chan job)
	for _, a := range opts.Agents {
		rep.Agents = append(rep.Agents, Figures{Agent: a.Name, Model: a.Model, Label: AgentLabel(a), Command: a.Command,
			Items: make([]ItemResult, len(items))})
	}
	var mu sync.Mutex
	var firstErr error
	done := 0
	var wg sync.WaitGroup
	for range max(1, opts.Jobs) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				it := &items[j.i]
				res, err := runItem(ctx, opts.Agents[j.a], it, opts)
				mu.Lock()
				rep.Agents[j.a].Items[j.i] = res
				done++
				if err != nil && firstErr == nil {
					firstErr = err
				}
				if opts.Progress != nil {
					fmt.Fprintf(opts.Progress, "eval %d/%d: %s on %s (%s): %s\n", done, len(items)*len(opts.Agents),
						rep.Agents[j.a].Label, it.ID, it.Label, res.Verdict)
				}
				mu.Unlock()
			}
		}()
	}
	for a := range opts.Agents {
		for i := range items {
			jobs <- job{a, i}
		}
	}
	close(jobs)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	for a := range rep.Agents {
		f := &rep.Agents[a]
		for i, r := range f.Items {
			f.Counts.Add(items[i].Label, model.Judged{Verdict: r.Verdict, Located: r.Located})
		}
		f.Rates = f.Counts.Rates()
	}
	return rep, nil
}

// runItem runs one agent on one item in a scratch root of its own.
func runItem(ctx context.Context, a store.Agent, it *model.EvalItem, opts Options) (ItemResult, error) {
	res := ItemResult{ID: it.ID, Label: it.Label, Category: it.Category, Verdict: model.VerdictNone}
	dir, err := os.MkdirTemp(opts.Scratch, "proofloop-eval-")
	if err != nil {
		return res, store.Errorf(store.CodeInternal, "make a scratch folder").Wrap(err)
	}
	defer os.RemoveAll(dir)
	root := filepath.Join(dir, "contents")
	if err := scratchRoot(root, opts.Role, a); err != nil {
		return res, err
	}
	s, err := store.Open(root)
	if err != nil {
		return res, err
	}
	defer s.Close()
	placed, err := PutUp(s, it, "eval")
	if err != nil {
		return res, err
	}
	// The agent's proofloop acts on the scratch root alone: not on a
	// PostgreSQL store that $PROOFLOOP_STORE names for the project.
	sum, err := loop.Run(ctx, s, loop.RunOptions{Jobs: 1, MaxTurns: 1, TurnTimeout: opts.TurnTimeout, Self: opts.Self,
		Env: []string{"PROOFLOOP_STORE="}})
	if sum == nil || ctx.Err() != nil {
		return res, err // a refused run, or eval was interrupted
	}
	for outcome := range sum.ByOutcome {
		res.Turn = outcome
	}
	d, err := s.Read(placed.Statement)
	if err != nil {
		return res, err
	}
	st, err := d.Statement()
	if err != nil {
		return res, err
	}
	j := model.ItemVerdict(it, st, placed.ProofRevision)
	res.Verdict, res.Located = j.Verdict, j.Located
	return res, nil
}

// scratchRoot makes a contents root at root whose only agent is a, for
// role, with a quorum of one.
func scratchRoot(root string, role model.Role, a store.Agent) error {
	if _, err := store.Init(root); err != nil {
		return err
	}
	cfg := store.DefaultConfig()
	cfg.Agents = store.AgentTable{Roles: map[string]store.Agents{string(role): {a}}}
	cfg.MaxAgentFailures = 1
	raw, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return store.Errorf(store.CodeInternal, "encode a scratch config").Wrap(err)
	}
	if err := os.WriteFile(filepath.Join(root, store.ConfigFile), append(raw, '\n'), 0o644); err != nil {
		return store.Errorf(store.CodeInternal, "write a scratch config").Wrap(err)
	}
	return nil
}

// AgentLabel is how people know an agent: its name in config.json, else
// its command's program, with the model its command names when config.json
// gives it no model label.
func AgentLabel(a store.Agent) string {
	label, modelID := loop.AgentLabels(a)
	if a.Model == "" && modelID != "" {
		label += " (" + modelID + ")"
	}
	return label
}
