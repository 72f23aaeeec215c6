package skills

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// The step state-complete-proof and state-setup-substatement share when
// the prover starts a new approach: the lesson of what it abandons, and the
// dead end it abandons.

// lessonParam is the --lesson of a call that may abandon an approach.
var lessonParam = optText("lesson", "one line on what not to try again: required when the call abandons an approach, refused otherwise")

// The refusals of the guards a prover's new approach meets, the same for
// state-complete-proof and state-setup-substatement.
var (
	reviewRefusal = guardRefusal("statement_reviewed", "the statement waits for its review (review_statements)",
		"A checker reviews it first: release the item and end your turn.")
	lessonRefusal = guardRefusal("lesson_given", "no --lesson where the call abandons an approach, or one where it abandons none",
		"Add --lesson (one line: what not to try again), or drop it, as the message says.")
	deadEndRefusal = guardRefusal("not_a_dead_end", "the proof or decomposition repeats a dead end",
		"Take another approach: the message names the dead end and its lesson.")
)

// lessonOf checks the call's --lesson: one line of at most
// model.MaxLessonLen characters, not blank. "" when none was given.
func lessonOf(in *Input) (string, error) {
	l := in.OptText("lesson")
	if l == nil {
		return "", nil
	}
	switch s := strings.TrimSpace(*l); {
	case s == "":
		return "", badInput("lesson is blank").WithHint("write one line on what not to try again, or leave --lesson out")
	case strings.ContainsAny(s, "\r\n"):
		return "", badInput("lesson has a line break: a lesson is one line").WithHint("say it in one sentence; the dead end keeps the findings")
	case utf8.RuneCountInString(s) > model.MaxLessonLen:
		return "", badInput("lesson has %d characters, more than %d: a lesson is one line", utf8.RuneCountInString(s), model.MaxLessonLen).
			WithHint("say what not to try again in one sentence; the dead end keeps the findings")
	default:
		return s, nil
	}
}

// abandoning is the dead end the call would make of a decomposition whose
// sub-statements were shown false (model.RefutedPlan), without its lesson
// yet, or nil; f.AbandonedPlan gets its PlanSum, which the new
// decomposition may not repeat either.
func abandoning(tx *store.Tx, st *model.Statement, f *model.Facts) (*model.DeadEnd, error) {
	refuted := model.RefutedPlan(f)
	if len(refuted) == 0 {
		return nil, nil
	}
	de := &model.DeadEnd{Number: len(st.DeadEnds) + 1, Level: model.LevelOf(st), Cause: model.DeadEndRefuted,
		Plan: st.Rationale, Refuted: refuted, At: tx.Now()}
	var claims []model.SubClaim
	for _, c := range f.Subs {
		held := slices.ContainsFunc(st.DeadEnds, func(o model.DeadEnd) bool { return slices.Contains(o.SubStatements, c.ID) })
		if c.FillsIssue != nil || held {
			continue
		}
		sd, err := tx.Get(c.ID)
		if err != nil {
			return nil, err
		}
		sub, err := sd.Statement()
		if err != nil {
			return nil, err
		}
		de.SubStatements = append(de.SubStatements, c.ID)
		claims = append(claims, model.SubClaim{Claim: sub.Claim, Premises: sub.Premises})
	}
	de.PlanSHA256 = model.PlanSum(claims)
	f.AbandonedPlan = de.PlanSHA256
	return de, nil
}

// abandon records what the call abandons, once the guards passed: the
// decomposition it abandons becomes a dead end with the lesson, or else
// the lesson goes to the dead end that waits for one.
func abandon(tx *store.Tx, d *store.Doc, st *model.Statement, f *model.Facts, plan *model.DeadEnd) error {
	if f.Lesson == "" {
		return nil
	}
	if plan != nil {
		plan.Lesson, plan.LessonBy = &f.Lesson, actor(tx)
		return d.Set("dead_ends.-1", plan)
	}
	if u := st.Unlessoned(); u != nil {
		i := u.Number - 1
		return set(d, fmt.Sprintf("dead_ends.%d.lesson", i), f.Lesson, fmt.Sprintf("dead_ends.%d.lesson_by", i), actor(tx))
	}
	return nil
}
