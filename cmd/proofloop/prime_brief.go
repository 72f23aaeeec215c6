package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/proofloop/proofloop/loop"
	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/skills"
)

// primeBrief prints `prime --role R --id ID`: the leased item as the role
// needs it (loop.ReadBrief), so that a turn needs no other read.
func primeBrief(w io.Writer, b *loop.Brief) {
	it := b.Item
	fmt.Fprintf(w, "%s turn on %s (%s, status %s, revision %d", b.Role, it.ID, it.Kind, it.Status, b.Revision)
	if it.Round > 0 {
		fmt.Fprintf(w, ", round %d", it.Round)
	}
	fmt.Fprintln(w, ").")
	switch {
	case b.YourTurn:
		fmt.Fprintf(w, "It is your turn: %s.\n", it.Reason)
	case it.Role != "":
		fmt.Fprintf(w, "It is not your turn but %s's (%s): release it and end your turn.\n", it.Role, it.Reason)
	default:
		fmt.Fprintf(w, "It is nobody's turn (%s): release it and end your turn.\n", it.Reason)
	}
	switch l := b.Lease; {
	case l == nil && b.YourTurn:
		fmt.Fprintf(w, "Lease: none live; claim it first (`proofloop claim %s --role %s --holder NAME`).\n", it.ID, b.Role)
	case l == nil:
		fmt.Fprintln(w, "Lease: none live, so nothing to release: leave the item to its role.")
	case l.Yours:
		fmt.Fprintf(w, "Lease: yours (%s, until %s).\n", l.Holder, l.ExpiresAt)
	default:
		fmt.Fprintf(w, "Lease: held by %s until %s; the token you gave (--lease, $PROOFLOOP_LEASE) is not its token.\n", l.Holder, l.ExpiresAt)
	}
	primeGuidance(w, b.Guidance)
	fmt.Fprintln(w)
	if it.Kind == model.KindProblem {
		fmt.Fprintf(w, "Objective: %s\n", b.Objective)
		primeList(w, "Hypotheses", b.Hypothesis)
		primeRefs(w, "Subproblems", b.Preliminaries)
		primeRefs(w, "Wrap-up statements", b.Progresses)
	} else {
		primeStatement(w, b)
	}
	fmt.Fprintln(w)
	if len(b.Allowed) == 0 {
		fmt.Fprintln(w, "Skills allowed now: none of yours.")
		return
	}
	fmt.Fprintf(w, "Skills allowed now (pass --expect-revision %d; each has `--help` and a SKILL.md):\n", b.Revision)
	for _, al := range b.Allowed {
		purpose := decideShort + " (--accept|--reject|--extend N)."
		if sk, ok := skills.Find(al.Skill); ok {
			purpose = sk.Purpose
		}
		source := ""
		if al.Source != "" {
			source = " (--source " + string(al.Source) + ")"
		}
		fmt.Fprintf(w, "  %s%s: %s\n", al.Skill, source, purpose)
	}
}

// primeStatement prints a statement as a turn needs it: its dead ends
// first, the claim and what it rests on, the proof numbered with each open
// issue under its sentence, and a proposed modification.
func primeStatement(w io.Writer, b *loop.Brief) {
	primeDeadEnds(w, b)
	fmt.Fprintf(w, "Claim: %s\n", b.Claim)
	primeList(w, "Premises", b.Premises)
	if r := b.Review; r != nil {
		fmt.Fprintf(w, "Review: %s. %s\n", strings.ReplaceAll(r.Verdict, "_", " "), strings.Join(strings.Fields(r.Explanation), " "))
	}
	if c := b.Context; c != nil {
		fmt.Fprintf(w, "Context: %s [%s]: %s\n", c.ID, c.Status, c.Text)
	}
	primeRefs(w, "Sub-statements", b.Subs)
	switch {
	case b.Abandoned:
		fmt.Fprintf(w, "Proof: revision %d is a dead end's (above), not shown: write another.\n", b.ProofRevision)
	case b.ProofSentences > 0:
		fmt.Fprintf(w, "Proof (revision %d): %d sentences, not shown on this turn of the formal track (`proofloop show %s --sentences`).\n", b.ProofRevision, b.ProofSentences, b.Item.ID)
	case len(b.Sentences) == 0:
		fmt.Fprintln(w, "Proof: none yet.")
	default:
		strategy := ""
		if b.Strategy != "" {
			strategy = ", " + b.Strategy
		}
		fmt.Fprintf(w, "Proof (revision %d%s), one sentence per number, as you cite and patch them:\n", b.ProofRevision, strategy)
		for _, s := range b.Sentences {
			// One line per sentence, so that a line that opens with
			// [N] holds all of sentence N (a sentence may span lines of
			// the proof); a quote of it still matches, as
			// sentence_text ignores whitespace.
			fmt.Fprintf(w, "[%d] %s\n", s.N, strings.Join(strings.Fields(s.Text), " "))
			for _, is := range s.Issues {
				issueLine(w, "    ^ ", is)
			}
		}
	}
	for _, is := range b.OtherIssues {
		issueLine(w, fmt.Sprintf("Open issue on proof revision %d, sentence %d: ", is.ProofRevision, is.Sentence), is)
	}
	primeFormal(w, b.Formal)
	if it := b.Item; it.Proved != nil && it.Grade != "" {
		fmt.Fprintf(w, "It is true on: %s.\n", it.Grade.Text())
	}
	if b.Answered > 0 {
		fmt.Fprintf(w, "Earlier issues: %d answered (`proofloop show %s --json` has them).\n", b.Answered, b.Item.ID)
	}
	if m := b.Proposed; m != nil {
		claim := "(unchanged)"
		if m.Claim != nil {
			claim = *m.Claim
		}
		fmt.Fprintf(w, "Proposed modification (%s): claim %s; premises %s. Why: %s\n", m.Type, claim, strings.Join(m.Premises, "; "), m.Rationale)
	}
}

