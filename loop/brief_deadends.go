package loop

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// BriefDeadEnds is how many dead ends a brief shows, the latest first: a
// line each, so that a prove turn stays small however long the ladder.
const BriefDeadEnds = 3

// BriefDeadEnd is one dead end as a turn is handed it: what was tried, what
// killed it (quoted, cut short) and its lesson.
type BriefDeadEnd struct {
	Number   int     `json:"number"`
	Level    string  `json:"level"`
	Approach string  `json:"approach"`
	Killed   string  `json:"killed_by"`
	Lesson   *string `json:"lesson"`
}

// briefDeadEnds is the statement's latest dead ends, the latest first, and
// how many earlier ones the brief leaves out.
func briefDeadEnds(s *store.Store, st *model.Statement) ([]BriefDeadEnd, int, error) {
	var out []BriefDeadEnd
	for i := len(st.DeadEnds) - 1; i >= 0 && len(out) < BriefDeadEnds; i-- {
		d := &st.DeadEnds[i]
		killed, err := KilledBy(s, st, d, 60, 90)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, BriefDeadEnd{Number: d.Number, Level: d.Level, Approach: d.Approach(), Killed: killed, Lesson: d.Lesson})
	}
	return out, len(st.DeadEnds) - len(out), nil
}

// KilledBy says in one line what killed a dead end: each issue with the
// sentence it quoted and why, and each sub-statement shown false with its
// counterexample, every text cut to quote or why runes (0: whole).
func KilledBy(s *store.Store, st *model.Statement, d *model.DeadEnd, quote, why int) (string, error) {
	var parts []string
	for _, is := range st.Validate.Issues {
		if slices.Contains(d.Issues, is.IssueNumber) {
			parts = append(parts, fmt.Sprintf("issue %d at sentence %d \"%s\" (%s): %s", is.IssueNumber, is.Sentence,
				cut(is.SentenceText, quote), is.ErrorType, strings.TrimSuffix(cut(is.Explanation, why), ".")))
		}
	}
	for _, id := range d.Refuted {
		doc, err := s.Read(id)
		if err != nil {
			return "", err
		}
		parts = append(parts, fmt.Sprintf("%s false: %s", id, strings.TrimSuffix(cut(doc.Get("counterexample").String(), why), ".")))
	}
	if len(parts) == 0 {
		return fmt.Sprintf("its level's rounds ran out (%d spent)", d.Rounds), nil
	}
	return strings.Join(parts, "; "), nil
}

// cut makes a text one line of at most n runes (0: no limit), marking a
// cut with "...".
func cut(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if n <= 0 || utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "..."
}

// abandonedProof reports whether the statement's current proof is one of
// its dead ends' and is not being worked on: a pending statement holds it
// only until the prover writes another.
func abandonedProof(st *model.Statement) bool {
	if st.Status != model.StatementPending || st.Proof == nil {
		return false
	}
	return slices.ContainsFunc(st.DeadEnds, func(d model.DeadEnd) bool { return slices.Contains(d.ProofRevisions, st.ProofRevision) })
}
