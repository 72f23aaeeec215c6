package model

import (
	"fmt"
	"slices"
	"strings"
)

// The check skills' guards that judge the checker and the call: who may
// check a proof revision, and a rejection that only repeats an open one.

// notSelfCheck is config.json's forbid_self_check: nobody who wrote any of
// a proof revision's text (its last complete proof or a patch since:
// Statement.Writers) may confirm or reject it. Actors are compared in their
// normal form (ActorKey), the stored writers' too, since a store written
// before actors were normalised may hold "Alice". A checker nobody can name
// cannot be told apart from the author, so an unknown actor is refused
// rather than waved through: that was the loophole of `--actor ""`.
var notSelfCheck = Guard{Name: "not_self_check", Text: "forbid_self_check: the checker wrote none of the proof revision", Input: true,
	Check: func(f *Facts) error {
		if !f.ForbidSelfCheck {
			return nil
		}
		if ActorKey(f.Actor) == "" {
			return fmt.Errorf("the checker is unknown, so it cannot be told from the author of proof revision %d (forbid_self_check)", f.ProofRevision)
		}
		writers := []ProofWriter{{Actor: f.ProofAuthor, AgentLabel: f.ProofAuthorLabel}}
		if f.Statement != nil && len(f.Statement.Writers()) > 0 {
			writers = slices.Clone(f.Statement.Writers())
		}
		// The last author first, so its refusal reads as before.
		slices.SortStableFunc(writers, func(a, b ProofWriter) int {
			return boolInt(!SameActor(a.Actor, f.ProofAuthor)) - boolInt(!SameActor(b.Actor, f.ProofAuthor))
		})
		for _, w := range writers {
			if err := selfCheck(f, w); err != nil {
				return err
			}
		}
		return nil
	}}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// notARepeat: a rejection word for word the same as an issue still open
// (the same sentence, quote, error type and explanation; whitespace aside)
// records nothing the fixer has not been asked already (issue 34).
var notARepeat = Guard{Name: "not_a_repeat", Text: "no open issue already records this rejection word for word", Input: true,
	Check: func(f *Facts) error {
		if f.Statement == nil {
			return nil
		}
		same := func(a, b string) bool {
			return strings.Join(strings.Fields(a), " ") == strings.Join(strings.Fields(b), " ")
		}
		for _, is := range f.Statement.Validate.Issues {
			if slices.Contains(f.OpenIssues, is.IssueNumber) && is.Sentence == f.Sentence && same(is.SentenceText, f.Quote) &&
				is.ErrorType == f.ErrorType && same(is.Explanation, f.Explanation) {
				return fmt.Errorf("issue %d already records this rejection word for word (sentence %d, %s), and it is still open", is.IssueNumber, is.Sentence, is.ErrorType)
			}
		}
		return nil
	}}
