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

// WorkflowRoles are the roles of the proof workflow, in the loop's order;
// the debate roles are the protocols' (DebateRoles).
var WorkflowRoles = []Role{RoleSolve, RoleProve, RoleCheck, RoleFix, RoleDecide}

// From is a set of statuses a rule acts on, for one source of the call
// ("" when the skill takes no source), and whether the rule gives a role a
// turn there. Whose turn it is comes from these entries alone (Route): a
// rule that gives Turn a turn on a status makes next and run offer the item
// to that role, when the rule's guards that read the document and When
// hold. A rule with no Turn is only allowed there (a further rejection
// while has_gap): an agent holding the item may use it, and nobody is
// handed the item for it.
type From struct {
	Source   Source
	Statuses []Status
	Turn     Role
	// When are conditions on the document under which the turn is given,
	// besides the rule's guards; the call itself does not need them.
	When []Guard
	// Why is the turn's reason, for a person (nil: a generic one).
	Why func(f *Facts) string
	// Despite names the holds (Holds) that do not stop this turn: the turn
	// is the way out of them (decide's on a spent round budget).
	Despite []string
	// Outcome is what the turn reports besides its role (OutcomeExhausted
	// for decide's on a spent budget); "" for none.
	Outcome string
}

// Guard is a named condition a transition needs besides the status. Input
// marks a guard that judges the call (its input or its caller): the router
// cannot judge it before anyone calls, so Route skips it.
type Guard struct {
	Name  string
	Text  string
	Check func(f *Facts) error `json:"-"`
	Input bool
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
	ErrorType   string            // check-reject-proof: error_type
	Explanation string            // check-reject-proof: explanation
	First, Last int               // fix-patch-proof: sentence range
	// The check skills' self-check rule (config.json forbid_self_check).
	ForbidSelfCheck bool
	Actor           string // who calls
	ProofAuthor     string // who wrote or last patched the proof
	// verify_distinct, and the agent and model of the checker and of the
	// proof's author, for the self-check rule across agents or models.
	VerifyDistinct   string
	CheckerLabel     AgentLabel
	ProofAuthorLabel AgentLabel
	ProofRevision    int
	// Statement is the statement the call acts on, whole, so that a new
	// guard can look at any of it without a new field here (nil for a
	// problem).
	Statement *Statement
	// Subs are its sub-statements, in order, with the issue each fills; for
	// a problem, its wrap-up statements (progresses).
	Subs []Child
	// Problem is the problem the call acts on (nil for a statement).
	Problem *Problem
	// Debate is settle-dispute's debate, closed.
	Debate *Debate
	// MaxRounds is config.json's max_rounds, for the round budget: the
	// budget_left hold and decide's turn on a spent budget read it.
	MaxRounds int
	// Extend is decide --extend N's N; 0 for --accept or --reject.
	Extend int
	// Escalation and ReviewStatements are config.json's, beside MaxRounds
	// (Policy); the prover's call's --lesson, strategy, and PlanSums of the
	// decomposition it gives and of the one it abandons (AbandonedPlan).
	Escalation             []Rung
	ReviewStatements       bool
	Lesson, NewStrategy    string
	NewPlan, AbandonedPlan string

	spans   []Span // the sentences of spansOf, once split (ProofSpans)
	spansOf string
}

// ProofSpans are the sentences of Proof. They are split once per Facts:
// a call's guards and its skill each need them, and a 100 KB proof takes
// milliseconds to split.
func (f *Facts) ProofSpans() []Span {
	if f.spans == nil || f.spansOf != f.Proof {
		f.spans, f.spansOf = SplitSentences(f.Proof), f.Proof
	}
	return f.spans
}

