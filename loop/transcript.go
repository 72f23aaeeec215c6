package loop

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/proofloop/proofloop/model"
)

// RenderDebate renders a debate's Markdown transcript: a metadata header,
// every turn under a heading in its seed's shape, and the conclusion once
// the debate is closed. The transcript is derived (STYLE.md #15): it is a
// pure function of the document, so doctor can rebuild it and compare
// bytes; nothing in it depends on map order or on the clock.
func RenderDebate(d *model.Debate) []byte {
	var b strings.Builder
	renderHeader(&b, d)
	switch d.Protocol {
	case model.Socratic.Name:
		for i := range d.Turns {
			renderSocratic(&b, d, &d.Turns[i])
		}
	case model.Review.Name:
		renderReview(&b, d)
	case model.Agora.Name:
		for i := range d.Turns {
			renderAgora(&b, d, &d.Turns[i])
		}
	default:
		renderDialectic(&b, d)
	}
	renderConclusion(&b, d)
	return []byte(b.String())
}

func renderHeader(b *strings.Builder, d *model.Debate) {
	if d.Protocol == model.Review.Name {
		fmt.Fprintf(b, "# Code Debate: %s\n\n", oneLine(deref(d.Subject, d.Topic)))
	} else {
		fmt.Fprintf(b, "# Debate: %s\n\n", oneLine(d.Topic))
	}
	status := "in-progress"
	if d.Status != model.DebateOpen {
		status = string(d.Status)
	}
	fmt.Fprintf(b, "- **Id:** %s\n", d.ID)
	fmt.Fprintf(b, "- **Date:** %s\n", day(d.CreatedAt))
	fmt.Fprintf(b, "- **Status:** %s\n", status)
	proto := d.Protocol
	if p, err := model.LookupProtocol(d.Protocol); err == nil {
		proto += ", seed " + p.Seed
	}
	fmt.Fprintf(b, "- **Protocol:** %s\n", proto)
	if d.Protocol == model.Review.Name && d.Subject != nil {
		fmt.Fprintf(b, "- **Topic:** %s\n", oneLine(d.Topic))
	}
	if d.Methodology != "" {
		fmt.Fprintf(b, "- **Methodology:** %s\n", d.Methodology)
	}
	fmt.Fprintf(b, "- **Limit:** %d\n", d.MaxTurns)
	if d.Source != nil {
		fmt.Fprintf(b, "- **Source:** `%s` (sha256 `%s`)\n", d.Source.Path, d.Source.SHA256)
	}
	if d.About != nil {
		fmt.Fprintf(b, "- **Dispute:** issue %d of %s\n", d.About.IssueNumber, d.About.Statement)
	}
	if len(d.Positions) > 0 {
		b.WriteString("- **Positions:**\n")
		for _, p := range d.Positions {
			fmt.Fprintf(b, "  - %s: %s\n", p.Role, oneLine(p.Text))
		}
	}
	b.WriteString("- **Participants:**")
	if len(d.Participants) == 0 {
		b.WriteString(" none yet")
	}
	b.WriteString("\n")
	for _, p := range d.Participants {
		fmt.Fprintf(b, "  - %s %s — %s (%s), joined %s\n", p.ParticipantID, oneLine(p.Name), p.Role, harness(p), p.JoinedAt)
	}
	if o := d.Outcome; o != nil {
		fmt.Fprintf(b, "- **Outcome:** %s — %s\n", o.Outcome, oneLine(o.Reason))
	}
	b.WriteString("\n---\n\n")
}

func renderSocratic(b *strings.Builder, d *model.Debate, t *model.DebateTurn) {
	fmt.Fprintf(b, "## Turn %d — %s — %s\n\n", t.TurnNumber, writer(d, t), t.Stance)
	fmt.Fprintf(b, "**Position**\n\n%s\n\n", block(t.Position))
	b.WriteString("**Counterpoints**\n\n")
	for _, c := range t.Counterpoints {
		fmt.Fprintf(b, "- Addresses: %s\n  Claim: %s\n", addresses(c.Addresses), oneLine(c.Claim))
		if len(c.Support) > 0 {
			b.WriteString("  Support:\n")
			for _, s := range c.Support {
				fmt.Fprintf(b, "  - %s\n", support(s))
			}
		}
	}
	b.WriteString("\n**Agreements**\n\n")
	for _, a := range t.Agreements {
		fmt.Fprintf(b, "- %s\n", oneLine(a))
	}
	b.WriteString("\n**Novel Argument**\n\n")
	if t.NovelArgument != nil {
		fmt.Fprintf(b, "%s\n", block(t.NovelArgument.Text))
		if len(t.NovelArgument.Support) > 0 {
			b.WriteString("\nSupport:\n")
			for _, s := range t.NovelArgument.Support {
				fmt.Fprintf(b, "- %s\n", support(s))
			}
		}
	}
	b.WriteString("\n**Unresolved Items**\n\n")
	for _, u := range t.Unresolved {
		kind := "non-blocking"
		if u.Blocking {
			kind = "blocking"
		}
		fmt.Fprintf(b, "- %s (%s)\n", oneLine(u.Text), kind)
	}
	b.WriteString("\n**Stance Revision Support**\n\n")
	if len(t.StanceRevisionSupport) == 0 {
		b.WriteString("- none\n")
	}
	for _, s := range t.StanceRevisionSupport {
		fmt.Fprintf(b, "- %s\n", support(s))
	}
	if t.Verdict != "" {
		fmt.Fprintf(b, "\n**Verdict:** %s\n", t.Verdict)
	}
	b.WriteString("\n")
}

