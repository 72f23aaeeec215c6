package loop

import (
	"fmt"
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
	p, err := model.LookupProtocol(d.Protocol)
	renderHeader(&b, d, p)
	if err != nil || p.Layout == nil {
		// The schema refuses such a document, and TestProtocolsAreWhole a
		// protocol without a layout; say so rather than guess one.
		fmt.Fprintf(&b, "_The protocol %q has no transcript layout: its turns are not rendered._\n\n", oneLine(d.Protocol))
	} else {
		p.Layout(&b, d)
	}
	renderConclusion(&b, d, err == nil && p.ClosingInLayout(d))
	return []byte(b.String())
}

// renderHeader writes the metadata header; p is nil for an unknown protocol.
func renderHeader(b *strings.Builder, d *model.Debate, p *model.Protocol) {
	title, heading, subject := "Debate", d.Topic, false
	if p != nil {
		title = model.Or(p.Title, title)
		if subject = p.SubjectTitle && d.Subject != nil; subject {
			heading = *d.Subject
		}
	}
	fmt.Fprintf(b, "# %s: %s\n\n", title, oneLine(heading))
	if p != nil && p.Bare {
		return
	}
	status := "in-progress"
	if d.Status != model.DebateOpen {
		status = string(d.Status)
	}
	fmt.Fprintf(b, "- **Id:** %s\n", d.ID)
	fmt.Fprintf(b, "- **Date:** %s\n", day(d.CreatedAt))
	fmt.Fprintf(b, "- **Status:** %s\n", status)
	proto := d.Protocol
	if p != nil {
		proto += ", seed " + p.Seed
	}
	fmt.Fprintf(b, "- **Protocol:** %s\n", proto)
	if subject {
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
		agent := ""
		if p.AgentType != "" {
			agent = ", agent type " + oneLine(p.AgentType)
			if p.FallbackFrom != "" {
				agent += " (fallback from " + oneLine(p.FallbackFrom) + ": " + oneLine(p.FallbackReason) + ")"
			}
		}
		fmt.Fprintf(b, "  - %s %s — %s (%s%s), joined %s\n", p.ParticipantID, oneLine(p.Name), p.Role, model.Harness(p), agent, p.JoinedAt)
	}
	if o := d.Outcome; o != nil {
		fmt.Fprintf(b, "- **Outcome:** %s — %s\n", o.Outcome, oneLine(o.Reason))
	}
	b.WriteString("\n---\n\n")
}

func renderConclusion(b *strings.Builder, d *model.Debate, inLayout bool) {
	o := d.Outcome
	if o == nil {
		return
	}
	if !inLayout {
		b.WriteString("---\n\n## Conclusion\n\n")
	}
	fmt.Fprintf(b, "- **Outcome:** %s\n- **Reason:** %s\n", o.Outcome, oneLine(o.Reason))
	if o.Summary != nil {
		fmt.Fprintf(b, "- **Summary:** %s\n", oneLine(*o.Summary))
	}
	if o.Actor != nil {
		fmt.Fprintf(b, "- **Closed by:** %s\n", *o.Actor)
	}
	fmt.Fprintf(b, "- **At:** %s\n", o.At)
}

func day(ts string) string {
	if len(ts) >= 10 {
		return ts[:10]
	}
	return ts
}

// The shared transcript pieces live in model (model/transcript.go), where
// every protocol's layout writes with them too.
var (
	oneLine  = model.OneLine
	block    = model.Block
	deref    = model.Deref
	or       = model.Or
	numbered = model.Numbered
)
