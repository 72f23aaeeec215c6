package model

import (
	"strings"
	"testing"
)

func strp(s string) *string { return &s }

func TestEvalItemCheck(t *testing.T) {
	proof := "Let n be an integer. Since n >= 1, n^2 >= n. Hence the claim."
	for _, c := range []struct {
		name string
		it   EvalItem
		want string // "" for valid
	}{
		{"correct", EvalItem{ID: "a", Claim: "x", Proof: strp(proof), Label: LabelCorrect}, ""},
		{"flawed", EvalItem{ID: "a", Claim: "x", Proof: strp(proof), Label: LabelFlawed, FlawedSentences: []int{2, 3}}, ""},
		{"false", EvalItem{ID: "a", Claim: "x", Label: LabelFalse}, ""},
		{"blank claim", EvalItem{ID: "a", Claim: " \n", Label: LabelFalse}, "claim is blank"},
		{"false with proof", EvalItem{ID: "a", Claim: "x", Proof: strp(proof), Label: LabelFalse}, "has no proof"},
		{"correct without proof", EvalItem{ID: "a", Claim: "x", Label: LabelCorrect}, "needs a proof"},
		{"blank proof", EvalItem{ID: "a", Claim: "x", Proof: strp("  "), Label: LabelFlawed, FlawedSentences: []int{1}}, "needs a proof"},
		{"flawed without sentences", EvalItem{ID: "a", Claim: "x", Proof: strp(proof), Label: LabelFlawed}, "names its flawed_sentences"},
		{"correct with sentences", EvalItem{ID: "a", Claim: "x", Proof: strp(proof), Label: LabelCorrect, FlawedSentences: []int{1}}, "only a flawed proof"},
		{"sentence past the end", EvalItem{ID: "a", Claim: "x", Proof: strp(proof), Label: LabelFlawed, FlawedSentences: []int{4}}, "has 3 sentences"},
		{"bad strategy", EvalItem{ID: "a", Claim: "x", Proof: strp(proof), Label: LabelCorrect, Strategy: "magic"}, "strategy"},
	} {
		err := c.it.Check()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: Check() = %v; want nil", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: Check() = %v; want an error saying %q", c.name, err, c.want)
		}
	}
}

// TestItemVerdict reads each verdict from a statement, and only from acts
// on the proof revision that was put up.
func TestItemVerdict(t *testing.T) {
	flawed := &EvalItem{Label: LabelFlawed, FlawedSentences: []int{2}}
	falseItem := &EvalItem{Label: LabelFalse}
	yes := AgentLabel{Agent: "yes", Model: "m"}
	for _, c := range []struct {
		name string
		it   *EvalItem
		st   Statement
		want Judged
	}{
		{"nothing", flawed, Statement{}, Judged{Verdict: VerdictNone}},
		{"confirmed", flawed, Statement{Validate: Validate{Confirmations: []Confirmation{{Actor: strp("c1"), AgentLabel: yes, ProofRevision: 1}}}},
			Judged{Verdict: VerdictAccepted, Actor: "c1", AgentLabel: yes}},
		{"confirmed another revision", flawed, Statement{Validate: Validate{Confirmations: []Confirmation{{ProofRevision: 2}}}}, Judged{Verdict: VerdictNone}},
		{"rejected elsewhere", flawed, Statement{Validate: Validate{Issues: []Issue{{Sentence: 1, ProofRevision: 1, Actor: strp("c2")}}}},
			Judged{Verdict: VerdictRejected, Actor: "c2"}},
		{"rejected at the flaw", flawed, Statement{Validate: Validate{Issues: []Issue{{Sentence: 1, ProofRevision: 1}, {Sentence: 2, ProofRevision: 1}}}},
			Judged{Verdict: VerdictRejected, Located: true}},
		{"rejection wins", flawed, Statement{Validate: Validate{Issues: []Issue{{Sentence: 2, ProofRevision: 1}},
			Confirmations: []Confirmation{{ProofRevision: 1}}}}, Judged{Verdict: VerdictRejected, Located: true}},
		{"proved", falseItem, Statement{Proof: strp("p"), ProofRevision: 1, ProofAuthor: strp("p1"), ProofAuthorAgent: "yes", ProofAuthorModel: "m"},
			Judged{Verdict: VerdictProved, Actor: "p1", AgentLabel: yes}},
		{"shown false", falseItem, Statement{Status: StatementFalse, Refutation: &Refutation{Actor: strp("p2")}}, Judged{Verdict: VerdictShownFalse, Actor: "p2"}},
		{"changed", falseItem, Statement{Status: StatementNeedsModification, ProposedModification: &Modification{Actor: strp("p3")}},
			Judged{Verdict: VerdictProposedChange, Actor: "p3"}},
		{"decomposed", falseItem, Statement{Status: StatementAwaitingSubstatement}, Judged{Verdict: VerdictNone}},
	} {
		if got := ItemVerdict(c.it, &c.st, 1); got != c.want {
			t.Errorf("%s: ItemVerdict = %+v; want %+v", c.name, got, c.want)
		}
	}
}
