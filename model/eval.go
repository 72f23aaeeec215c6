package model

import (
	"fmt"
	"slices"
	"strings"
)

// A labelled set (docs/eval.md) is JSON Lines, one EvalItem a line, checked
// against schemas/eval_item.schema.json: claims whose proofs are known to
// be correct or flawed, and claims known to be false. `proofloop eval`
// measures checkers and provers on a set; `run` plants the items of a
// person's own sets among real work as canaries.

// The labels of an EvalItem.
const (
	LabelCorrect = "correct" // the proof is sound
	LabelFlawed  = "flawed"  // the proof has an error, at FlawedSentences
	LabelFalse   = "false"   // the claim is false: there is no proof to give
)

// EvalLabels lists the labels, in this order (the schema's enum).
var EvalLabels = []string{LabelCorrect, LabelFlawed, LabelFalse}

// EvalItem is one line of a labelled set.
type EvalItem struct {
	ID       string   `json:"id"`
	Claim    string   `json:"claim"`
	Premises []string `json:"premises"`
	// Proof is absent for a false claim, which a prover is given to prove.
	Proof *string `json:"proof,omitempty"`
	// Strategy is the proof's strategy as a prover would declare it
	// (Strategies); direct when absent.
	Strategy string `json:"strategy,omitempty"`
	Label    string `json:"label"`
	// FlawedSentences are the 1-based numbers, as SplitSentences numbers the
	// proof, of the sentences where a flawed proof goes wrong.
	FlawedSentences []int `json:"flawed_sentences,omitempty"`
	// Category is free text: the kind of error planted in a flawed proof
	// (overgeneralization, missing edge case, ...) or the change that made
	// a false claim of a true one (dropped hypothesis, ...).
	Category string `json:"category,omitempty"`
	Source   string `json:"source"`
}

// ProofText is the item's proof, "" for none.
func (it *EvalItem) ProofText() string {
	if it.Proof == nil {
		return ""
	}
	return *it.Proof
}

// StrategyOrDefault is the declared strategy, direct when none is.
func (it *EvalItem) StrategyOrDefault() string {
	if it.Strategy == "" {
		return "direct"
	}
	return it.Strategy
}

// Role is the role the item measures: check for a proof (correct or
// flawed), prove for a false claim.
func (it *EvalItem) Role() Role {
	if it.Label == LabelFalse {
		return RoleProve
	}
	return RoleCheck
}

// Check is what the schema cannot say of an item: a proof goes with a
// correct or flawed label and never with a false one; a flawed proof names
// at least one sentence, each within the proof as SplitSentences numbers
// it, and no other label names any; a claim is not blank.
func (it *EvalItem) Check() error {
	n := len(SplitSentences(it.ProofText()))
	switch {
	case strings.TrimSpace(it.Claim) == "":
		return fmt.Errorf("item %s: claim is blank", it.ID)
	case it.Label == LabelFalse && it.Proof != nil:
		return fmt.Errorf("item %s: a false claim has no proof (label false, proof given)", it.ID)
	case it.Label != LabelFalse && n == 0:
		return fmt.Errorf("item %s: label %s needs a proof of at least one sentence", it.ID, it.Label)
	case it.Label == LabelFlawed && len(it.FlawedSentences) == 0:
		return fmt.Errorf("item %s: a flawed proof names its flawed_sentences", it.ID)
	case it.Label != LabelFlawed && len(it.FlawedSentences) > 0:
		return fmt.Errorf("item %s: only a flawed proof has flawed_sentences (label %s)", it.ID, it.Label)
	case it.Strategy != "" && !slices.Contains(Strategies, it.Strategy):
		return fmt.Errorf("item %s: strategy %q is not one of %s", it.ID, it.Strategy, strings.Join(Strategies, ", "))
	}
	for _, s := range it.FlawedSentences {
		if s < 1 || s > n {
			return fmt.Errorf("item %s: flawed sentence %d is not in the proof, which has %d sentences", it.ID, s, n)
		}
	}
	return nil
}
