package eval

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/skills"
	"github.com/proofloop/proofloop/store"
)

// Placed is where an item was put up: a root problem, its wrap-up
// statement, and the proof revision a checker judges (0 for a false claim,
// put up without a proof for a prover).
type Placed struct {
	Problem       string `json:"problem"`
	Statement     string `json:"statement"`
	ProofRevision int    `json:"proof_revision"`
}

// PutUp puts an item up in s the way a person puts up a claim, or a proof
// to be checked: new-problem with the claim as its objective and the
// premises as its hypotheses, prob-wrapup-statement with the same claim,
// and for a proof state-complete-proof, each its own transaction and event
// as that person (actor). The documents are those the skills write for
// anyone; nothing in them, in their events or in their ids says where the
// item came from. The problem's name is taken from the claim's words, with
// _2, _3, ... when a problem of that name exists or ever existed.
func PutUp(s *store.Store, it *model.EvalItem, actor string) (Placed, error) {
	name, err := freeName(s, it.Claim)
	if err != nil {
		return Placed{}, err
	}
	return putUpNamed(s, it, actor, name)
}

// putUpNamed is PutUp under a name chosen before. Placed.Problem is ""
// when nothing was written (the name was taken meanwhile).
func putUpNamed(s *store.Store, it *model.EvalItem, actor, name string) (Placed, error) {
	opts := store.TxOptions{Actor: actor}
	p, err := skills.NewProblem(s, withCommand(opts, "new-problem"), skills.NewProblemParams{Name: name, Objective: it.Claim, Hypothesis: it.Premises})
	if err != nil {
		return Placed{}, fmt.Errorf("put up %s: %w", it.ID, err)
	}
	placed := Placed{Problem: p.ID}
	w, err := runSkill(s, opts, "prob-wrapup-statement", map[string]any{"problem_path": p.ID, "claim": it.Claim,
		"premises": nonNil(it.Premises), "purpose": "It is the objective, as a claim to prove."})
	if err != nil {
		return placed, fmt.Errorf("put up %s: %w", it.ID, err)
	}
	placed.Statement = w.ID
	if it.Proof == nil {
		return placed, nil
	}
	c, err := runSkill(s, opts, "state-complete-proof", map[string]any{"statement_path": w.ID, "proof_text": *it.Proof, "strategy": it.StrategyOrDefault()})
	if err != nil {
		return placed, fmt.Errorf("put up %s: %w", it.ID, err)
	}
	placed.ProofRevision = c.Extra["proof_revision"].(int)
	return placed, nil
}

// runSkill runs one skill as its own transaction. It goes around the lease
// rules (require_lease) as a person's own new-problem does: the item is
// new, and nobody else holds it.
func runSkill(s *store.Store, opts store.TxOptions, name string, params map[string]any) (*skills.Result, error) {
	sk, ok := skills.Find(name)
	if !ok {
		return nil, store.Errorf(store.CodeInternal, "no skill %s", name)
	}
	raw, err := jsonOf(params)
	if err != nil {
		return nil, err
	}
	in, err := skills.ParseInput(sk, nil, raw, skills.Source{Max: 1 << 30})
	if err != nil {
		return nil, err
	}
	opts = withCommand(opts, name)
	opts.Target = in.Text(sk.Target)
	var r *skills.Result
	_, err = s.Update(opts, func(tx *store.Tx) error {
		var err error
		r, err = sk.Run(tx, in)
		return err
	})
	return r, err
}

func jsonOf(params map[string]any) ([]byte, error) {
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, store.Errorf(store.CodeInternal, "encode a skill's input").Wrap(err)
	}
	return raw, nil
}

func withCommand(opts store.TxOptions, command string) store.TxOptions {
	opts.Command = command
	return opts
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// nameWords are the words a problem's name leaves out of a claim; the
// kinds of object (integer, real, number) are kept when nothing else is.
var nameWords = map[string]bool{"for": true, "every": true, "all": true, "each": true, "the": true, "a": true, "an": true,
	"if": true, "of": true, "is": true, "are": true, "and": true, "or": true, "with": true, "then": true, "that": true,
	"there": true, "on": true, "in": true, "by": true}

var kindWords = map[string]bool{"integer": true, "integers": true, "real": true, "number": true, "numbers": true}

// claimName is a problem name from a claim's first three words that say
// something (no quantifiers, articles, single letters or numbers), as a
// person names a problem.
func claimName(claim string) string {
	var words, kinds []string
	all := strings.FieldsFunc(strings.ToLower(claim), func(r rune) bool { return (r < 'a' || r > 'z') && (r < '0' || r > '9') })
	for _, w := range all {
		switch {
		case len(w) < 3 || nameWords[w] || strings.Trim(w, "0123456789") == "":
		case kindWords[w]:
			kinds = append(kinds, w)
		case len(words) < 3:
			words = append(words, w)
		}
	}
	if len(words) == 0 {
		words = kinds[:min(len(kinds), 2)]
	}
	if len(words) == 0 {
		return "claim"
	}
	return strings.Join(words, "_")
}

// freeName is claimName, numbered past any problem that has the name or
// had it.
func freeName(s *store.Store, claim string) (string, error) {
	base := claimName(claim)
	for n := 1; ; n++ {
		name := base
		if n > 1 {
			name = fmt.Sprintf("%s_%d", base, n)
		}
		taken := false
		err := s.View(func(v *store.IndexView) error {
			locs, err := v.Events(model.RootProblemID(name))
			taken = len(locs) > 0 // a problem that exists has its creation's event
			return err
		})
		if err != nil {
			return "", err
		}
		if !taken {
			return name, nil
		}
	}
}