// renderReview writes code-debate's sections, with --- between them.
func renderReview(b *strings.Builder, d *model.Debate) {
	responses, followUps := 0, 0
	for i := range d.Turns {
		t := &d.Turns[i]
		if i > 0 {
			b.WriteString("---\n\n")
		}
		switch {
		case len(t.Points) > 0:
			fmt.Fprintf(b, "## Review\n\n_%s_\n\n", writer(d, t))
			for _, p := range t.Points {
				fmt.Fprintf(b, "%d. %s\n", p.Point, oneLine(p.Text))
			}
		case len(t.Replies) > 0:
			responses++
			fmt.Fprintf(b, "## Response %d\n\n_%s_\n\n", responses, writer(d, t))
			for _, r := range t.Replies {
				fmt.Fprintf(b, "- Point %d: **%s** — %s\n", r.Point, verdictWord(r.Verdict), oneLine(r.Reasoning))
			}
		case len(t.FollowUps) > 0:
			followUps++
			fmt.Fprintf(b, "## Reviewer Follow-up %d\n\n_%s_\n\n", followUps, writer(d, t))
			for _, f := range t.FollowUps {
				fmt.Fprintf(b, "- Point %d: %s\n", f.Point, oneLine(f.Text))
			}
		case t.Consensus != nil:
			c := t.Consensus
			fmt.Fprintf(b, "## CONSENSUS\n\n_%s_\n\n", writer(d, t))
			fmt.Fprintf(b, "**Agreed:** %s\n\n**Action items:**\n\n", numbered("point", c.Agreed))
			if len(c.ActionItems) == 0 {
				b.WriteString("- none\n")
			}
			for _, a := range c.ActionItems {
				fmt.Fprintf(b, "- %s\n", oneLine(a))
			}
			b.WriteString("\n**Disagreements:**\n\n")
			if len(c.Disagreements) == 0 {
				b.WriteString("- none\n")
			}
			for _, x := range c.Disagreements {
				fmt.Fprintf(b, "- Point %d: %s\n", x.Point, oneLine(x.Text))
			}
		}
		b.WriteString("\n")
	}
}

func renderAgora(b *strings.Builder, d *model.Debate, t *model.DebateTurn) {
	fmt.Fprintf(b, "## Turn %d — %s — %s\n\n", t.TurnNumber, writer(d, t), t.Signal)
	conf := "-"
	if t.Confidence != nil {
		conf = num(*t.Confidence)
	}
	fmt.Fprintf(b, "- **Role:** %s\n- **Signal:** %s\n- **Confidence:** %s\n- **Target:** %s\n\n", t.Role, t.Signal, conf, deref(t.Target, "none"))
	fmt.Fprintf(b, "%s\n\n", block(t.Message))
	if len(t.Evidence) > 0 {
		b.WriteString("**Evidence**\n\n")
		for _, e := range t.Evidence {
			fmt.Fprintf(b, "- %s: %s (confidence %s)\n", oneLine(e.Source), oneLine(e.Content), num(e.Confidence))
		}
		b.WriteString("\n")
	}
}

