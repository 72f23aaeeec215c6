package model

import (
	"fmt"
	"strings"
)

// The review protocol as readers see it: its transcript layout, its generated
// file and worked example.

// renderReview writes code-debate's sections, with --- between them, in the
// seed's shared file format: a heading per section and nothing the seed's
// file does not have (no author line: a section's heading says which side
// wrote it).
func renderReview(b *strings.Builder, d *Debate) {
	responses, followUps := 0, 0
	for i := range d.Turns {
		t := &d.Turns[i]
		if i > 0 {
			b.WriteString("---\n\n")
		}
		switch {
		case t.Role == RoleReviewer && (len(t.Points) > 0 || t.Body != ""):
			b.WriteString("## Review\n\n")
			if t.Body != "" {
				fmt.Fprintf(b, "%s\n", Block(t.Body))
				if len(t.Points) > 0 {
					b.WriteString("\n")
				}
			}
			for _, p := range t.Points {
				fmt.Fprintf(b, "%d. %s\n", p.Point, OneLine(p.Text))
			}
		case len(t.Replies) > 0:
			responses++
			fmt.Fprintf(b, "## Response %d\n\n", responses)
			for _, r := range t.Replies {
				if r.Reasoning == "" {
					fmt.Fprintf(b, "- Point %d: **%s**\n", r.Point, verdictWord(r.Verdict))
					continue
				}
				fmt.Fprintf(b, "- Point %d: **%s** — %s\n", r.Point, verdictWord(r.Verdict), OneLine(r.Reasoning))
			}
		case len(t.FollowUps) > 0:
			followUps++
			fmt.Fprintf(b, "## Reviewer Follow-up %d\n\n", followUps)
			for _, f := range t.FollowUps {
				fmt.Fprintf(b, "- Point %d: %s\n", f.Point, OneLine(f.Text))
			}
		}
		if c := t.Consensus; c != nil {
			if len(t.Replies) > 0 {
				b.WriteString("\n---\n\n")
			}
			b.WriteString("## CONSENSUS\n\n")
			fmt.Fprintf(b, "**Agreed:** %s\n\n**Action items:**\n\n", Numbered("point", c.Agreed))
			if len(c.ActionItems) == 0 {
				b.WriteString("- none\n")
			}
			for _, a := range c.ActionItems {
				fmt.Fprintf(b, "- %s\n", OneLine(a))
			}
			b.WriteString("\n**Disagreements:**\n\n")
			if len(c.Disagreements) == 0 {
				b.WriteString("- none\n")
			}
			for _, x := range c.Disagreements {
				fmt.Fprintf(b, "- Point %d: %s\n", x.Point, OneLine(x.Text))
			}
		}
		b.WriteString("\n")
	}
}

func verdictWord(v string) string {
	switch v {
	case ReplyAgreed:
		return "Agreed"
	case ReplyPartiallyAgreed:
		return "Partially agreed"
	}
	return "Disagreed"
}

// reviewExample is the worked example of the review file; a test runs it.
var reviewExample = Example{
	ID:      "deb_review_the_lock_code",
	Outcome: ReviewConsensusOutcome,
	Steps: append(exampleOpening("deb_review_the_lock_code", "the first session to join reviews, the second responds", "--protocol review --topic 'Review the lock code' --subject 'store/lock.go'", "rita", "rob"), []ExampleStep{
		{Note: "the review: numbered points", Args: exampleTurn("deb_review_the_lock_code", "p1", "rita"), Input: `{"points": [{"point": 1, "text": "The lock is not released on error."}, {"point": 2, "text": "The timeout is hard-coded."}]}`},
		{Note: "the response: one reply per point", Args: exampleWait("deb_review_the_lock_code", "p2")},
		{Args: exampleTurn("deb_review_the_lock_code", "p2", "rob"), Input: `{"replies": [{"point": 1, "verdict": "agreed", "reasoning": "Yes, defer the unlock."}, {"point": 2, "verdict": "disagreed", "reasoning": "It is read from config."}]}`},
		{Note: "a follow-up on the point that is not agreed, and its reply", Args: exampleTurn("deb_review_the_lock_code", "p1", "rita"), Input: `{"follow_ups": [{"point": 2, "text": "Config is read after the lock is taken."}]}`},
		{Args: exampleTurn("deb_review_the_lock_code", "p2", "rob"), Input: `{"replies": [{"point": 2, "verdict": "agreed", "reasoning": "Right, read it first."}]}`},
		{Note: "every point is agreed: the reviewer's consensus turn closes the review", Args: exampleTurn("deb_review_the_lock_code", "p1", "rita"), Input: `{"consensus": {"agreed": [1, 2], "action_items": ["defer the unlock", "read the timeout first"], "disagreements": []}}`},
		{Args: "debate list"},
	}...),
}

// reviewDoc is the code-debate skill.
var reviewDoc = Doc{
	Path: ".claude/skills/code-debate/SKILL.md", Name: "code-debate",
	Description: "Review a diff with another agent.",
	Guide: "Both sessions run the same join, each with a name of its own: `proofloop debate join --protocol review --subject 'SUBJECT' --participant-name NAME --actor NAME --json`. The first to arrive is the `" + RoleReviewer + "`, the second the `" + RoleResponder + "` (never ask the user which); the join prints the debate's `id`, so nothing is passed between the sessions. Two sessions of one user are two actors: pass `--actor NAME` on every call (or set `PROOFLOOP_ACTOR=NAME` in that session).\n\n" +
		"Analyse the subject first (`git show`, `git diff`, `gh pr view`). If `.prompts/pr-review.md` exists, read it and apply its standards.\n\n" +
		"- Reviewer: raise numbered points (file paths, lines, code), then follow up only on points not agreed; when every point is agreed, write the `consensus` turn.\n" +
		"- Responder: reply to every point of the turn you answer, once, with a verdict and reasons; concede when the other side is right.\n" +
		"- At the round limit the last writer, either side, appends the consensus, listing what remains in `disagreements`: the responder with its last reply, else the reviewer next (`whose_turn.require`).\n\n" +
		"Focus on substance (correctness, design, edge cases), not style. The goal is convergence, not winning.",
	Example: reviewExample,
}