// primeDeadEnds prints a statement's latest dead ends first, a line each:
// what was tried, what killed it, its lesson.
func primeDeadEnds(w io.Writer, b *loop.Brief) {
	if len(b.DeadEnds) == 0 {
		return
	}
	fmt.Fprintln(w, "Dead ends, the latest first (a proof or decomposition that repeats one is refused):")
	for _, d := range b.DeadEnds {
		lesson := "none yet (the next prover's call gives --lesson)"
		if d.Lesson != nil {
			lesson = *d.Lesson
		}
		fmt.Fprintf(w, "  %d. level %s, %s. Killed by %s. Lesson: %s\n", d.Number, d.Level, d.Approach, d.Killed, lesson)
	}
	if b.EarlierDeadEnds > 0 {
		fmt.Fprintf(w, "  ... and %s (`proofloop show %s --field dead_ends`).\n", model.Count(b.EarlierDeadEnds, "earlier dead end"), b.Item.ID)
	}
}

// primeFormal prints the statement's formal track: its stage, the texts
// the role needs (loop.BriefFormal), the kernel's last word, and each open
// issue on it, with the line of the text it cites.
func primeFormal(w io.Writer, f *loop.BriefFormal) {
	if f == nil {
		return
	}
	fmt.Fprintf(w, "Formal (%s, theorem %s): stage %s", f.System, f.Theorem, f.Stage)
	if f.Verdict != "" {
		fmt.Fprintf(w, "; %s", f.Verdict)
	}
	fmt.Fprintln(w, ".")
	for _, t := range []struct{ title, text string }{{"Formal statement", f.Statement}, {"Formal proof", f.Proof}} {
		if t.text != "" {
			fmt.Fprintf(w, "%s:\n%s\n", t.title, indent(t.text))
		}
	}
	for _, is := range f.Issues {
		// The explanation's first line says why; a kernel's quotes the
		// checker's error after it, which the output below shows whole.
		is.Explanation, _, _ = strings.Cut(is.Explanation, "\n")
		issueLine(w, fmt.Sprintf("Open issue on the %s, line %d: ", strings.ReplaceAll(is.IssueTarget(), "_", " "), is.Sentence), is)
	}
	if f.LastOutput != "" {
		fmt.Fprintf(w, "Last checker output:\n%s\n", indent(f.LastOutput))
	}
}

// indent prints a text as a block, each line indented, so it cannot pass
// for a line of prime's own.
func indent(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ")
}

// issueLine prints an open issue on one line. The quoted sentence is
// printed as written, its runs of white space made one space, like the
// sentences above it: Go's %q would double every backslash of its LaTeX.
func issueLine(w io.Writer, prefix string, is model.Issue) {
	fmt.Fprintf(w, "%sopen issue %d (%s, %s): quoted \"%s\". %s", prefix, is.IssueNumber, is.ErrorType, is.Severity, strings.Join(strings.Fields(is.SentenceText), " "), is.Explanation)
	if is.SuggestedFix != nil && *is.SuggestedFix != "" {
		fmt.Fprintf(w, " Suggested fix: %s", *is.SuggestedFix)
	}
	fmt.Fprintln(w)
}

func primeList(w io.Writer, title string, items []string) {
	if len(items) == 0 {
		fmt.Fprintf(w, "%s: none.\n", title)
		return
	}
	fmt.Fprintf(w, "%s:\n", title)
	for _, s := range items {
		fmt.Fprintf(w, "  - %s\n", s)
	}
}

func primeRefs(w io.Writer, title string, refs []loop.BriefRef) {
	if len(refs) == 0 {
		return
	}
	fmt.Fprintf(w, "%s:\n", title)
	for _, r := range refs {
		fmt.Fprintf(w, "  %s [%s]: %s\n", r.ID, r.Status, r.Text)
	}
}

// primeShared prints what every role needs on every turn, once: how to
// call, and how to read a refusal. The codes by exit come from
// skills.ExitCodes; what to do about one is in its own hint, at runtime.
func primeShared(w io.Writer) {
	fmt.Fprintln(w, "\nCalling: `proofloop SKILL --flag VALUE ... --json` (`--input -`: the parameters as one JSON object on")
	fmt.Fprintln(w, "stdin; a text flag takes @FILE). $PROOFLOOP_LEASE and $PROOFLOOP_ACTOR carry your lease and name (else")
	fmt.Fprintln(w, "--lease TOKEN --actor NAME). --json prints {\"ok\":true,...} or {\"ok\":false,\"error\":{code,message,hint}}.")
	fmt.Fprintln(w, "A refusal writes nothing: do what its hint says, never repeat it unchanged; if no skill of yours")
	fmt.Fprintln(w, "applies, release the item and end your turn.")
	var groups []string
	for exit := 2; exit <= 6; exit++ {
		var codes []string
		for _, e := range skills.ExitCodes {
			if e.Exit == exit {
				codes = append(codes, string(e.Code))
			}
		}
		groups = append(groups, fmt.Sprintf("%d %s", exit, strings.Join(codes, ", ")))
	}
	fmt.Fprintf(w, "Exit codes: 0 done; %s; any other: a failure, stop.\n", strings.Join(groups, "; "))
}

// primeGuidance prints a person's guidance in force for the role (and the
// item), which binds the agent beside its role's discipline.
func primeGuidance(w io.Writer, gs []loop.Guidance) {
	if len(gs) == 0 {
		return
	}
	fmt.Fprintf(w, "Guidance from a person, in force (follow it):\n")
	for _, g := range gs {
		fmt.Fprintf(w, "  %s\n", g.Line())
	}
}