// kind is the kind of document the facts describe: a problem's facts
// carry it, a statement's or a bare status's do not.
func (f *Facts) kind() Kind {
	if f.Problem != nil {
		return KindProblem
	}
	return KindStatement
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
	anyOpenIssue = Guard{Name: "named_issue_open", Text: "each issue number named is open", Input: true,
		Check: func(f *Facts) error {
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
	noOpenSubs = Guard{Name: "no_open_substatement", Text: "from awaiting_substatements only when no sub-statement is still open",
		Check: func(f *Facts) error {
			if f.Status != StatementAwaitingSubstatement {
				return nil
			}
			if open := f.openSubs(); len(open) > 0 {
				return fmt.Errorf("sub-statements still open: %s", strings.Join(open, ", "))
			}
			return nil
		}}
	fixNeedsIssue = Guard{Name: "fix_names_open_issue", Text: "source fix: an open issue number", Input: true,
		Check: func(f *Facts) error {
			if f.Source != SourceFix {
				return nil
			}
			return anyOpenIssue.Check(f)
		}}
	noOpenIssue = Guard{Name: "no_open_issue", Text: "no open issue",
		Check: func(f *Facts) error {
			if len(f.OpenIssues) > 0 {
				return fmt.Errorf("issues still open: %s", ints(f.OpenIssues))
			}
			return nil
		}}
	// hasOpenIssue and noOpenIssue split awaiting_substatements between
	// the fixer (gap-filling sub-statements, their issue still open) and
	// the prover (its own decomposition).
	hasOpenIssue = Guard{Name: "has_open_issue", Text: "an issue is open",
		Check: func(f *Facts) error {
			if len(f.OpenIssues) == 0 {
				return fmt.Errorf("no issue is open")
			}
			return nil
		}}
)

// The solver's turns on a pending problem: finish it once a wrap-up
// statement is true; wrap it up (or set up a subgoal) while no wrap-up
// statement is open.
var (
	wrapTrue = Guard{Name: "a_wrapup_true", Text: "a wrap-up statement is true",
		Check: func(f *Facts) error {
			for _, w := range f.Subs {
				if w.Status == StatementTrue {
					return nil
				}
			}
			return fmt.Errorf("no wrap-up statement is true")
		}}
	noWrapOpen = Guard{Name: "no_wrapup_open", Text: "no wrap-up statement is open",
		Check: func(f *Facts) error {
			for _, w := range f.Subs {
				if !Resolved(w.Status) {
					return fmt.Errorf("%s is still open", w.ID)
				}
			}
			return nil
		}}
	whyFinish = func(f *Facts) string {
		for _, w := range f.Subs {
			if w.Status == StatementTrue {
				return w.ID + " is true: finish the problem"
			}
		}
		return "a wrap-up statement is true: finish the problem"
	}
	whyWrap = func(f *Facts) string {
		if len(f.Subs) == 0 {
			return "needs a wrap-up statement"
		}
		return "every wrap-up statement is false: wrap it up another way"
	}
	solveTurn = From{Statuses: []Status{ProblemPending}, Turn: RoleSolve, When: []Guard{noWrapOpen}, Why: whyWrap}
)

// The reasons of the turns the table gives.
var (
	whyProve = func(f *Facts) string {
		if why, ok := levelWhy(f); ok {
			return why
		}
		return "needs a proof, a decomposition, a refutation or a modification"
	}
	whyCheck = func(f *Facts) string {
		return fmt.Sprintf("proof revision %d awaits verification", f.ProofRevision) + uncountedNote(f.Statement)
	}
	whyFix = func(f *Facts) string { return "open issues " + ints(f.OpenIssues) + " need answers" }
	// whyReplan: the prover's own sub-statements are resolved.
	whyReplan = func(f *Facts) string {
		var falseSubs []string
		for _, c := range f.Subs {
			if c.FillsIssue == nil && c.Status == StatementFalse {
				falseSubs = append(falseSubs, c.ID)
			}
		}
		if len(falseSubs) > 0 {
			return "sub-statements " + strings.Join(falseSubs, ", ") + " are false: re-plan"
		}
		return "all sub-statements are resolved: write the proof"
	}
	// whyFilled: the fixer's gap-filling sub-statements are resolved.
	whyFilled = func(f *Facts) string {
		var filled []string
		for _, c := range f.Subs {
			if c.FillsIssue != nil && slices.Contains(f.OpenIssues, *c.FillsIssue) {
				filled = append(filled, c.ID)
			}
		}
		return "gap-filling sub-statements " + strings.Join(filled, ", ") + " are resolved: patch the proof or answer the issue another way"
	}
)

// proveOrFix is where state-mark-false and state-propose-modification act:
// the prover's turn on a pending statement, the fixer's on a gap. On
// awaiting_substatements they are only allowed: the statement waits for its
// sub-statements, and the prover or fixer it then goes to may use them.
var proveOrFix = []From{
	{Source: SourceProve, Statuses: []Status{StatementPending}, Turn: RoleProve, When: []Guard{reviewSettled}, Why: whyProve},
	{Source: SourceFix, Statuses: []Status{StatementHasGap}, Turn: RoleFix, Why: whyFix},
	{Source: SourceProve, Statuses: []Status{StatementAwaitingSubstatement}},
	{Source: SourceFix, Statuses: []Status{StatementAwaitingSubstatement}},
}

// proveAgain is the prover's turn on a statement whose own sub-statements
// are resolved.
var proveAgain = From{Statuses: []Status{StatementAwaitingSubstatement}, Turn: RoleProve, When: []Guard{noOpenIssue}, Why: whyReplan}

// Table is the transition table: for each skill, the statuses it acts on,
// the status it leaves and its guards, and the turns it gives. The CLI
// enforces it, `proofloop transitions` prints it, the generated skill docs
// quote it, and the loop routes by it (Route).
var Table = []Rule{
	{Skill: "prob-finish-up", Roles: []Role{RoleSolve}, Kind: KindProblem,
		From:   []From{{Statuses: []Status{ProblemPending}, Turn: RoleSolve, When: []Guard{wrapTrue}, Why: whyFinish}},
		Leaves: "problem solved",
		Guards: []Guard{{Name: "key_statement_true", Text: "key statement is true and listed in the problem's progresses", Input: true,
			Check: func(f *Facts) error {
				if !f.KeyListed {
					return fmt.Errorf("the key statement is not listed in the problem's progresses")
				}
				if f.KeyStatus != StatementTrue {
					return fmt.Errorf("the key statement is %s, not true", f.KeyStatus)
				}
				return nil
			}}}},
	{Skill: "prob-setup-subgoal", Roles: []Role{RoleSolve}, Kind: KindProblem,
		From: []From{solveTurn}, Leaves: "new subproblem pending"},
	{Skill: "prob-wrapup-statement", Roles: []Role{RoleSolve}, Kind: KindProblem,
		From: []From{solveTurn}, Leaves: "new statement pending"},
	// A prover's new approach (a proof or a decomposition) waits for the
	// statement's review (review_statements), writes the lesson of what it
	// abandons, and repeats no dead end; at level replan a proof changes
	// the plan.
	{Skill: "state-complete-proof", Roles: []Role{RoleProve}, Kind: KindStatement,
		From:   []From{{Statuses: []Status{StatementPending}, Turn: RoleProve, When: []Guard{reviewSettled}, Why: whyProve}, proveAgain},
		Leaves: string(StatementAwaitingVerification),
		Guards: []Guard{{Name: "proof_not_empty", Text: "proof not empty", Input: true,
			Check: func(f *Facts) error {
				if strings.TrimSpace(f.NewProof) == "" {
					return fmt.Errorf("the proof text is empty")
				}
				return nil
			}}, noOpenSubs, reviewSettled, notDeadEnd, planChanged, lessonGiven}},
	{Skill: "state-setup-substatement", Roles: []Role{RoleProve, RoleFix}, Kind: KindStatement,
		From:   []From{{Statuses: []Status{StatementPending}, Turn: RoleProve, When: []Guard{reviewSettled}, Why: whyProve}, proveAgain},
		Leaves: string(StatementAwaitingSubstatement),
		Guards: []Guard{{Name: "at_least_one", Text: "at least one sub-statement", Input: true,
			Check: func(f *Facts) error {
				if f.NewSubs < 1 {
					return fmt.Errorf("give at least one sub-statement")
				}
				return nil
			}}, {Name: noOpenSubs.Name, Text: "re-planning only when no sub-statement is still open", Check: noOpenSubs.Check},
			reviewSettled, notDeadEnd, lessonGiven}},
	{Skill: "state-mark-false", Roles: []Role{RoleProve, RoleFix}, Kind: KindStatement,
		From: proveOrFix, Leaves: string(StatementFalse), Guards: []Guard{fixNeedsIssue}},
	{Skill: "state-propose-modification", Roles: []Role{RoleProve, RoleFix}, Kind: KindStatement,
		From: proveOrFix, Leaves: string(StatementNeedsModification), Guards: []Guard{fixNeedsIssue}},
	{Skill: "check-confirm-proof", Roles: []Role{RoleCheck}, Kind: KindStatement,
		From:   []From{{Statuses: []Status{StatementAwaitingVerification}, Turn: RoleCheck, Why: whyCheck}},
		Leaves: "true once the acceptance quorum is met",
		Guards: []Guard{noOpenIssue, notSelfCheck}},
	{Skill: "check-reject-proof", Roles: []Role{RoleCheck}, Kind: KindStatement,
		From: []From{{Statuses: []Status{StatementAwaitingVerification}, Turn: RoleCheck, Why: whyCheck},
			{Statuses: []Status{StatementHasGap}}},
		Leaves: string(StatementHasGap) + climbNote,
		Guards: []Guard{{Name: "sentence_in_range", Text: "sentence number in range", Input: true,
			Check: func(f *Facts) error {
				n := len(f.ProofSpans())
				if f.Sentence < 1 || f.Sentence > n {
					return fmt.Errorf("sentence %d is out of range: %s", f.Sentence, ProofHas(n))
				}
				return nil
			}}, {Name: "sentence_text_found", Text: "sentence_text found in that sentence", Input: true,
			Check: func(f *Facts) error { return matchSpans(f.Proof, f.ProofSpans(), f.Sentence, f.Quote) }}, notSelfCheck, notARepeat}},
	{Skill: "fix-patch-proof", Roles: []Role{RoleFix}, Kind: KindStatement,
		From: []From{{Statuses: []Status{StatementHasGap}, Turn: RoleFix, Why: whyFix},
			{Statuses: []Status{StatementAwaitingSubstatement}, Turn: RoleFix, When: []Guard{hasOpenIssue}, Why: whyFilled}},
		Leaves: "awaiting_verification when no issue is left open, else has_gap",
		Guards: []Guard{anyOpenIssue, {Name: noOpenSubs.Name, Text: "from awaiting_substatements only once the gap-filling sub-statements are resolved", Check: noOpenSubs.Check},
			{Name: "range_in_bounds", Text: "range in bounds", Input: true,
				Check: func(f *Facts) error {
					n := len(f.ProofSpans())
					if f.First < 1 || f.Last < f.First || f.Last > n {
						return fmt.Errorf("sentence range %d-%d is out of bounds: %s", f.First, f.Last, ProofHas(n))
					}
					return nil
				}}}},
	{Skill: "fix-create-substatement", Roles: []Role{RoleFix}, Kind: KindStatement,
		From:   []From{{Statuses: []Status{StatementHasGap}, Turn: RoleFix, Why: whyFix}},
		Leaves: string(StatementAwaitingSubstatement), Guards: []Guard{anyOpenIssue}},
	// settle-dispute is the debate engine's own rule, no role's: when a
	// dispute's debate closes, its consensus may withdraw the disputed
	// issue, in the debate's closing transaction (its event records
	// withdrawn_issue and this rule). A final statement keeps its issues.
	{Skill: "settle-dispute", Kind: KindStatement,
		From: []From{{Statuses: []Status{StatementPending, StatementAwaitingVerification, StatementHasGap,
			StatementAwaitingSubstatement, StatementNeedsModification}}},
		Leaves: "awaiting_verification from has_gap when no issue is left open, else the status it had",
		Guards: []Guard{{Name: "dispute_withdrawn", Text: "the dispute ended in ACCEPTED_CONSENSUS with both latest verdicts withdrawn",
			Check: func(f *Facts) error {
				if f.Debate == nil || !DisputeWithdrawn(f.Debate) {
					return fmt.Errorf("the dispute did not end in consensus that the issue is withdrawn")
				}
				return nil
			}, Input: true}, {Name: "disputed_issue_open", Text: "the disputed issue is open", Input: true,
			Check: func(f *Facts) error {
				for _, n := range f.Named {
					if !slices.Contains(f.OpenIssues, n) {
						return fmt.Errorf("issue %d is not open", n)
					}
				}
				return nil
			}}}},
	// The ladder: the engine's rules that move a statement up a level of
	// escalation, in the transaction that spends its level's last round.
	escalateRow(Levels[1]), escalateRow(Levels[2]),
	// decide is a person's (or an orchestrator's) command, with a row per
	// kind of item it acts on: --accept or --reject on a proposed
	// modification, --extend on an item that has spent its round budget
	// (the turn the budget_left hold gives way to).
	{Skill: "decide", Roles: []Role{RoleDecide}, Kind: KindStatement,
		From: []From{{Statuses: []Status{StatementNeedsModification}, Turn: RoleDecide,
			Why: func(*Facts) string { return "a modification is proposed: accept or reject it" }},
			decideSpent(StatementPending, StatementAwaitingVerification, StatementHasGap, StatementAwaitingSubstatement)},
		Leaves: "accept: pending with the proposed claim and premises; reject: the status it came from; extend: the status it had",
		Guards: []Guard{modificationProposed, extendSpent}},
	{Skill: "decide", Roles: []Role{RoleDecide}, Kind: KindProblem,
		From:   []From{decideSpent(ProblemPending)},
		Leaves: "extend: the status it had",
		Guards: []Guard{modificationProposed, extendSpent}},
}

// Lookup returns the rule of a skill: its first row, for a skill with a
// row per kind of document (decide); LookupKind picks one.
func Lookup(skill string) (*Rule, bool) {
	for i := range Table {
		if Table[i].Skill == skill {
			return &Table[i], true
		}
	}
	return nil, false
}

// LookupKind returns the rule of a skill on documents of kind k.
func LookupKind(skill string, k Kind) (*Rule, bool) {
	for i := range Table {
		if Table[i].Skill == skill && Table[i].Kind == k {
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
// status s, in table order. The engine's own rules (no role: settle-dispute)
// are not for a caller, so they are not listed; nor is an entry that is the
// way out of a hold (decide on a spent budget): it acts only while the hold
// is in force, which the status alone does not say.
func AllowedNow(k Kind, s Status) []string {
	var out []string
	for i := range Table {
		r := &Table[i]
		if r.Kind != k || len(r.Roles) == 0 {
			continue
		}
		for _, fr := range r.From {
			if len(fr.Despite) == 0 && slices.Contains(fr.Statuses, s) {
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
			names = append(names, name+sourceNote(name, e.Kind, e.Status))
		}
		allowed = strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s cannot act on a %s in status %s; allowed now: %s", who, e.Kind, e.Status, allowed)
}

// sourceNote names the source a skill needs to act on status s, when only
// one source may: "state-mark-false (source fix)" on has_gap.
func sourceNote(skill string, k Kind, s Status) string {
	r, _ := LookupKind(skill, k)
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
	r, ok := LookupKind(skill, f.kind())
	if !ok {
		// A skill with one row is checked against it whatever the facts
		// carry (the problem skills give a bare status).
		r, ok = Lookup(skill)
	}
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
