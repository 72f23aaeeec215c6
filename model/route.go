package model

import (
	"fmt"
	"slices"
)

// Grant is a turn the table gives: the rule, the role it hands the item to,
// and why.
type Grant struct {
	Skill    string
	Role     Role
	Reason   string
	Outcome  string // the entry's Outcome: exhausted for decide's on a spent budget
	Priority int    // the entry's Priority
}

// Route lists the turns the table gives on a document of kind k in the
// state f describes (its status, open issues, sub-statements, disputes and
// round budget; no call's input), in table order: every From entry with a
// Turn that holds the status, whose When conditions and whose rule's
// guards that read the document (not Input) all pass, and that no hold
// (Holds) stops, and of those only the turns of the highest priority
// (From.Priority). Nothing else decides whose turn it is; a new rule that
// gives a turn is routed, and held, with no other edit.
func Route(k Kind, f *Facts) []Grant {
	var out []Grant
	top := 0
	for i := range Table {
		r := &Table[i]
		if r.Kind != k {
			continue
		}
		for _, fr := range r.From {
			if fr.Turn == "" || !slices.Contains(fr.Statuses, f.Status) || !holds(fr.When, f) || !holds(r.Guards, f) ||
				heldDespite(f, fr.Despite) {
				continue
			}
			why := fmt.Sprintf("%s may act on it", r.Skill)
			if fr.Why != nil {
				why = fr.Why(f)
			}
			if len(out) == 0 || fr.Priority > top {
				top = fr.Priority
			}
			out = append(out, Grant{Skill: r.Skill, Role: fr.Turn, Reason: why, Outcome: fr.Outcome, Priority: fr.Priority})
		}
	}
	return slices.DeleteFunc(out, func(g Grant) bool { return g.Priority < top })
}

// holds reports whether every guard that reads the document passes; guards
// that judge a call (Input) are left to the call.
func holds(gs []Guard, f *Facts) bool {
	for _, g := range gs {
		if !g.Input && g.Check(f) != nil {
			return false
		}
	}
	return true
}

// TurnRoles lists the distinct roles that the table gives a turn on status
// s of kind k, for some state of the document, in table order: the roles
// next and run may offer such an item to.
func TurnRoles(k Kind, s Status) []Role {
	var out []Role
	for i := range Table {
		r := &Table[i]
		if r.Kind != k {
			continue
		}
		for _, fr := range r.From {
			if fr.Turn != "" && slices.Contains(fr.Statuses, s) && !slices.Contains(out, fr.Turn) {
				out = append(out, fr.Turn)
			}
		}
	}
	return out
}

// StatementFacts are the facts of a statement as the router sees them: its
// own fields and its sub-statements, no call's input.
func StatementFacts(st *Statement, subs []Child) *Facts {
	f := &Facts{Status: st.Status, OpenIssues: st.OpenIssues(), IssueCount: len(st.Validate.Issues),
		ProofRevision: st.ProofRevision, Statement: st, Subs: subs, SubStatuses: map[string]Status{}}
	if st.Proof != nil {
		f.Proof = *st.Proof
	}
	for _, c := range subs {
		f.SubStatuses[c.ID] = c.Status
	}
	return f
}

// ProblemFacts are the facts of a problem as the router sees them: its
// status and its wrap-up statements (as Subs).
func ProblemFacts(p *Problem, wraps []Child) *Facts {
	return &Facts{Status: p.Status, Problem: p, Subs: wraps}
}

// AddRule adds a rule to the transition table: how a skill that is not
// one of the seed's brings its own row (skills.Skill.Transition), so that
// the skill is its one file. A skill name already in the table panics: a
// registry skill has one row, the one Lookup and the skill's docs read.
func AddRule(r Rule) {
	if _, ok := Lookup(r.Skill); ok {
		panic("model: the transition table already has a row for " + r.Skill)
	}
	Table = append(Table, r)
}

// AfterWithdrawal is the status a statement leaves when its issue n is
// withdrawn (by its checker or by a dispute's consensus): with no open
// issue left, a statement with a gap has no gap, and its proof goes back to
// the checker (StatusWithoutIssues: pending when it has no written proof,
// as after a rejected formalization); otherwise its status stays.
func AfterWithdrawal(st *Statement, n int) Status {
	if st.Status != StatementHasGap {
		return st.Status
	}
	for _, o := range st.OpenIssues() {
		if o != n {
			return st.Status
		}
	}
	return StatusWithoutIssues(st)
}

// BySource lists the statuses the rule acts on, one entry per source of the
// call in the order they first appear: the table's own entries may split a
// source's statuses by the turns they give, which docs and help need not
// show. Turn, When and Why are left empty.
func (r *Rule) BySource() []From {
	var out []From
	for _, f := range r.From {
		i := slices.IndexFunc(out, func(o From) bool { return o.Source == f.Source })
		if i < 0 {
			out = append(out, From{Source: f.Source})
			i = len(out) - 1
		}
		out[i].Statuses = append(out[i].Statuses, f.Statuses...)
	}
	return out
}