// renderDialectic groups turns in rounds: a main turn opens a round, the
// partner's turn answers it, and user input is shown in the round it came in.
func renderDialectic(b *strings.Builder, d *model.Debate) {
	printed, taken := 0, 0
	for i := range d.Turns {
		t := &d.Turns[i]
		round := max(printed, 1) // user input belongs to the round it came in
		if t.Role != model.RoleUser {
			round = taken/2 + 1
			taken++
		}
		if round != printed {
			fmt.Fprintf(b, "## Round %d\n\n", round)
			printed = round
		}
		switch t.Role {
		case model.RoleUser:
			fmt.Fprintf(b, "### User input (turn %d)\n\n", t.TurnNumber)
		case model.RoleMain:
			fmt.Fprintf(b, "### View — %s (turn %d)\n\n", writer(d, t), t.TurnNumber)
		default:
			fmt.Fprintf(b, "### Challenge — %s (turn %d)\n\n", writer(d, t), t.TurnNumber)
		}
		fmt.Fprintf(b, "%s\n\n", block(t.Body))
		if len(t.Suggestions) > 0 {
			b.WriteString("**Suggestions**\n\n")
			for _, s := range d.Suggestions {
				if s.TurnNumber == t.TurnNumber {
					fmt.Fprintf(b, "%d. %s — %s\n", s.Number, oneLine(s.Text), consent(s))
				}
			}
			b.WriteString("\n")
		}
		if c := t.Conclusion; c != nil {
			fmt.Fprintf(b, "**Conclusion (%s)**\n\n%s\n\n", c.Outcome, block(c.Text))
		}
	}
}

func renderConclusion(b *strings.Builder, d *model.Debate) {
	o := d.Outcome
	if o == nil {
		return
	}
	b.WriteString("---\n\n## Conclusion\n\n")
	fmt.Fprintf(b, "- **Outcome:** %s\n- **Reason:** %s\n", o.Outcome, oneLine(o.Reason))
	if o.Summary != nil {
		fmt.Fprintf(b, "- **Summary:** %s\n", oneLine(*o.Summary))
	}
	if o.Actor != nil {
		fmt.Fprintf(b, "- **Closed by:** %s\n", *o.Actor)
	}
	fmt.Fprintf(b, "- **At:** %s\n", o.At)
}

// writer names a turn's author as "Name (Harness / Model)", or "User".
func writer(d *model.Debate, t *model.DebateTurn) string {
	if t.ParticipantID == model.ParticipantUser {
		return "User"
	}
	p := d.ParticipantByID(t.ParticipantID)
	if p == nil {
		return t.ParticipantID
	}
	return oneLine(p.Name) + " (" + harness(*p) + ")"
}

func harness(p model.Participant) string {
	return or(oneLine(p.Harness), "unknown harness") + " / " + or(oneLine(p.ModelID), "unknown model")
}

func addresses(a string) string {
	if n, ok := strings.CutPrefix(a, "turn-"); ok {
		return "Turn " + n
	}
	return map[string]string{"source": "Source", "topic": "Topic"}[a]
}

func support(s model.Support) string {
	if s.Quote != nil {
		return fmt.Sprintf("%s — \"%s\"", oneLine(s.Text), oneLine(*s.Quote))
	}
	return oneLine(s.Text)
}

func verdictWord(v string) string {
	switch v {
	case model.ReplyAgreed:
		return "Agreed"
	case model.ReplyPartiallyAgreed:
		return "Partially agreed"
	}
	return "Disagreed"
}

func consent(s model.Suggestion) string {
	if s.State == model.SuggestionPending {
		return "pending"
	}
	return fmt.Sprintf("%s by %s at %s", s.State, deref(s.DecidedBy, "unknown"), deref(s.DecidedAt, "unknown time"))
}

// numbered lists numbers in order after a singular or plural noun:
// "point 2", "points 1, 3", or "none".
func numbered(noun string, ns []int) string {
	if len(ns) == 0 {
		return "none"
	}
	var out []string
	for _, n := range slices.Sorted(slices.Values(ns)) {
		out = append(out, strconv.Itoa(n))
	}
	if len(out) > 1 {
		noun += "s"
	}
	return noun + " " + strings.Join(out, ", ")
}

// num prints a confidence without trailing zeros: 0.8, 1, 0.75.
func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// oneLine folds a text to one line, for list items and header fields.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// block renders a participant's Markdown body as a block quote: every line
// of it starts with ">", which no line the engine writes for structure does
// (headings, rules, metadata and list items; the statement thread's quoted
// sentence is a bold label). So no turn can forge a heading such as
// "## Turn 2 — partner" or "# Outcome", or a metadata line (issue 23 W4),
// and the body keeps its Markdown inside the quote. CommonMark ends a line
// at \n, \r\n or \r: all three are split on.
func block(s string) string {
	s = strings.TrimSpace(strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(s))
	if s == "" {
		return ""
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if l = strings.TrimRight(l, " \t"); l == "" {
			lines[i] = ">"
		} else {
			lines[i] = "> " + l
		}
	}
	return strings.Join(lines, "\n")
}

func day(ts string) string {
	if len(ts) >= 10 {
		return ts[:10]
	}
	return ts
}

func deref(p *string, def string) string {
	if p == nil {
		return def
	}
	return *p
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
