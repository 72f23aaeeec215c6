package storegen

import (
	"fmt"
	"github.com/tidwall/gjson"
	"github.com/tidwall/pretty"
	"github.com/tidwall/sjson"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/proofloop/proofloop/skills"
	"github.com/proofloop/proofloop/store"
)

// The texts of the template documents. ProofText's sentence 2 is Quote.
const (
	Claim     = "For every n >= 1, 1 + 3 + ... + (2n-1) = n^2."
	ProofText = "Step 1: For n = 1 both sides are 1. Step 2: If the sum up to 2n-1 is n^2, adding 2n+1 gives (n+1)^2. Hence the claim holds for all n by induction."
	Quote     = "adding 2n+1 gives (n+1)^2"
)

// templateName is the name of the problem every template is made under;
// clones replace it. "tpl" never occurs in the template texts.
const templateName = "tpl"

// epoch is the clock of the template store, so that the templates, and with
// them the generated stores, do not depend on when they were made.
var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// step is one skill call of a template's recipe; in args, $P is the
// template problem and $S its wrap-up statement, and ids may name
// "$S_sub1" and so on.
type step struct {
	skill, actor string
	args         []string // name value pairs; a name may repeat (lists)
}

// recipes are the shapes the generator clones: each makes, from a new
// problem prob_tpl, the documents of one shape, all through the real skills.
var recipes = map[string][]step{
	// tree: the bulk shape. A problem with a subproblem, a second wrap-up
	// statement, and statements nested five deep (wrap, sub, sub, sub, sub)
	// in every statement status, with issues and responses.
	"tree": {
		wrap("$P"),
		setupSubs("$S", 2),
		setupSubs("$S_sub1", 2),
		setupSubs("$S_sub1_sub1", 2),
		setupSubs("$S_sub1_sub1_sub1", 2),
		complete("$S_sub1_sub1_sub1_sub1"), confirm("$S_sub1_sub1_sub1_sub1"),
		complete("$S_sub1_sub1_sub2"),
		complete("$S_sub1_sub2"), reject("$S_sub1_sub2"),
		setupSubs("$S_sub2", 3),
		complete("$S_sub2_sub1"), reject("$S_sub2_sub1"), patch("$S_sub2_sub1"),
		propose("$S_sub2_sub2"),
		complete("$S_sub2_sub3"), reject("$S_sub2_sub3"), fixSub("$S_sub2_sub3"),
		{"prob-setup-subgoal", "solver", []string{"parent_problem_path", "$P", "subproblem_objective", "Show n^2 + 2n + 1 = (n+1)^2.",
			"subproblem_hypothesis", "n is an integer", "rationale", "It is the inductive step."}},
		wrap("$P_sub1"),
		complete("stmt_tpl_sub1_wrap"), confirm("stmt_tpl_sub1_wrap"),
		{"prob-wrapup-statement", "solver", []string{"problem_path", "$P", "claim", "For every n >= 0, the sum of the first n odd numbers is n^2.",
			"premises", "n is a natural number", "purpose", "A second route to the objective."}},
		{"state-mark-false", "prover", []string{"statement_path", "stmt_tpl_wrap2", "source", "prove", "counterexample", "None needed: the claim is true."}},
	},
	// The reserved shapes: one problem and its wrap-up statement $S in the
	// state a benchmark acts on.
	"problem":  {},
	"pending":  {wrap("$P")},
	"awaiting": {wrap("$P"), complete("$S")},
	"gap":      {wrap("$P"), complete("$S"), reject("$S")},
	"true":     {wrap("$P"), complete("$S"), confirm("$S")},
	"modify":   {wrap("$P"), propose("$S")},
}

func wrap(p string) step {
	return step{"prob-wrapup-statement", "solver", []string{"problem_path", p, "claim", Claim, "premises", "n is a positive integer",
		"purpose", "This is the objective itself."}}
}

func setupSubs(s string, n int) step {
	var subs []string
	for i := range n {
		subs = append(subs, fmt.Sprintf(`{"claim": "Part %d of the claim holds.", "premises": ["n is an integer"]}`, i+1))
	}
	return step{"state-setup-substatement", "prover", []string{"parent_statement_path", s, "rationale", "Split into parts.",
		"sub_statements", "[" + strings.Join(subs, ", ") + "]"}}
}

