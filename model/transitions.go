package model

import (
	"fmt"
	"slices"
	"strings"
)

// Role is an agent role. RoleDecide is the human or orchestrator that
// resolves a proposed modification.
type Role string

// The roles.
const (
	RoleSolve  Role = "solve"
	RoleProve  Role = "prove"
	RoleCheck  Role = "check"
	RoleFix    Role = "fix"
	RoleDecide Role = "decide"
)

// From is a set of statuses a rule acts on, for one source of the call
// ("" when the skill takes no source).
type From struct {
	Source   Source
	Statuses []Status
}

// Guard is a named condition a transition needs besides the status.
type Guard struct {
	Name  string
	Text  string
	Check func(f *Facts) error `json:"-"`
}

// Rule is one row of the transition table.
type Rule struct {
	Skill  string
	Roles  []Role
	Kind   Kind // the kind of document the rule acts on
	From   []From
	Leaves string // the status it leaves, in words when it depends on the outcome
	Guards []Guard
}

// Facts is what a guard may look at: the document's status and the inputs
// of the call, gathered by the skill before it asks Allow.
type Facts struct {
	Status      Status
	Source      Source
	Proof       string            // the proof the statement holds now
	NewProof    string            // state-complete-proof: the proof given
	SubStatuses map[string]Status // status of each sub-statement, by id
	NewSubs     int               // state-setup-substatement: how many given
	OpenIssues  []int             // issues no response has answered
	IssueCount  int               // issues recorded, numbered 1..IssueCount
	Named       []int             // issue numbers the call names
	KeyStatus   Status            // prob-finish-up: the key statement's status
	KeyListed   bool              // prob-finish-up: key statement in progresses
	Sentence    int               // check-reject-proof
	Quote       string            // check-reject-proof: sentence_text
	First, Last int               // fix-patch-proof: sentence range
	// The check skills' self-check rule (config.json forbid_self_check).
	ForbidSelfCheck bool
	Actor           string // who calls
	ProofAuthor     string // who wrote or last patched the proof
	ProofRevision   int
}

func (f *Facts) openSubs() []string {
	var open []string
	for id, st := range f.SubStatuses {
		if !Resolved(st) {
			open = append(open, id)
		}
	}
	slices.Sort(open)
	return open
}

var (
	anyOpenIssue = Guard{"named_issue_open", "each issue number named is open",
		func(f *Facts) error {
			if len(f.Named) == 0 {
				return fmt.Errorf("name the issue this answers (open issues: %s)", ints(f.OpenIssues))
			}
			for _, n := range f.Named {
				if n > f.IssueCount {
					return fmt.Errorf("there is no issue %d (the statement has %d; open: %s)", n, f.IssueCount, ints(f.OpenIssues))
				}
				if !slices.Contains(f.OpenIssues, n) {
					return fmt.Errorf("issue %d is not open (open issues: %s)", n, ints(f.OpenIssues))
				}
			}
			return nil
		}}
	noOpenSubs = Guard{"no_open_substatement", "from awaiting_substatements only when no sub-statement is still open",
		func(f *Facts) error {
			if f.Status != StatementAwaitingSubstatement {
				return nil
			}
			if open := f.openSubs(); len(open) > 0 {
				return fmt.Errorf("sub-statements still open: %s", strings.Join(open, ", "))
			}
			return nil
		}}
	fixNeedsIssue = Guard{"fix_names_open_issue", "source fix: an open issue number",
		func(f *Facts) error {
			if f.Source != SourceFix {
				return nil
			}
			return anyOpenIssue.Check(f)
		}}
)

// notSelfCheck is config.json's forbid_self_check: the last author of a
// proof may neither confirm nor reject it. Actors are compared in their
// normal form (ActorKey), the stored author's too, since a store written
// before actors were normalised may hold "Alice". A checker nobody can name
// cannot be told apart from the author, so an unknown actor is refused
// rather than waved through: that was the loophole of `--actor ""`.
var notSelfCheck = Guard{"not_self_check", "forbid_self_check: the checker is not the proof's last author",
	func(f *Facts) error {
		if !f.ForbidSelfCheck {
			return nil
		}
		if ActorKey(f.Actor) == "" {
			return fmt.Errorf("the checker is unknown, so it cannot be told from the author of proof revision %d (forbid_self_check)", f.ProofRevision)
		}
		if SameActor(f.Actor, f.ProofAuthor) {
			return fmt.Errorf("%s wrote proof revision %d and may not check it (forbid_self_check)", ActorKey(f.Actor), f.ProofRevision)
		}
		return nil
	}}

