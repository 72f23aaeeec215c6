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

// Writers are everyone who wrote the statement's current proof revision:
// ProofWriters, or for a statement written before they were recorded, its
// last author.
func (st *Statement) Writers() []ProofWriter {
	if len(st.ProofWriters) > 0 || st.ProofAuthor == nil {
		return st.ProofWriters
	}
	return []ProofWriter{{Actor: *st.ProofAuthor, AgentLabel: AgentLabel{Agent: st.ProofAuthorAgent, Model: st.ProofAuthorModel}}}
}

// selfCheck is the self-check rule on one writer of the proof revision:
// the checker may not be that writer, nor, under verify_distinct agent or
// model, of that writer's agent or model.
func selfCheck(f *Facts, w ProofWriter) error {
	what := fmt.Sprintf("proof revision %d", f.ProofRevision)
	if !SameActor(w.Actor, f.ProofAuthor) {
		what = fmt.Sprintf("part of proof revision %d (before %s's patch)", f.ProofRevision, ActorKey(f.ProofAuthor))
	}
	if SameActor(f.Actor, w.Actor) {
		return fmt.Errorf("%s wrote %s and may not check it (forbid_self_check)", ActorKey(f.Actor), what)
	}
	if f.VerifyDistinct == "" || f.VerifyDistinct == DistinctActor {
		return nil
	}
	if p := Party(f.VerifyDistinct, w.Actor, w.AgentLabel); Party(f.VerifyDistinct, f.Actor, f.CheckerLabel) == p {
		return fmt.Errorf("%s wrote %s, and %s may not check it (forbid_self_check, verify_distinct %s)",
			p, what, ActorKey(f.Actor), f.VerifyDistinct)
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