func complete(s string) step {
	return step{"state-complete-proof", "prover", []string{"statement_path", s, "strategy", "induction", "proof_text", ProofText}}
}

func confirm(s string) step {
	return step{"check-confirm-proof", "checker", []string{"statement_path", s, "verification_summary", "Checked both steps."}}
}

func reject(s string) step {
	return step{"check-reject-proof", "checker", []string{"statement_path", s, "sentence_number", "2", "sentence_text", Quote,
		"error_type", "unjustified_leap", "explanation", "The identity n^2 + 2n + 1 = (n+1)^2 is used without being shown.",
		"suggested_fix", "Expand (n+1)^2."}}
}

func patch(s string) step {
	return step{"fix-patch-proof", "fixer", []string{"statement_path", s, "issue_number", "1", "sentence_range", "2",
		"change_description", "Justify the identity.",
		"replacement_text", "Step 2: If the sum up to 2n-1 is n^2, adding 2n+1 gives n^2 + 2n + 1, which is (n+1)^2 by expanding the square."}}
}

func propose(s string) step {
	return step{"state-propose-modification", "prover", []string{"statement_path", s, "source", "prove",
		"modification_type", "strengthen_premises", "suggested_premises", "n is an integer with n >= 1",
		"rationale", "The claim needs n to be an integer."}}
}

func fixSub(s string) step {
	return step{"fix-create-substatement", "fixer", []string{"statement_path", s, "issue_number", "1",
		"sub_claim", "For every integer n, n^2 + 2n + 1 = (n+1)^2.", "gap_location", "2", "purpose", "Justifies step 2."}}
}

// template is the documents one recipe made, by root-relative path.
type template struct {
	files map[string][]byte
	order []string // problems first, then statements, each sorted: parents before children
}

// makeTemplate runs a recipe through the skills in a fresh store under dir
// and returns the documents it made.
func makeTemplate(dir, shape string) (*template, error) {
	root := filepath.Join(dir, shape)
	if _, err := store.Init(root); err != nil {
		return nil, err
	}
	s, err := store.Open(root)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	s.Now = func() time.Time { return epoch }
	p, st := "prob_"+templateName, "stmt_"+templateName+"_wrap"
	if _, err := skills.NewProblem(s, store.TxOptions{Command: "new-problem", Actor: "solver"},
		skills.NewProblemParams{Name: templateName, Objective: Claim}); err != nil {
		return nil, fmt.Errorf("template %s: new-problem: %w", shape, err)
	}
	r := strings.NewReplacer("$P", p, "$S", st)
	for _, c := range recipes[shape] {
		sk, ok := skills.Find(c.skill)
		if !ok {
			return nil, fmt.Errorf("template %s: no skill %s", shape, c.skill)
		}
		flags := map[string][]string{}
		for i := 0; i < len(c.args); i += 2 {
			flags[c.args[i]] = append(flags[c.args[i]], r.Replace(c.args[i+1]))
		}
		in, err := skills.ParseInput(sk, flags, nil, skills.Source{Max: 1 << 22})
		if err == nil {
			_, err = skills.Execute(s, sk, store.TxOptions{Command: c.skill, Actor: c.actor}, in)
		}
		if err != nil {
			return nil, fmt.Errorf("template %s: %s %v: %w", shape, c.skill, c.args, err)
		}
	}
	t := &template{files: map[string][]byte{}}
	for _, kind := range []string{"problem", "statement"} {
		names, err := filepath.Glob(filepath.Join(root, kind, "*.json"))
		if err != nil {
			return nil, err
		}
		for _, n := range names { // Glob sorts: a parent id is a prefix of its children's
			raw, err := os.ReadFile(n)
			if err != nil {
				return nil, err
			}
			// Kept proof revisions (proofs/<id>.jsonl) are not cloned: the
			// clones are statements from before revisions were kept, which
			// doctor accepts, and the big shapes rewrite the proof anyway.
			if gjson.GetBytes(raw, "revisions_kept_from").Exists() {
				if raw, err = sjson.DeleteBytes(raw, "revisions_kept_from"); err != nil {
					return nil, err
				}
				raw = pretty.Pretty(raw)
			}
			rel := kind + "/" + filepath.Base(n)
			t.files[rel] = raw
			t.order = append(t.order, rel)
		}
	}
	return t, nil
}
