package loop

import (
	"fmt"
	"strings"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// Failure is an exhausted statement's failure analysis, for the person who
// decides what happens next (`proofloop report --failure S`): what was
// tried at each level and what killed it, the approach it holds now and its
// open issues, and what the engine suggests.
type Failure struct {
	Statement *model.Statement
	Step      model.Step
	Ladder    []model.Rung // config.json escalation, each with its rounds
	Tried     []FailedAttempt
	Open      []model.Issue
	Suggest   []string
}

// FailedAttempt is a dead end, with what killed it in full.
type FailedAttempt struct {
	model.DeadEnd
	Approach, Killed string
}

// FailureAnalysis reads the failure analysis of statement id. A statement
// that has not spent the budget of its last level of escalation is refused:
// it is still some role's work.
func FailureAnalysis(s *store.Store, id string) (*Failure, error) {
	doc, err := s.Read(id)
	if err != nil {
		return nil, err
	}
	if doc.Kind != model.KindStatement {
		return nil, store.Errorf(store.CodeInvalidInput, "--failure takes a statement; %s is a %s", id, doc.Kind).
			WithHint("`proofloop status` lists the statements and whose turn each is")
	}
	st, err := doc.Statement()
	if err != nil {
		return nil, err
	}
	cfg, err := s.Config()
	if err != nil {
		return nil, err
	}
	pol := cfg.Policy()
	if !model.Exhausted(st, pol) {
		return nil, store.Errorf(store.CodeGuardFailed, "%s has not spent its round budget (it is %s): a failure analysis is for a statement whose last level of escalation is spent", id, st.Status).
			WithHint("`proofloop status " + id + "` says whose turn it is; `proofloop report` shows its whole history")
	}
	f := &Failure{Statement: st, Step: pol.StepOf(st)}
	for _, r := range pol.Escalation {
		if r.Rounds == 0 {
			r.Rounds = pol.MaxRounds
		}
		f.Ladder = append(f.Ladder, r)
	}
	for i := range st.DeadEnds {
		d := &st.DeadEnds[i]
		killed, err := KilledBy(s, st, d, 0, 0)
		if err != nil {
			return nil, err
		}
		f.Tried = append(f.Tried, FailedAttempt{DeadEnd: *d, Approach: d.Approach(), Killed: killed})
	}
	open := st.OpenIssues()
	for _, is := range st.Validate.Issues {
		for _, n := range open {
			if is.IssueNumber == n {
				is.Severity = model.IssueSeverity(&is)
				f.Open = append(f.Open, is)
			}
		}
	}
	f.Suggest = suggestions(f)
	return f, nil
}

// suggestions are what a person can do about the failure, the likeliest
// first: more rounds when what is open are gaps, another claim when a
// critical issue stands or the same sentence keeps failing, and a split
// when no decomposition was tried.
func suggestions(f *Failure) []string {
	st, id := f.Statement, f.Statement.ID
	critical, gaps := 0, 0
	for _, is := range f.Open {
		if is.Severity == model.SeverityCritical {
			critical++
		} else {
			gaps++
		}
	}
	var out []string
	extend := fmt.Sprintf("`proofloop decide %s --extend N` grants N more rounds at level %s", id, f.Step.Level)
	modify := fmt.Sprintf("a weaker claim, or stronger premises, may be what is true: guide the prover to propose one (`proofloop guide --role prove --id %s TEXT`), and `proofloop decide` settles it", id)
	switch {
	case critical > 0:
		out = append(out, fmt.Sprintf("Modify the claim (%s a step wrong, not only unsupported): %s.", issuesSay(critical, "says", "say"), modify),
			fmt.Sprintf("Extend, if the critical %s can be answered after all: %s.", verb(critical, "issue", "issues"), extend))
	case gaps > 0:
		out = append(out, fmt.Sprintf("Extend (the open %s only unsupported steps, which more rounds may fill): %s.", verb(gaps, "issue is", "issues are"), extend),
			fmt.Sprintf("Modify the claim: %s.", modify))
	default:
		out = append(out, fmt.Sprintf("Extend: %s.", extend), fmt.Sprintf("Modify the claim: %s.", modify))
	}
	decomposed := false
	for _, d := range st.DeadEnds {
		decomposed = decomposed || len(d.SubStatements) > 0
	}
	if !decomposed && len(st.SubStatements) == 0 {
		out = append(out, fmt.Sprintf("Split it (no decomposition was tried): guide the prover to decompose it into lemmas with proofs of their own (`proofloop guide --role prove --id %s TEXT`), then extend its budget.", id))
	}
	return out
}

func issuesSay(n int, one, many string) string {
	return model.Count(n, "critical issue") + " " + verb(n, one, many)
}

func verb(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Markdown renders the analysis for a person; agents' texts are each one
// line, escaped as the export escapes them (mdLine), math kept.
func (f *Failure) Markdown() string {
	var b strings.Builder
	st := f.Statement
	w := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	w("# Failure analysis of `%s`\n\n**Claim.** %s\n\n", st.ID, mdLine(st.Claim))
	if len(st.Premises) > 0 {
		w("**Premises.** %s\n\n", mdLine(strings.Join(st.Premises, "; ")))
	}
	var ladder []string
	for _, r := range f.Ladder {
		ladder = append(ladder, fmt.Sprintf("%s (%s)", r.Level, model.Count(r.Rounds, "round")))
	}
	w("**Where it stands.** %s at level %s, the last of %s; it spent %d of the level's %s (round %d in all, %s): decide's turn, exhausted.\n\n",
		st.Status, f.Step.Level, strings.Join(ladder, ", "), f.Step.Spent, model.Count(f.Step.Budget, "round"), st.Round, model.Count(st.IdleTurns, "idle turn"))
	w("## What was tried\n\n")
	if len(f.Tried) == 0 {
		w("No approach was abandoned: every round went to the approach it holds now.\n")
	}
	for _, t := range f.Tried {
		lesson := "none was written"
		if t.Lesson != nil {
			lesson = mdLine(*t.Lesson)
		}
		w("%d. At level %s: %s, after %s. Killed by %s. Lesson: %s\n", t.Number, t.Level, mdLine(t.Approach), model.Count(t.Rounds, "round"), mdLine(t.Killed), lesson)
	}
	now := "no proof"
	if st.Proof != nil {
		now = fmt.Sprintf("proof revision %d", st.ProofRevision)
		if st.ProofStrategy != nil {
			now += " (" + mdLine(*st.ProofStrategy) + ")"
		}
	}
	w("\nNow, at level %s: %s.\n\n## Open issues\n\n", f.Step.Level, now)
	if len(f.Open) == 0 {
		w("None.\n")
	}
	for _, is := range f.Open {
		by := ""
		if is.Actor != nil {
			by = ", by " + mdLine(*is.Actor)
		}
		kind := mdLine(is.ErrorType) // "gap, gap" says it once
		if string(is.Severity) != is.ErrorType {
			kind += ", " + string(is.Severity)
		}
		w("- Issue %d at sentence %d \"%s\" (%s%s): %s", is.IssueNumber, is.Sentence, mdLine(is.SentenceText), kind, by, mdLine(is.Explanation))
		if is.SuggestedFix != nil {
			w(" Suggested fix: %s", mdLine(*is.SuggestedFix))
		}
		w("\n")
	}
	w("\n## What the engine suggests\n\n")
	for _, s := range f.Suggest {
		w("- %s\n", s)
	}
	return b.String()
}
