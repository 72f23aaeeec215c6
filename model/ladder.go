package model

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// When a proof keeps failing, a spent round budget is a step on a ladder,
// not a stop. config.json's escalation lists the levels a statement climbs
// and each one's rounds; a statement starts at the first, revise (the
// check/fix exchange: the fixer answers each issue), and the rejection that
// spends the last round of a level moves it to the next in the same
// transaction, by the table's escalate-<level> rule: replan and rewrite
// give the statement back to the prover, pending, and its proof with the
// issues that killed it becomes a dead end (DeadEnd). Only the last level's
// spent budget goes to decide, as exhausted.

// The levels of escalation.
const (
	LevelRevise  = "revise"
	LevelReplan  = "replan"
	LevelRewrite = "rewrite"
)

// Level is a level of escalation: the status a statement enters it in,
// whose turn that is, and what the level asks of that role.
type Level struct {
	Name   string
	Enters Status
	Turn   Role
	// Abandons says that entering the level makes the statement's current
	// approach a dead end.
	Abandons bool
	// Task is what the level asks, for prime, the reasons of turns and the
	// docs.
	Task string
}

// Levels are the levels of escalation, in the order a ladder climbs them.
// A statement starts at the first, revise; a ladder (config.json
// escalation) starts there too and names each later level at most once, in
// this order.
var Levels = []Level{
	{Name: LevelRevise, Enters: StatementHasGap, Turn: RoleFix,
		Task: "revise the proof under the same plan: the fixer answers each issue"},
	{Name: LevelReplan, Enters: StatementPending, Turn: RoleProve, Abandons: true,
		Task: "re-plan: decompose the statement into sub-statements, or prove it with another strategy"},
	{Name: LevelRewrite, Enters: StatementPending, Turn: RoleProve, Abandons: true,
		Task: "rewrite from scratch: a new proof that repeats no dead end"},
}

// LevelNames lists the names of Levels, in order (the schemas' enum).
func LevelNames() []string {
	out := make([]string, len(Levels))
	for i, l := range Levels {
		out[i] = l.Name
	}
	return out
}

// levelOrder is a level's place in Levels; -1 for an unknown name.
func levelOrder(name string) int {
	return slices.IndexFunc(Levels, func(l Level) bool { return l.Name == name })
}

// FindLevel returns the level called name; "" is the first, revise.
func FindLevel(name string) (Level, bool) {
	if name == "" {
		return Levels[0], true
	}
	if i := levelOrder(name); i >= 0 {
		return Levels[i], true
	}
	return Level{}, false
}

// Rung is one step of a ladder: a level and its rounds (0: max_rounds).
type Rung struct {
	Level  string `json:"level"`
	Rounds int    `json:"rounds,omitempty"`
}

// DefaultEscalation is config.json's escalation when it has none: every
// level, each with max_rounds rounds.
var DefaultEscalation = []Rung{{Level: LevelRevise}, {Level: LevelReplan}, {Level: LevelRewrite}}

// MaxLevelRounds bounds a rung's rounds, as max_rounds is bounded.
const MaxLevelRounds = 1000

// CheckEscalation says why rs is not a ladder proofloop climbs: it must
// start at revise (where every statement starts) and name each later level
// at most once, in the order of Levels, each with 1 to 1000 rounds or none
// (max_rounds).
func CheckEscalation(rs []Rung) error {
	if len(rs) == 0 {
		return fmt.Errorf("escalation lists no level: give at least [{\"level\": %q}]", LevelRevise)
	}
	last := -1
	for i, r := range rs {
		o := levelOrder(r.Level)
		switch {
		case o < 0:
			return fmt.Errorf("escalation level %q is not a level: use %s", r.Level, strings.Join(LevelNames(), ", "))
		case i == 0 && o != 0:
			return fmt.Errorf("escalation starts at %s, not %s: every statement starts by revising its proof", LevelRevise, r.Level)
		case o <= last:
			return fmt.Errorf("escalation names %s after %s: the levels go %s, each at most once", r.Level, rs[i-1].Level, strings.Join(LevelNames(), ", then "))
		case r.Rounds < 0 || r.Rounds > MaxLevelRounds:
			return fmt.Errorf("escalation level %s has %d rounds: give 1 to %d, or leave rounds out for max_rounds", r.Level, r.Rounds, MaxLevelRounds)
		}
		last = o
	}
	return nil
}

// Policy is what whose turn it is depends on besides the documents: the
// settings of config.json that the table's rules read.
type Policy struct {
	MaxRounds int
	// Escalation is the ladder; nil is one level, revise, of MaxRounds
	// rounds (a spent budget goes straight to decide).
	Escalation       []Rung
	ReviewStatements bool
}

// Key is the policy as one string: the derived index records the policy
// it was derived under, and is rebuilt under another.
func (p Policy) Key() string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(p.MaxRounds))
	for _, r := range p.ladder() {
		fmt.Fprintf(&b, ";%s:%d", r.Level, p.rounds(r))
	}
	if p.ReviewStatements {
		b.WriteString(";review")
	}
	return b.String()
}

