package model

import (
	"fmt"
	"net/url"
	"strings"
	"unicode"
)

// What a socratic turn rests on (seed 000's §TURN_RULES): the form of every
// support item, and the turn's focus on the debate.

// supportShape is a support item as a writer gives it.
const supportShape = "{text, quote?, turn?, url?}"

// SupportRule says what a support item may be: the rule of the socratic
// support field, which prime and the generated files print.
const SupportRule = `each item is one of seed 000's forms: a quote of the source ("quote", word for word; white-space runs count as one space), an earlier turn ("turn": "turn-N"), a URL ("url": an http(s) address), or an argument from a principle ("text" starting "Principle:")`

// principlePrefix starts the text of a support item that argues from a
// principle (seed 000: "Principle: ...").
const principlePrefix = "Principle:"

// checkSupport checks the support items of field. Each needs text and one
// of seed 000's forms ("Support MUST be a URL, source file reference, debate
// artifact turn reference, or `Principle: ...`"), and what it cites must
// exist: a quote in the source, a turn among the earlier turns, a URL with
// an http(s) scheme and a host.
func checkSupport(d *Debate, field string, ss []Support, source []byte) error {
	for i, s := range ss {
		f := fmt.Sprintf("%s[%d]", field, i)
		if err := need(f+".text", s.Text); err != nil {
			return err
		}
		if s.Quote != nil {
			switch {
			case d.Source == nil:
				return &TurnError{Field: f + ".quote", Rule: "the debate has no source to quote"}
			case !QuoteInSource(*s.Quote, source):
				return &TurnError{Field: f + ".quote", Rule: fmt.Sprintf("%q does not occur in the source", *s.Quote)}
			}
		}
		if _, ok := d.turnRef(s.Turn); s.Turn != "" && !ok {
			return &TurnError{Field: f + ".turn", Rule: fmt.Sprintf(`%q names no earlier turn; use "turn-N" of one of the %d earlier turns`, s.Turn, len(d.Turns))}
		}
		if s.URL != "" && !webURL(s.URL) {
			return &TurnError{Field: f + ".url", Rule: fmt.Sprintf("%q is not an http(s) URL with a host and no white space", s.URL)}
		}
		if s.Quote == nil && s.Turn == "" && s.URL == "" && !isPrinciple(s.Text) {
			return &TurnError{Field: f, Rule: "support cites nothing: " + SupportRule}
		}
	}
	return nil
}

// webURL says whether s is an http(s) URL with a host and no white space.
func webURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && !strings.ContainsFunc(s, unicode.IsSpace)
}

// isPrinciple says whether text argues from a principle: "Principle:" (in
// any case) and something after it.
func isPrinciple(text string) bool {
	t := strings.TrimSpace(text)
	return len(t) > len(principlePrefix) && strings.EqualFold(t[:len(principlePrefix)], principlePrefix) &&
		strings.TrimSpace(t[len(principlePrefix):]) != ""
}

// FocusRule is seed 000's topic focus as the engine checks it.
const FocusRule = "every turn engages the debate: a counterpoint addresses the source or an earlier turn, or a support item quotes the source or cites an earlier turn (only a first turn without a source may rest on the topic alone)"

// checkFocus is seed 000's topic focus ("Every accepted turn MUST remain
// focused on topic; off-topic drafts must be revised before append"), as far
// as the engine can see it: a turn engages what the debate is about, the
// source or an earlier turn. A turn that cites neither is refused, so an
// off-topic draft is revised before it is appended, never invalidates the
// debate after. Only a first turn without a source, with nothing yet to
// engage, may address the topic alone.
func checkFocus(d *Debate, t *DebateTurn) error {
	if len(d.Turns) == 0 && d.Source == nil {
		return nil
	}
	for _, c := range t.Counterpoints {
		if c.Addresses != "topic" {
			return nil
		}
	}
	for _, s := range allSupport(t) {
		if s.Quote != nil || s.Turn != "" {
			return nil
		}
	}
	cite := `an earlier turn (a counterpoint that addresses "turn-N", or support with "turn": "turn-N")`
	if d.Source != nil {
		cite = `the source (a counterpoint that addresses "source", or support with a "quote") or ` + cite
	}
	return &TurnError{Field: "counterpoints", Rule: "the turn cites neither the source nor an earlier turn, so it is not focused on the debate: " + FocusRule,
		Hint: "nothing was written; revise the draft so that it engages " + cite + ", and send it again"}
}

// allSupport lists every support item of a socratic turn.
func allSupport(t *DebateTurn) []Support {
	var out []Support
	for _, c := range t.Counterpoints {
		out = append(out, c.Support...)
	}
	if t.NovelArgument != nil {
		out = append(out, t.NovelArgument.Support...)
	}
	return append(out, t.StanceRevisionSupport...)
}
