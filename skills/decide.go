package skills

import (
	"fmt"

	"github.com/proofloop/proofloop/loop"
	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// DecideParams are the inputs of decide: exactly one of Accept, Reject and
// Extend > 0.
type DecideParams struct {
	ID     string
	Accept bool
	Extend int
	Reason *string
}

// Decide is the decision role's command. On a statement in
// needs_modification, accepting applies the proposed claim and premises,
// keeps the old ones in modification_history, retires the issues the old
// claim had open and sends the statement back to pending; rejecting
// restores the status it came from, and a rejected proposal from a fixer no
// longer answers its issue, so the issue is open again. On a statement that
// has spent its round budget, Extend grants more rounds.
func Decide(s *store.Store, opts store.TxOptions, p DecideParams) (*Result, error) {
	id, _, err := s.ParseRef(p.ID)
	if err != nil {
		return nil, err
	}
	// A grant is bounded as a level's rounds are: a larger one overflowed
	// the budget (9223372036854775807 left it negative, the item still
	// exhausted) and its extra_rounds no longer survived the log's replay.
	if p.Extend > model.MaxLevelRounds {
		return nil, store.Errorf(store.CodeInvalidInput, "--extend %d: a grant is 1 to %d rounds, as a level's rounds are", p.Extend, model.MaxLevelRounds).
			WithHint(fmt.Sprintf("grant at most %d rounds at a time, and again when they are spent", model.MaxLevelRounds))
	}
	opts.Target = id
	var res *Result
	_, err = s.Update(opts, func(tx *store.Tx) error {
		return loop.GuardLease(s, tx, id, opts.Lease, func() error {
			if p.Extend > 0 {
				res, err = extend(tx, s, id, p.Extend)
				return err
			}
			d, st, err := statementDoc(tx, id)
			if err != nil {
				return err
			}
			res, err = decideModification(tx, d, st, p)
			return err
		})
	})
	if err != nil {
		return nil, explain(s, "decide", id, opts.Lease, err)
	}
	return res, nil
}

// extend grants n more rounds (idle turns, for a problem) to an item that
// has spent its budget: the decide rule's --extend, on the item's row of
// the table.
func extend(tx *store.Tx, s *store.Store, id string, n int) (*Result, error) {
	cfg, err := s.Config()
	if err != nil {
		return nil, err
	}
	d, err := tx.Get(id)
	if err != nil {
		return nil, err
	}
	var f *model.Facts
	var extra int
	if d.Kind == model.KindProblem {
		p, err := d.Problem()
		if err != nil {
			return nil, err
		}
		f, extra = model.ProblemFacts(p, nil), p.ExtraRounds
	} else {
		st, err := d.Statement()
		if err != nil {
			return nil, err
		}
		f, extra = model.StatementFacts(st, nil), st.ExtraRounds
	}
	f.SetPolicy(cfg.Policy())
	f.Extend = n
	if err := model.Allow("decide", f); err != nil {
		return nil, err
	}
	spent, budget := f.RoundBudget()
	if err := d.Set("extra_rounds", extra+n); err != nil {
		return nil, err
	}
	return &Result{ID: id, Status: d.Status(), Revision: d.Revision() + 1,
		Extra: map[string]any{"decision": "extended", "budget": budget + n},
		Text:  fmt.Sprintf("Granted %s %s (budget %d, spent %d).", id, model.Count(n, "more round"), budget+n, spent)}, nil
}

// decideRefusals are decide's refusals of its guards, what GuardHint
// answers for them: decide is a person's command, not a registry skill with
// Refusals of its own.
var decideRefusals = []Refusal{
	guardRefusal("modification_proposed", "--accept or --reject on an item with no proposed modification",
		"Nothing to accept or reject: `proofloop status` says whose turn it is; --extend N is for a spent round budget."),
	guardRefusal("budget_exhausted", "--extend on an item with budget left",
		"It still has budget left: nothing to extend until `proofloop status` shows it out of budget (a decide turn)."),
}

func decideModification(tx *store.Tx, d *store.Doc, st *model.Statement, p DecideParams) (*Result, error) {
	if err := model.Allow("decide", model.StatementFacts(st, nil)); err != nil {
		return nil, err
	}
	m := st.ProposedModification
	rec := map[string]any{"decision": model.DecisionRejected, "type": m.Type, "claim_before": st.Claim, "premises_before": st.Premises,
		"claim_after": nil, "premises_after": nil, "rationale": m.Rationale, "reason": p.Reason, "decided_at": tx.Now(), "actor": actor(tx)}
	status := m.PreviousStatus
	if p.Accept {
		status = model.StatementPending
		claim, premises := st.Claim, st.Premises
		if m.Claim != nil {
			claim = *m.Claim
		}
		if m.Premises != nil {
			premises = m.Premises
		}
		rec["decision"], rec["claim_after"], rec["premises_after"] = model.DecisionAccepted, claim, premises
		if err := set(d, "claim", claim, "premises", premises); err != nil {
			return nil, err
		}
		// The issues about the old claim are settled by the new one.
		if err := loop.Supersede(tx, d, st); err != nil {
			return nil, err
		}
		// A checker confirmed the formal statement against the old claim:
		// it is judged again against the new one, and its proof with it.
		if fm := st.Formal; fm != nil {
			again := model.Formal{System: fm.System, Theorem: fm.Theorem, Statement: fm.Statement, FormalizedBy: fm.FormalizedBy,
				FormalizedAt: fm.FormalizedAt, Stage: model.StageFormalized}
			if err := d.Set("formal", again); err != nil {
				return nil, err
			}
		}
	} else if m.ResponseNumber != nil {
		if err := d.Set(fmt.Sprintf("validate.responses.%d.rejected_at", *m.ResponseNumber-1), tx.Now()); err != nil {
			return nil, err
		}
	}
	if err := set(d, "modification_history.-1", rec, "proposed_modification", nil, "status", status); err != nil {
		return nil, err
	}
	res := &Result{ID: st.ID, Status: status, Revision: d.Revision() + 1, Extra: map[string]any{"decision": rec["decision"]}}
	if p.Accept {
		res.Text = fmt.Sprintf("Accepted the modification of %s: it now claims %q and is pending a proof.", st.ID, rec["claim_after"])
	} else {
		res.Text = fmt.Sprintf("Rejected the modification of %s; it is back to %s.", st.ID, status)
	}
	return res, nil
}
