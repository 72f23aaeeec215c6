package skills

import (
	"fmt"
	"slices"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

var checkConfirmProof = &Skill{
	Name:    "check-confirm-proof",
	Purpose: "Confirm that a proof is valid; the statement becomes true once the acceptance quorum is met.",
	Target:  "statement_path",
	Params: []Param{
		ref("statement_path", "the statement whose proof was verified: its id, or the path of its JSON file"),
		optText("verification_summary", "a brief summary of the verification (steps checked, etc.)"),
	},
	Example:       `--statement-path stmt_example_wrap --verification-summary "Checked the base case and the inductive step sentence by sentence."`,
	When:          "Use it when you have checked every sentence of the proof and each one follows from the premises, earlier sentences, true sub-statements or standard facts, and the proof establishes exactly the claim under exactly its premises.",
	WhenNot:       "Do not use it if any sentence fails: record the first failure with check-reject-proof. Do not confirm a proof you wrote or patched any of. Pass --expect-revision with the revision you read, so that you never confirm a proof that changed under you.",
	Output:        "`confirmations` counts the distinct checkers who confirmed this proof revision, `quorum` is how many are needed (`verify_quorum` of config.json), `proof_revision` is the revision confirmed. `status` becomes `true` once the quorum is met (under formal.policy counts a kernel pass is one of `confirmations`; under required it is needed besides), else stays `awaiting_verification`. When your confirmation is recorded but does not count (you were measured below `verify_min_reliability`), `counted` is false and `uncounted` says why.",
	ExampleAfter:  "state-complete-proof",
	ExampleOutput: `{"command":"check-confirm-proof","confirmations":1,"created":[],"id":"stmt_example_wrap","ok":true,"proof_revision":1,"quorum":1,"revision":3,"status":"true"}`,
	Refusals: []Refusal{
		guardRefusal("no_open_issue", "an issue on the proof is still open",
			"An issue on the proof is still open, and it must be answered first (a fixer's turn): the proof is not ready to confirm; end your turn."),
		selfCheckRefusal("you wrote any of the current proof revision, its proof or a patch (forbid_self_check)"),
	},
	Run: runCheckConfirmProof,
}

func runCheckConfirmProof(tx *store.Tx, in *Input) (*Result, error) {
	id := in.Text("statement_path")
	d, st, f, err := statementState(tx, id)
	if err != nil {
		return nil, err
	}
	cfg, err := checkFacts(tx, f, st)
	if err != nil {
		return nil, err
	}
	if err := model.Allow("check-confirm-proof", f); err != nil {
		return nil, err
	}
	summary := in.OptText("verification_summary")
	// A checker measured below verify_min_reliability confirms on the
	// record, and its confirmation does not count (docs/eval.md).
	uncounted, err := tx.BelowFloor(cfg, label(tx))
	if err != nil {
		return nil, err
	}
	rec := map[string]any{"actor": actor(tx), "proof_revision": st.ProofRevision, "verification_summary": summary, "created_at": tx.Now()}
	if uncounted != "" {
		rec["uncounted"] = uncounted
	}
	if err := d.Set("validate.confirmations.-1", labelled(tx, rec)); err != nil {
		return nil, err
	}
	// Distinct checkers of this proof revision (actors, agents or models,
	// by verify_distinct); the same one twice counts once. A rejection
	// always changes the revision before the proof can be confirmed again,
	// so these are confirmations with no rejection in between.
	after := *st
	after.Validate.Confirmations = append(slices.Clone(st.Validate.Confirmations), model.Confirmation{
		Actor: actor(tx), AgentLabel: label(tx), ProofRevision: st.ProofRevision, Uncounted: uncounted})
	checkers := after.Confirmers(cfg.VerifyDistinct, st.ProofRevision)
	// What makes it true is model.Truth's: the quorum, a kernel pass
	// counting as one under formal.policy counts, and needed under required.
	t := model.TruthOf(&after, cfg.Formal.Policy, cfg.VerifyQuorum, len(checkers))
	res := &Result{ID: id, Status: model.StatementAwaitingVerification, Revision: d.Revision() + 1,
		Extra: map[string]any{"confirmations": t.Count(), "quorum": cfg.VerifyQuorum, "proof_revision": st.ProofRevision}}
	if uncounted != "" {
		res.Extra["counted"], res.Extra["uncounted"] = false, uncounted
		res.Text = fmt.Sprintf("Recorded the confirmation of proof revision %d of %s; it does not count toward verify_quorum: %s. It has %d of %d confirmations and still awaits verification.",
			st.ProofRevision, id, uncounted, t.Count(), cfg.VerifyQuorum)
		return res, nil
	}
	if !t.Met() {
		res.Text = fmt.Sprintf("Recorded confirmation %d of %d for proof revision %d of %s; it still awaits verification.", t.Count(), cfg.VerifyQuorum, st.ProofRevision, id)
		if t.Count() >= cfg.VerifyQuorum {
			res.Text = fmt.Sprintf("Recorded confirmation %d of %d for proof revision %d of %s; it still needs %s.", t.Count(), cfg.VerifyQuorum, st.ProofRevision, id, t.Missing())
		}
		return res, nil
	}
	if err := set(d, "status", model.StatementTrue, "verified_at", tx.Now(), "verification_summary", summary); err != nil {
		return nil, err
	}
	res.Status = model.StatementTrue
	res.Text = fmt.Sprintf("Confirmed %s: it is true (proof revision %d, %d of %d confirmations).", id, st.ProofRevision, t.Count(), cfg.VerifyQuorum)
	return res, nil
}