var proveOrFix = []From{
	{SourceProve, []Status{StatementPending, StatementAwaitingSubstatement}},
	{SourceFix, []Status{StatementHasGap, StatementAwaitingSubstatement}},
}

// Table is the transition table: for each skill, the statuses it acts on,
// the status it leaves and its guards. The CLI enforces it, `proofloop
// transitions` prints it, and the generated skill docs quote it.
var Table = []Rule{
	{Skill: "prob-finish-up", Roles: []Role{RoleSolve}, Kind: KindProblem,
		From:   []From{{"", []Status{ProblemPending}}},
		Leaves: "problem solved",
		Guards: []Guard{{"key_statement_true", "key statement is true and listed in the problem's progresses",
			func(f *Facts) error {
				if !f.KeyListed {
					return fmt.Errorf("the key statement is not listed in the problem's progresses")
				}
				if f.KeyStatus != StatementTrue {
					return fmt.Errorf("the key statement is %s, not true", f.KeyStatus)
				}
				return nil
			}}}},
	{Skill: "prob-setup-subgoal", Roles: []Role{RoleSolve}, Kind: KindProblem,
		From: []From{{"", []Status{ProblemPending}}}, Leaves: "new subproblem pending"},
	{Skill: "prob-wrapup-statement", Roles: []Role{RoleSolve}, Kind: KindProblem,
		From: []From{{"", []Status{ProblemPending}}}, Leaves: "new statement pending"},
	{Skill: "state-complete-proof", Roles: []Role{RoleProve}, Kind: KindStatement,
		From:   []From{{"", []Status{StatementPending, StatementAwaitingSubstatement}}},
		Leaves: string(StatementAwaitingVerification),
		Guards: []Guard{{"proof_not_empty", "proof not empty",
			func(f *Facts) error {
				if strings.TrimSpace(f.NewProof) == "" {
					return fmt.Errorf("the proof text is empty")
				}
				return nil
			}}, noOpenSubs}},
	{Skill: "state-setup-substatement", Roles: []Role{RoleProve, RoleFix}, Kind: KindStatement,
		From:   []From{{"", []Status{StatementPending, StatementAwaitingSubstatement}}},
		Leaves: string(StatementAwaitingSubstatement),
		Guards: []Guard{{"at_least_one", "at least one sub-statement",
			func(f *Facts) error {
				if f.NewSubs < 1 {
					return fmt.Errorf("give at least one sub-statement")
				}
				return nil
			}}, {noOpenSubs.Name, "re-planning only when no sub-statement is still open", noOpenSubs.Check}}},
	{Skill: "state-mark-false", Roles: []Role{RoleProve, RoleFix}, Kind: KindStatement,
		From: proveOrFix, Leaves: string(StatementFalse), Guards: []Guard{fixNeedsIssue}},
	{Skill: "state-propose-modification", Roles: []Role{RoleProve, RoleFix}, Kind: KindStatement,
		From: proveOrFix, Leaves: string(StatementNeedsModification), Guards: []Guard{fixNeedsIssue}},
	{Skill: "check-confirm-proof", Roles: []Role{RoleCheck}, Kind: KindStatement,
		From:   []From{{"", []Status{StatementAwaitingVerification}}},
		Leaves: "true once the acceptance quorum is met",
		Guards: []Guard{{"no_open_issue", "no open issue",
			func(f *Facts) error {
				if len(f.OpenIssues) > 0 {
					return fmt.Errorf("issues still open: %s", ints(f.OpenIssues))
				}
				return nil
			}}, notSelfCheck}},
	{Skill: "check-reject-proof", Roles: []Role{RoleCheck}, Kind: KindStatement,
		From:   []From{{"", []Status{StatementAwaitingVerification, StatementHasGap}}},
		Leaves: string(StatementHasGap),
		Guards: []Guard{{"sentence_in_range", "sentence number in range",
			func(f *Facts) error {
				n := len(SplitSentences(f.Proof))
				if f.Sentence < 1 || f.Sentence > n {
					return fmt.Errorf("sentence %d is out of range: %s", f.Sentence, ProofHas(n))
				}
				return nil
			}}, {"sentence_text_found", "sentence_text found in that sentence",
			func(f *Facts) error { return MatchSentence(f.Proof, f.Sentence, f.Quote) }}, notSelfCheck}},
	{Skill: "fix-patch-proof", Roles: []Role{RoleFix}, Kind: KindStatement,
		From:   []From{{"", []Status{StatementHasGap, StatementAwaitingSubstatement}}},
		Leaves: "awaiting_verification when no issue is left open, else has_gap",
		Guards: []Guard{anyOpenIssue, {noOpenSubs.Name, "from awaiting_substatements only once the gap-filling sub-statements are resolved", noOpenSubs.Check},
			{"range_in_bounds", "range in bounds",
				func(f *Facts) error {
					n := len(SplitSentences(f.Proof))
					if f.First < 1 || f.Last < f.First || f.Last > n {
						return fmt.Errorf("sentence range %d-%d is out of bounds: %s", f.First, f.Last, ProofHas(n))
					}
					return nil
				}}}},
	{Skill: "fix-create-substatement", Roles: []Role{RoleFix}, Kind: KindStatement,
		From:   []From{{"", []Status{StatementHasGap}}},
		Leaves: string(StatementAwaitingSubstatement), Guards: []Guard{anyOpenIssue}},
	{Skill: "decide", Roles: []Role{RoleDecide}, Kind: KindStatement,
		From:   []From{{"", []Status{StatementNeedsModification}}},
		Leaves: "accept: pending with the proposed claim and premises; reject: the status it came from"},
}

