package model

import "fmt"

// The values of config.json's verify_distinct: what makes two
// confirmations count twice toward verify_quorum, and a checker other than
// the proof's author under forbid_self_check.
const (
	DistinctActor = "actor" // distinct actors (the default)
	DistinctAgent = "agent" // distinct agents of config.json
	DistinctModel = "model" // distinct model labels
)

// VerifyDistincts lists verify_distinct's values.
var VerifyDistincts = []string{DistinctActor, DistinctAgent, DistinctModel}

// Party is who a record's writer counts as under verify_distinct: its
// actor; its agent's name; or its model label. A writer without an agent
// (or without a model label) counts as its actor, so a person at a
// terminal is a party of its own under every setting.
func Party(distinct, actor string, l AgentLabel) string {
	switch {
	case distinct == DistinctAgent && l.Agent != "":
		return "agent " + l.Agent
	case distinct == DistinctModel && l.Model != "":
		return "model " + l.Model
	}
	return "actor " + ActorKey(actor)
}

// selfCheckParty is the verify_distinct part of the self-check rule: a
// checker whose party (agent or model) wrote the proof revision may not
// check it.
func selfCheckParty(f *Facts) error {
	if f.VerifyDistinct == "" || f.VerifyDistinct == DistinctActor {
		return nil
	}
	author := Party(f.VerifyDistinct, f.ProofAuthor, f.ProofAuthorLabel)
	if Party(f.VerifyDistinct, f.Actor, f.CheckerLabel) == author {
		return fmt.Errorf("%s wrote proof revision %d, and %s may not check it (forbid_self_check, verify_distinct %s)",
			author, f.ProofRevision, ActorKey(f.Actor), f.VerifyDistinct)
	}
	return nil
}

// Confirmers are the distinct parties that confirmed proof revision rev,
// in the order they first confirmed it. A confirmation that does not count
// (Uncounted) is none.
func (st *Statement) Confirmers(distinct string, rev int) []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range st.Validate.Confirmations {
		if c.ProofRevision != rev || c.Uncounted != "" {
			continue
		}
		a := ""
		if c.Actor != nil {
			a = *c.Actor
		}
		if p := Party(distinct, a, c.AgentLabel); !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// ConfirmedModels are the model labels that confirmed the statement's
// current proof revision, in order ("" stands for confirmations without
// one).
func (st *Statement) ConfirmedModels() []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range st.Validate.Confirmations {
		if c.ProofRevision == st.ProofRevision && !seen[c.Model] {
			seen[c.Model] = true
			out = append(out, c.Model)
		}
	}
	return out
}
