package model

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// DeadEnd is an abandoned approach to a statement, kept so that nobody
// tries it again: the engine records one when a level of escalation ends
// (its proof, patched through the level's rounds, and the issues that
// killed it) and when a prover abandons a decomposition whose
// sub-statement was shown false. The lesson is the one line the prover who
// abandons it writes (--lesson): null until then.
type DeadEnd struct {
	Number int    `json:"number"`
	Level  string `json:"level"` // the level it was tried at
	Cause  string `json:"cause"`
	// A proof's approach: its strategy, its revisions and the SHA-256 of
	// each one's normal text (NormalText), which a new proof may not repeat.
	Strategy       *string  `json:"strategy,omitempty"`
	ProofRevisions []int    `json:"proof_revisions,omitempty"`
	ProofSHA256    []string `json:"proof_sha256,omitempty"`
	// A decomposition's: its plan (the rationale given), its
	// sub-statements and the SHA-256 of their normal claims and premises
	// (PlanSum), which a new decomposition may not repeat.
	Plan          *string  `json:"plan,omitempty"`
	SubStatements []string `json:"sub_statements,omitempty"`
	PlanSHA256    string   `json:"plan_sha256,omitempty"`
	// What killed it: the statement's issues, and its sub-statements shown
	// false (their counterexamples are theirs).
	Issues  []int    `json:"issues,omitempty"`
	Refuted []string `json:"refuted,omitempty"`
	// Rounds is what the level spent (rounds and idle turns) when it ended.
	Rounds   int     `json:"rounds,omitempty"`
	Lesson   *string `json:"lesson"`
	LessonBy *string `json:"lesson_by,omitempty"`
	At       string  `json:"at"`
}

// The causes of a dead end.
const (
	DeadEndLevelSpent = "level_spent"          // its level's rounds were spent
	DeadEndRefuted    = "refuted_substatement" // a sub-statement of its decomposition was shown false
)

// DeadEndCauses lists them (the schema's enum).
var DeadEndCauses = []string{DeadEndLevelSpent, DeadEndRefuted}

// MaxLessonLen is the most characters (runes) a lesson may have: one line.
const MaxLessonLen = 300

// NormalText is the form in which two texts are compared for a repeat of a
// dead end: Unicode NFKC (so a full-width or ligature spelling is the
// plain one), every run of white space one space, trimmed. Case and
// punctuation are kept: in mathematics n and N, and (a,b) and [a,b], differ.
func NormalText(s string) string {
	return strings.Join(strings.Fields(norm.NFKC.String(s)), " ")
}

// TextSum is the SHA-256, in hex, of a text's normal form.
func TextSum(s string) string {
	h := sha256.Sum256([]byte(NormalText(s)))
	return hex.EncodeToString(h[:])
}

// SubClaim is one sub-statement of a decomposition, as PlanSum reads it.
type SubClaim struct {
	Claim    string
	Premises []string
}

// PlanSum is the SHA-256 of a decomposition: each sub-statement's normal
// claim and premises, sorted, so that the same lemmas in another order are
// the same plan.
func PlanSum(subs []SubClaim) string {
	lines := make([]string, len(subs))
	for i, s := range subs {
		ps := make([]string, len(s.Premises))
		for j, p := range s.Premises {
			ps[j] = NormalText(p)
		}
		lines[i] = NormalText(s.Claim) + "\x00" + strings.Join(ps, "\x00")
	}
	slices.Sort(lines)
	h := sha256.Sum256([]byte(strings.Join(lines, "\x01")))
	return hex.EncodeToString(h[:])
}

// RepeatsProof returns the dead end whose proof text a new proof repeats
// (the same normal text), or nil.
func (st *Statement) RepeatsProof(text string) *DeadEnd {
	sum := TextSum(text)
	for i := range st.DeadEnds {
		if slices.Contains(st.DeadEnds[i].ProofSHA256, sum) {
			return &st.DeadEnds[i]
		}
	}
	return nil
}

// RepeatsPlan returns the dead end whose decomposition a new one repeats
// (PlanSum), or nil.
func (st *Statement) RepeatsPlan(sum string) *DeadEnd {
	for i := range st.DeadEnds {
		if st.DeadEnds[i].PlanSHA256 != "" && st.DeadEnds[i].PlanSHA256 == sum {
			return &st.DeadEnds[i]
		}
	}
	return nil
}

// Unlessoned is the statement's latest dead end when it still waits for
// its lesson, else nil.
func (st *Statement) Unlessoned() *DeadEnd {
	if n := len(st.DeadEnds); n > 0 && st.DeadEnds[n-1].Lesson == nil {
		return &st.DeadEnds[n-1]
	}
	return nil
}