func (p Policy) ladder() []Rung {
	if len(p.Escalation) == 0 {
		return []Rung{{Level: LevelRevise}}
	}
	return p.Escalation
}

func (p Policy) rounds(r Rung) int {
	if r.Rounds == 0 {
		return p.MaxRounds
	}
	return r.Rounds
}

// Step is a statement's place on its ladder.
type Step struct {
	Level  string // the level it is at
	Index  int    // its rung of the ladder, from 0
	Rungs  int    // how many rungs the ladder has
	Spent  int    // rounds and idle turns spent at this level
	Budget int    // the level's rounds, plus what decide --extend granted
	Next   string // the next level; "" at the last
}

// Climbed reports whether the statement has left the first level.
func (s Step) Climbed() bool { return s.Index > 0 }

// StepOf places a statement on the ladder. A statement whose level the
// ladder no longer names (config.json changed) is at the last rung at or
// below its level.
func (p Policy) StepOf(st *Statement) Step {
	lv := LevelOf(st)
	rungs := p.ladder()
	i := 0
	for j, r := range rungs {
		if levelOrder(r.Level) <= levelOrder(lv) {
			i = j
		}
	}
	s := Step{Level: lv, Index: i, Rungs: len(rungs), Spent: max(0, Spent(st)-st.LevelFrom),
		Budget: p.rounds(rungs[i]) + st.ExtraRounds}
	if i+1 < len(rungs) {
		s.Next = rungs[i+1].Level
	}
	return s
}

// LevelOf is the level a statement is at: revise until it climbs.
func LevelOf(st *Statement) string {
	if st.Level == "" {
		return LevelRevise
	}
	return st.Level
}

// Policy is the policy the facts were gathered under.
func (f *Facts) Policy() Policy {
	return Policy{MaxRounds: f.MaxRounds, Escalation: f.Escalation, ReviewStatements: f.ReviewStatements}
}

// SetPolicy sets the facts' settings from p.
func (f *Facts) SetPolicy(p Policy) {
	f.MaxRounds, f.Escalation, f.ReviewStatements = p.MaxRounds, p.Escalation, p.ReviewStatements
}

// The engine's rules that climb the ladder: one row per level a statement
// can climb to, each applied in the transaction that spends the last round
// of the level below (a rejection, a reopen, or run's charge of an idle
// turn), whose status it changes.
var (
	levelSpent = Guard{Name: "level_spent", Text: "the call spent the last round of the statement's level (a rejection, a reopen, or run's idle turn)",
		Check: func(f *Facts) error {
			if f.Statement == nil || !f.spent() {
				return fmt.Errorf("%s has budget left at its level", f.itemID())
			}
			return nil
		}}
	nextLevel = func(l Level) Guard {
		return Guard{Name: "next_level", Text: "escalation's next level after the statement's is " + l.Name,
			Check: func(f *Facts) error {
				if f.Statement == nil {
					return fmt.Errorf("no statement")
				}
				if next := f.Policy().StepOf(f.Statement).Next; next != l.Name {
					return fmt.Errorf("the next level of %s is %q, not %s", f.Statement.ID, next, l.Name)
				}
				return nil
			}}
	}
	escalateRow = func(l Level) Rule {
		dead := ""
		if l.Abandons {
			dead = "; its proof (or decomposition) and the issues that killed it become a dead end, and its open issues are superseded"
		}
		return Rule{Skill: EscalateSkill(l.Name), Kind: KindStatement,
			From:   []From{{Statuses: []Status{StatementPending, StatementAwaitingVerification, StatementHasGap, StatementAwaitingSubstatement}}},
			Leaves: fmt.Sprintf("%s at level %s, %s's turn (%s)%s", l.Enters, l.Name, l.Turn, l.Task, dead),
			Guards: []Guard{levelSpent, nextLevel(l)}}
	}
)

// climbNote is what a call that can spend a level's last round adds to
// the status it leaves.
const climbNote = "; when it spends the last round of its level, the next level's status (escalate-replan, escalate-rewrite)"

// levelWhy is the reason of the prover's turn at a level that abandoned
// an approach: the level's task and the dead ends to avoid.
func levelWhy(f *Facts) (string, bool) {
	if f.Statement == nil {
		return "", false
	}
	lv, _ := FindLevel(f.Statement.Level)
	if !lv.Abandons {
		return "", false
	}
	return fmt.Sprintf("%s; %s to avoid", lv.Task, Count(len(f.Statement.DeadEnds), "dead end")), true
}

// EscalateSkill is the name of the table's rule that climbs to level.
func EscalateSkill(level string) string { return "escalate-" + level }

// Climb is the level a statement in the state f describes climbs to now,
// by the first escalate rule of the table that allows it; false when none
// does (it has budget left, or is at the last level).
func Climb(f *Facts) (Level, bool) {
	for _, l := range Levels {
		if _, ok := Lookup(EscalateSkill(l.Name)); ok && Allow(EscalateSkill(l.Name), f) == nil {
			return l, true
		}
	}
	return Level{}, false
}
