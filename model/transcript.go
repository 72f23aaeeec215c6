package model

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// The pieces a protocol's transcript layout (Protocol.Layout) writes with.
// A transcript is derived (STYLE.md #15): a pure function of the document,
// with nothing in it that depends on map order or on the clock. The engine
// writes the metadata header and the conclusion; a layout writes the turns.

// Writer names a turn's author as "Name (Harness / Model)", or "User".
func Writer(d *Debate, t *DebateTurn) string {
	if t.ParticipantID == ParticipantUser {
		return "User"
	}
	p := d.ParticipantByID(t.ParticipantID)
	if p == nil {
		return t.ParticipantID
	}
	return OneLine(p.Name) + " (" + Harness(*p) + ")"
}

// Harness names a participant's harness and model, "unknown" for a missing one.
func Harness(p Participant) string {
	return Or(OneLine(p.Harness), "unknown harness") + " / " + Or(OneLine(p.ModelID), "unknown model")
}

// SupportText renders a support item: its text, then what it cites (the
// turn, the URL, the quote), each after a dash.
func SupportText(s Support) string {
	out := OneLine(s.Text)
	if n, ok := strings.CutPrefix(s.Turn, "turn-"); ok {
		out += " — Turn " + n
	}
	if s.URL != "" {
		out += " — " + OneLine(s.URL)
	}
	if s.Quote != nil {
		out += fmt.Sprintf(" — \"%s\"", OneLine(*s.Quote))
	}
	return out
}

// Numbered lists numbers in order after a singular or plural noun:
// "point 2", "points 1, 3", or "none".
func Numbered(noun string, ns []int) string {
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

// Num prints a confidence without trailing zeros: 0.8, 1, 0.75.
func Num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// OneLine folds a text to one line, for list items and header fields.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Block renders a participant's Markdown body as a block quote: every line
// of it starts with ">", which no line the engine writes for structure does
// (headings, rules, metadata and list items; the statement thread's quoted
// sentence is a bold label). So no turn can forge a heading such as
// "## Turn 2 — partner" or "# Outcome", or a metadata line (issue 23 W4),
// and the body keeps its Markdown inside the quote. CommonMark ends a line
// at \n, \r\n or \r: all three are split on.
func Block(s string) string {
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

// Deref returns *p, or def for nil.
func Deref(p *string, def string) string {
	if p == nil {
		return def
	}
	return *p
}

// Or returns s, or def when s is empty.
func Or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// eachTurn is the layout of a protocol that writes every turn the same way.
func eachTurn(render func(b *strings.Builder, d *Debate, t *DebateTurn)) func(b *strings.Builder, d *Debate) {
	return func(b *strings.Builder, d *Debate) {
		for i := range d.Turns {
			render(b, d, &d.Turns[i])
		}
	}
}