// RefutedPlan lists the statement's own sub-statements (not gap-filling
// ones) that are false and that no dead end records yet, when the call
// plans anew (state-setup-substatement): it abandons the decomposition they
// belong to. A proof written once they are resolved keeps the plan: it
// cites the true ones, and a false lemma is only left out (ReliesOn).
func RefutedPlan(f *Facts) []string {
	if f.NewSubs == 0 {
		return nil
	}
	var out []string
	for _, c := range f.Subs {
		if c.FillsIssue != nil || c.Status != StatementFalse {
			continue
		}
		recorded := f.Statement != nil && slices.ContainsFunc(f.Statement.DeadEnds, func(d DeadEnd) bool { return slices.Contains(d.Refuted, c.ID) })
		if !recorded {
			out = append(out, c.ID)
		}
	}
	return out
}

// Approach says in a few words what a dead end tried: "proof revisions
// 1-2 (direct)", "decomposition into s_sub1, s_sub2".
func (d *DeadEnd) Approach() string {
	if len(d.SubStatements) > 0 {
		return "decomposition into " + strings.Join(d.SubStatements, ", ")
	}
	var s string
	switch n := len(d.ProofRevisions); {
	case n == 0:
		s = "no proof"
	case n == 1:
		s = fmt.Sprintf("proof revision %d", d.ProofRevisions[0])
	default:
		s = fmt.Sprintf("proof revisions %d-%d", d.ProofRevisions[0], d.ProofRevisions[n-1])
	}
	if d.Strategy != nil {
		s += " (" + *d.Strategy + ")"
	}
	return s
}

// deadStrategies lists the strategies of the statement's proof dead ends.
func (st *Statement) deadStrategies() []string {
	var out []string
	for _, d := range st.DeadEnds {
		if d.Strategy != nil && !slices.Contains(out, *d.Strategy) {
			out = append(out, *d.Strategy)
		}
	}
	return out
}

// The guards of the prover's calls that a dead end adds: a lesson for what
// the call abandons, no repeat of a dead end, and at level replan a new
// plan.
var (
	lessonGiven = Guard{Name: "lesson_given", Text: "--lesson exactly when the call abandons an approach: a dead end waits for its lesson, or it re-plans a decomposition with a false sub-statement", Input: true,
		Check: func(f *Facts) error {
			var due string
			if st := f.Statement; st != nil {
				if d := st.Unlessoned(); d != nil {
					due = fmt.Sprintf("dead end %d (level %s, %s) has no lesson yet", d.Number, d.Level, d.Approach())
				}
			}
			if refuted := RefutedPlan(f); len(refuted) > 0 {
				due = fmt.Sprintf("sub-statement %s is false, so this call abandons its decomposition", strings.Join(refuted, ", "))
			}
			switch {
			case due != "" && strings.TrimSpace(f.Lesson) == "":
				return fmt.Errorf("%s: give --lesson, one line on what not to try again", due)
			case due == "" && f.Lesson != "":
				return fmt.Errorf("no approach is abandoned here and no dead end waits for a lesson: leave --lesson out")
			}
			return nil
		}}
	notDeadEnd = Guard{Name: "not_a_dead_end", Text: "the proof (or decomposition) does not repeat a dead end: the same text once normalised", Input: true,
		Check: func(f *Facts) error {
			st := f.Statement
			if st == nil {
				return nil
			}
			if f.NewProof != "" {
				if d := st.RepeatsProof(f.NewProof); d != nil {
					return fmt.Errorf("the proof repeats dead end %d (level %s, %s)%s", d.Number, d.Level, d.Approach(), lessonNote(d))
				}
			}
			if f.NewPlan != "" && f.NewPlan == f.AbandonedPlan {
				return fmt.Errorf("the decomposition repeats the one it abandons, whose sub-statements %s are false", strings.Join(RefutedPlan(f), ", "))
			}
			if f.NewPlan != "" {
				if d := st.RepeatsPlan(f.NewPlan); d != nil {
					return fmt.Errorf("the decomposition repeats dead end %d (level %s, %s)%s", d.Number, d.Level, d.Approach(), lessonNote(d))
				}
			}
			return nil
		}}
	planChanged = Guard{Name: "plan_changed", Text: "at level replan, a proof of a pending statement uses a strategy no dead end used (or the statement is decomposed instead)", Input: true,
		Check: func(f *Facts) error {
			st := f.Statement
			if st == nil || f.Status != StatementPending || LevelOf(st) != LevelReplan {
				return nil
			}
			if used := st.deadStrategies(); slices.Contains(used, f.NewStrategy) {
				return fmt.Errorf("at level replan the plan must change, and strategy %s is a dead end's (dead ends used %s): decompose the statement, or prove it another way", f.NewStrategy, strings.Join(used, ", "))
			}
			return nil
		}}
)

func lessonNote(d *DeadEnd) string {
	if d.Lesson == nil {
		return ""
	}
	return "; its lesson: " + *d.Lesson
}
