package model

import (
	"strings"
	"testing"
)

// TestSelfCheckAcrossModels: under verify_distinct model a checker of the
// proof author's model is refused, whatever its actor; another model, or a
// checker without one (a party of its own), passes; under actor the models
// do not matter.
func TestSelfCheckAcrossModels(t *testing.T) {
	opus := AgentLabel{Agent: "claude", Model: "claude-opus"}
	for _, c := range []struct {
		distinct, checker string
		label             AgentLabel
		refused           bool
	}{
		{DistinctModel, "check-c1-2", AgentLabel{Agent: "c1", Model: "claude-opus"}, true},
		{DistinctModel, "check-cx-2", AgentLabel{Agent: "cx", Model: "gpt-5"}, false},
		{DistinctModel, "rita", AgentLabel{}, false},
		{DistinctAgent, "check-claude-2", AgentLabel{Agent: "claude", Model: "gpt-5"}, true},
		{DistinctAgent, "check-c1-2", AgentLabel{Agent: "c1", Model: "claude-opus"}, false},
		{DistinctActor, "check-c1-2", AgentLabel{Agent: "c1", Model: "claude-opus"}, false},
	} {
		f := &Facts{ForbidSelfCheck: true, Actor: c.checker, ProofAuthor: "prove-claude-1", ProofRevision: 3,
			VerifyDistinct: c.distinct, CheckerLabel: c.label, ProofAuthorLabel: opus}
		err := notSelfCheck.Check(f)
		if (err != nil) != c.refused {
			t.Errorf("%s %s %+v: refused %v, want %v", c.distinct, c.checker, c.label, err, c.refused)
		}
		if err != nil && !strings.Contains(err.Error(), "proof revision 3") {
			t.Errorf("message %q does not name the revision", err)
		}
	}
}

// TestConfirmersCountParties: the quorum counts distinct models under
// model, the same model twice once, and a confirmation without a model as
// its actor.
func TestConfirmersCountParties(t *testing.T) {
	a, b, c := "check-x-1", "check-y-2", "rita"
	st := &Statement{ProofRevision: 2, Validate: Validate{Confirmations: []Confirmation{
		{Actor: &a, AgentLabel: AgentLabel{Agent: "x", Model: "gpt-5"}, ProofRevision: 2},
		{Actor: &b, AgentLabel: AgentLabel{Agent: "y", Model: "gpt-5"}, ProofRevision: 2},
		{Actor: &c, ProofRevision: 2},
		{Actor: &c, AgentLabel: AgentLabel{Model: "gemini"}, ProofRevision: 1},
	}}}
	if got := st.Confirmers(DistinctModel, 2); strings.Join(got, "|") != "model gpt-5|actor rita" {
		t.Errorf("model: %q", got)
	}
	if got := st.Confirmers(DistinctActor, 2); len(got) != 3 {
		t.Errorf("actor: %q", got)
	}
	if got := st.ConfirmedModels(); strings.Join(got, "|") != "gpt-5|" {
		t.Errorf("models: %q", got)
	}
}

// TestUnknownModelsAreOneParty (issue 35): under verify_distinct model two
// agents whose model nobody named count as one party, so their two
// confirmations count once, and neither checks the other's proof; a person
// (no agent) stays a party of their own.
func TestUnknownModelsAreOneParty(t *testing.T) {
	a, b, c := "check-codex-1", "check-gemini-2", "rita"
	st := &Statement{ProofRevision: 2, Validate: Validate{Confirmations: []Confirmation{
		{Actor: &a, AgentLabel: AgentLabel{Agent: "codex"}, ProofRevision: 2},
		{Actor: &b, AgentLabel: AgentLabel{Agent: "gemini"}, ProofRevision: 2},
		{Actor: &c, ProofRevision: 2},
	}}}
	if got := st.Confirmers(DistinctModel, 2); strings.Join(got, "|") != UnknownModel+"|actor rita" {
		t.Errorf("Confirmers(model) = %q; want the two agents of unknown model as one party, and rita", got)
	}
	if got := st.Confirmers(DistinctAgent, 2); len(got) != 3 {
		t.Errorf("Confirmers(agent) = %q; want 3 parties: the agents' names differ", got)
	}
	f := &Facts{ForbidSelfCheck: true, Actor: "check-gemini-2", ProofAuthor: "prove-codex-1", ProofRevision: 2,
		VerifyDistinct: DistinctModel, CheckerLabel: AgentLabel{Agent: "gemini"}, ProofAuthorLabel: AgentLabel{Agent: "codex"}}
	if err := notSelfCheck.Check(f); err == nil {
		t.Errorf("a checker of unknown model passed on a proof by an agent of unknown model; want not_self_check")
	}
}