// Lookup returns the rule of a skill.
func Lookup(skill string) (*Rule, bool) {
	for i := range Table {
		if Table[i].Skill == skill {
			return &Table[i], true
		}
	}
	return nil, false
}

// ActsOn reports whether the rule acts on status s for a call from src.
func (r *Rule) ActsOn(src Source, s Status) bool {
	for _, fr := range r.From {
		if (fr.Source == "" || fr.Source == src) && slices.Contains(fr.Statuses, s) {
			return true
		}
	}
	return false
}

// AllowedNow lists the skills that may act on a document of kind k in
// status s, in table order.
func AllowedNow(k Kind, s Status) []string {
	var out []string
	for i := range Table {
		r := &Table[i]
		if r.Kind != k {
			continue
		}
		for _, fr := range r.From {
			if slices.Contains(fr.Statuses, s) {
				out = append(out, r.Skill)
				break
			}
		}
	}
	return out
}

// TransitionError is a refusal because of the document's status.
type TransitionError struct {
	Skill   string
	Kind    Kind
	Source  Source
	Status  Status
	Allowed []string
	// Next is the refusal's hint, filled in by the caller who knows the
	// item (whose turn it is, the caller's role): skills.explain.
	Next string
}

// NextStep is the refusal's hint.
func (e *TransitionError) NextStep() string { return e.Next }

func (e *TransitionError) Error() string {
	who := e.Skill
	if e.Source != "" {
		who += " (source " + string(e.Source) + ")"
	}
	allowed := "nothing: the " + string(e.Kind) + " is final"
	if len(e.Allowed) > 0 {
		var names []string
		for _, name := range e.Allowed {
			names = append(names, name+sourceNote(name, e.Status))
		}
		allowed = strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s cannot act on a %s in status %s; allowed now: %s", who, e.Kind, e.Status, allowed)
}

// sourceNote names the source a skill needs to act on status s, when only
// one source may: "state-mark-false (source fix)" on has_gap.
func sourceNote(skill string, s Status) string {
	r, _ := Lookup(skill)
	var srcs []string
	for _, f := range r.From {
		if f.Source != "" && slices.Contains(f.Statuses, s) {
			srcs = append(srcs, string(f.Source))
		}
	}
	if len(srcs) == 1 {
		return " (source " + srcs[0] + ")"
	}
	return ""
}

// GuardError is a refusal because a guard of the transition failed.
type GuardError struct {
	Skill  string
	Guard  string
	Reason error
	Next   string // the refusal's hint: the skill's refusal of this guard (skills.explain)
}

// NextStep is the refusal's hint.
func (e *GuardError) NextStep() string { return e.Next }

func (e *GuardError) Error() string {
	return fmt.Sprintf("guard %s failed: %v", e.Guard, e.Reason)
}

func (e *GuardError) Unwrap() error { return e.Reason }

// Allow checks a call of skill against the table: the status first, then
// each guard in order. It returns a *TransitionError or a *GuardError.
func Allow(skill string, f *Facts) error {
	r, ok := Lookup(skill)
	if !ok {
		return fmt.Errorf("unknown skill %q", skill)
	}
	if !r.ActsOn(f.Source, f.Status) {
		return &TransitionError{Skill: skill, Kind: r.Kind, Source: f.Source, Status: f.Status, Allowed: AllowedNow(r.Kind, f.Status)}
	}
	for _, g := range r.Guards {
		if err := g.Check(f); err != nil {
			return &GuardError{Skill: skill, Guard: g.Name, Reason: err}
		}
	}
	return nil
}

func ints(ns []int) string {
	if len(ns) == 0 {
		return "none"
	}
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ", ")
}
