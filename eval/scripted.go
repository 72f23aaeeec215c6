package eval

import (
	"fmt"
	"slices"
	"strings"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/skills"
	"github.com/proofloop/proofloop/store"
)

// Scripted agents stand in for models in the tests and the demo (no model
// can be reached here): `proofloop eval-agent NAME` runs one as a turn's
// agent. Each does one thing whatever the proof says, or what the shipped
// set's labels say, so that the figures eval and canaries give for it are
// known in advance (TestScriptedFigures, docs/eval.md). They know only the
// shipped set, which is public: none can read a person's canary set.
type scripted struct {
	Name, Role, Does string
	act              func(st *model.Statement, item *model.EvalItem) action
}

// action is a scripted agent's one skill call.
type action struct {
	skill  string
	params map[string]any
}

// TwoCategories are the categories the two-categories checker catches.
var TwoCategories = []string{"missing edge case", "circular reasoning"}

var scriptedAgents = []scripted{
	{"confirm-all", "check", "confirms every proof", func(st *model.Statement, _ *model.EvalItem) action { return confirm(st) }},
	{"reject-all", "check", "rejects every proof at its first sentence", func(st *model.Statement, _ *model.EvalItem) action { return reject(st, 1) }},
	{"finds-planted", "check", "rejects a flawed proof of the shipped set at its first flawed sentence, confirms any other", func(st *model.Statement, it *model.EvalItem) action {
		if it != nil && it.Label == model.LabelFlawed {
			return reject(st, it.FlawedSentences[0])
		}
		return confirm(st)
	}},
	{"two-categories", "check", "rejects, at its first flawed sentence, a flawed proof of the shipped set whose category is " + strings.Join(TwoCategories, " or ") + "; confirms any other", func(st *model.Statement, it *model.EvalItem) action {
		if it != nil && it.Label == model.LabelFlawed && slices.Contains(TwoCategories, it.Category) {
			return reject(st, it.FlawedSentences[0])
		}
		return confirm(st)
	}},
	{"prove-all", "prove", "submits a proof of every claim", func(st *model.Statement, _ *model.EvalItem) action {
		return action{"state-complete-proof", map[string]any{"statement_path": st.ID, "strategy": "direct",
			"proof_text": "The claim follows from the premises by a direct argument. Hence it holds."}}
	}},
}

// ScriptedNames lists the scripted agents with what each does.
func ScriptedNames() []string {
	var out []string
	for _, a := range scriptedAgents {
		out = append(out, a.Name)
	}
	return out
}

// ScriptedHelp is one line per scripted agent: its name, role and behaviour.
func ScriptedHelp() string {
	var b strings.Builder
	for _, a := range scriptedAgents {
		fmt.Fprintf(&b, "  %-15s (%s) %s\n", a.Name, a.Role, a.Does)
	}
	return b.String()
}

func confirm(st *model.Statement) action {
	return action{"check-confirm-proof", map[string]any{"statement_path": st.ID, "verification_summary": "Checked sentence by sentence."}}
}

// reject cites sentence n of the proof, quoting its text.
func reject(st *model.Statement, n int) action {
	text := model.Sentences(deref(st.Proof))[n-1]
	return action{"check-reject-proof", map[string]any{"statement_path": st.ID, "sentence_number": n, "sentence_text": text,
		"error_type": "unjustified_leap", "explanation": fmt.Sprintf("Sentence %d does not follow from what comes before it.", n)}}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// RunScripted takes the turn of the scripted agent name on statement id,
// with opts (the turn's actor and lease): it reads the statement, looks it
// up in the shipped set by claim and proof, and makes its one call.
func RunScripted(s *store.Store, name, id string, opts store.TxOptions) (*skills.Result, error) {
	i := slices.IndexFunc(scriptedAgents, func(a scripted) bool { return a.Name == name })
	if i < 0 {
		return nil, store.Errorf(store.CodeInvalidInput, "no scripted agent %q", name).
			WithHint("the scripted agents are " + strings.Join(ScriptedNames(), ", "))
	}
	d, err := s.Read(id)
	if err != nil {
		return nil, err
	}
	st, err := d.Statement()
	if err != nil {
		return nil, err
	}
	act := scriptedAgents[i].act(st, shippedItem(st))
	sk, _ := skills.Find(act.skill)
	raw, err := jsonOf(act.params)
	if err != nil {
		return nil, err
	}
	in, err := skills.ParseInput(sk, nil, raw, skills.Source{Max: 1 << 20})
	if err != nil {
		return nil, err
	}
	opts.Command = act.skill
	return skills.Execute(s, sk, opts, in)
}

// shippedItem is the item of the shipped set with st's claim and proof,
// nil when there is none.
func shippedItem(st *model.Statement) *model.EvalItem {
	for _, it := range Shipped().Items {
		if it.Claim == st.Claim && it.ProofText() == deref(st.Proof) {
			return &it
		}
	}
	return nil
}
