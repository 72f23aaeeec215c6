package loop

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// Canaries plants labelled items among a run's real work and settles
// them (package eval implements it; docs/eval.md). A canary is a root
// problem of its own with one wrap-up statement, put up as a person puts
// up a claim or a proof, given to the role's next agent in a turn like any
// other, then settled against its label and withdrawn from the tree. Its
// label lives outside the project until then; run keeps only the roots it
// planted, so that no other turn of the run takes a canary's item and no
// canary counts as the run's work.
type Canaries interface {
	// Recover settles or withdraws the canaries a run left unsettled when
	// it was killed, before the run's first turn.
	Recover(s *store.Store) ([]model.CheckerRecord, error)
	// Plant puts up a canary for role after a real turn of it, when one is
	// due and one is left; it returns the canary's root problem, or "".
	Plant(s *store.Store, role model.Role, runID string) (string, error)
	// Settle reads what the turn on the canary of root did, against the
	// label, records it for the agent who took the turn (by; nobody when no
	// agent could), and withdraws the canary.
	Settle(s *store.Store, root string, by CanaryTaker) (model.CheckerRecord, error)
}

// CanaryTaker is who took a canary's turn: its actor, its agent's name and
// model label in config.json, and how people know the agent (its name, else
// its command's program).
type CanaryTaker struct{ Actor, Agent, Model, Label string }

// CanarySettled is the canary_settled line of run --json: a canary was
// judged (or nobody could take it) and withdrawn. Until this line, nothing
// run prints tells a canary from real work.
type CanarySettled struct {
	Event string `json:"event"` // "canary_settled"
	RunID string `json:"run_id"`
	model.CheckerRecord
	Time string `json:"time"`
}

// isPlanted reports whether root is a canary this run planted and has not
// settled yet. The caller holds r.mu.
func (r *runner) isPlanted(root string) bool { return r.planted[root] }

// plantedRoot is isPlanted, taking r.mu.
func (r *runner) plantedRoot(root string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.isPlanted(root)
}

// recoverCanaries settles what an earlier run left, before any turn.
func (r *runner) recoverCanaries() error {
	if r.opts.Canaries == nil {
		return nil
	}
	recs, err := r.opts.Canaries.Recover(r.s)
	for _, rec := range recs {
		r.settled(rec)
	}
	return err
}

// canaryAfter may follow a real check or prove turn with a canary turn of
// the same role, on the same worker: plant it, claim it for the role's next
// agent (as a real claim, with the same event), run the turn, settle it.
func (r *runner) canaryAfter(ctx context.Context, w int, real *turnRecord) error {
	if r.opts.Canaries == nil || real.canary || real.Kind != model.KindStatement || (real.Role != model.RoleCheck && real.Role != model.RoleProve) {
		return nil
	}
	r.mu.Lock()
	ok := r.done == "" && (r.opts.MaxTurns == 0 || r.turns < r.opts.MaxTurns) && slices.Contains(r.roles, real.Role)
	if ok {
		r.turns++ // reserved, as a worker reserves its next turn
	}
	r.mu.Unlock()
	if !ok {
		return nil
	}
	root, err := r.opts.Canaries.Plant(r.s, real.Role, r.sum.RunID)
	if err != nil || root == "" {
		r.mu.Lock()
		r.turns--
		r.mu.Unlock()
		return err
	}
	r.mu.Lock()
	r.planted[root] = true
	r.mu.Unlock()
	holder := fmt.Sprintf("run-%s-w%d", r.sum.RunID, w)
	c, _, err := claimNext(r.s, store.TxOptions{Command: "next", Actor: holder}, []model.Role{real.Role}, root, holder, r.actorFor(w, root), r.ttl)
	var by CanaryTaker
	if err == nil && c != nil {
		r.mu.Lock()
		r.numbered++
		t := r.newTurn(w, r.numbered, c)
		t.canary = true
		r.rep.turnStarted(t)
		r.mu.Unlock()
		err = r.turn(ctx, t, c)
		label, _ := AgentLabels(t.agent)
		by = CanaryTaker{Actor: c.Lease.Actor, Agent: c.Acting.Agent, Model: c.Acting.Model, Label: label}
	} else {
		r.mu.Lock()
		r.turns-- // no agent of the role could take it: no turn
		r.mu.Unlock()
	}
	// Settled whatever the turn did, even when it failed or the run was
	// interrupted: a canary is never left in the tree by a run that lives.
	rec, serr := r.opts.Canaries.Settle(r.s, root, by)
	r.mu.Lock()
	delete(r.planted, root)
	r.mu.Unlock()
	if serr == nil {
		r.settled(rec)
	}
	if err != nil {
		return err
	}
	return serr
}

// settled adds a settled canary to the summary and the progress.
func (r *runner) settled(rec model.CheckerRecord) {
	r.mu.Lock()
	r.sum.Canaries = append(r.sum.Canaries, rec)
	r.mu.Unlock()
	r.rep.canarySettled(rec)
}

// canarySettled reports a settled canary: for a person, what it was and
// what the agent did; a confirmed flawed proof names its checker.
func (p *reporter) canarySettled(rec model.CheckerRecord) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.line("canary " + CanaryText(rec))
	p.event(CanarySettled{Event: "canary_settled", RunID: p.runID, CheckerRecord: rec, Time: eventTime(time.Now())})
	p.drawLive()
}

// CanaryText says what a settled canary was and what became of it, in a
// line: "stmt_x_wrap (flawed proof, circular reasoning) was confirmed by
// check-yes-1 (yes, m1): missed; withdrawn".
func CanaryText(rec model.CheckerRecord) string {
	c := rec.Canary
	what := c.Label + " proof"
	if c.Label == model.LabelFalse {
		what = "false claim"
	}
	if c.Category != "" {
		what += ", " + c.Category
	}
	by := "nobody"
	if rec.Actor != "" {
		by = rec.Actor
		if l := strings.Trim(rec.Agent+", "+rec.Model, ", "); l != "" {
			by += " (" + l + ")"
		}
	}
	verdict := map[string]string{model.VerdictAccepted: "was confirmed by", model.VerdictRejected: "was rejected by",
		model.VerdictProved: "was given a proof by", model.VerdictShownFalse: "was shown false by",
		model.VerdictProposedChange: "was answered with a proposed change by", model.VerdictNone: "got no verdict from"}[c.Verdict]
	judged := judgedWord(c)
	if c.Located {
		judged += ", at a flawed sentence"
	}
	recovered := ""
	if c.Recovered {
		recovered = " (left by a killed run)"
	}
	return fmt.Sprintf("%s (%s, item %s)%s %s %s: %s; withdrawn", c.Statement, what, c.Item, recovered, verdict, by, judged)
}

// judgedWord is what a canary's verdict means against its label.
func judgedWord(c *model.CanaryRecord) string {
	switch {
	case c.Verdict == model.VerdictNone:
		return "no verdict"
	case c.Label == model.LabelCorrect && c.Verdict == model.VerdictAccepted:
		return "accepted"
	case c.Label == model.LabelCorrect:
		return "falsely rejected"
	case c.Verdict == model.VerdictAccepted || c.Verdict == model.VerdictProved:
		return "missed"
	}
	return "caught"
}
