package eval

import (
	"slices"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// Implied is what the scripted agent name's figures on set must be: its
// one action, applied on paper to each item of its role, read as
// model.ItemVerdict reads a statement. The tests hold the figures eval
// measures through the binary to it, and the README's eval table is
// written from it (TestReadmeEvalTable).
func Implied(set *Set, name string) (model.Counts, error) {
	i := slices.IndexFunc(scriptedAgents, func(a scripted) bool { return a.Name == name })
	if i < 0 {
		return model.Counts{}, store.Errorf(store.CodeInvalidInput, "no scripted agent %q", name)
	}
	a := scriptedAgents[i]
	var c model.Counts
	for _, it := range set.For(model.Role(a.Role)) {
		st := &model.Statement{ID: "stmt_x_wrap", Claim: it.Claim, Premises: it.Premises, Proof: it.Proof}
		if it.Proof != nil {
			st.ProofRevision = 1
		}
		act := a.act(st, shippedItem(st))
		switch act.skill {
		case "check-confirm-proof":
			st.Validate.Confirmations = []model.Confirmation{{ProofRevision: 1}}
		case "check-reject-proof":
			st.Validate.Issues = []model.Issue{{Sentence: act.params["sentence_number"].(int), ProofRevision: 1}}
		case "state-complete-proof":
			text := act.params["proof_text"].(string)
			st.Proof, st.ProofRevision = &text, 1
		}
		c.Add(it.Label, model.ItemVerdict(&it, st, 1))
	}
	return c, nil
}
