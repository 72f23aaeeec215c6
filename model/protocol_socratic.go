package model

import (
	"fmt"
	"slices"
	"strings"
)

// Socratic stances (seed 000, rp1 socratic-duel).
const (
	StanceOpen       = "OPEN_TO_DEBATE"
	StanceConverging = "CONVERGING"
	StanceAccepting  = "ACCEPTING_CONSENSUS"
	StanceDissenting = "DISSENTING"
	StanceRevising   = "REVISING"
)

// Stances lists the socratic stances.
var Stances = []string{StanceOpen, StanceConverging, StanceAccepting, StanceDissenting, StanceRevising}

// Socratic outcomes.
const (
	SocraticAcceptedConsensus = "ACCEPTED_CONSENSUS"
	SocraticDissent           = "DISSENT"
	SocraticMaxTurns          = "MAX_TURNS"
	SocraticTimeout           = "TIMEOUT"
	SocraticInvalidated       = "INVALIDATED"
)

// Dispute verdicts, carried by ACCEPTING_CONSENSUS turns of a dispute.
const (
	VerdictWithdrawn = "withdrawn"
	VerdictStands    = "stands"
)

// Verdicts lists the dispute verdicts.
var Verdicts = []string{VerdictWithdrawn, VerdictStands}

// Socratic is rp1's socratic duel: two participants, six turns.
var Socratic = Protocol{
	Name:    "socratic",
	Seed:    "000 (rp1 socratic-duel)",
	Summary: "Two participants take turns with a stance, a position, counterpoints, agreements, a novel argument and unresolved items, until both accept consensus, one dissents with blocking items, or the turn limit.",
	Roles:   []string{"participant", "participant"},
	Limit:   Limit{N: 6, Unit: "turns"},
	Outcomes: []string{SocraticAcceptedConsensus, SocraticDissent, SocraticMaxTurns,
		SocraticTimeout, SocraticInvalidated},
	Invalidated: SocraticInvalidated,
	Timeout:     SocraticTimeout,
	Fields: []Field{
		{Name: "stance", Type: "string", Required: true, Enum: Stances, Rule: "a change from your previous stance needs stance_revision_support"},
		{Name: "position", Type: "string", Required: true, Rule: "your position, non-empty"},
		{Name: "counterpoints", Type: "[{addresses, claim, support: [{text, quote?}]}]", Required: true, Rule: `non-empty, each with support; addresses is "turn-N" of an earlier turn, "source" (when the debate has one) or "topic"`},
		{Name: "agreements", Type: "[string]", Required: true, Rule: "non-empty"},
		{Name: "novel_argument", Type: "{text, support: [{text, quote?}]}", Required: true, Rule: "text and support non-empty; never a repeat of your own earlier one"},
		{Name: "unresolved", Type: "[{text, blocking}]", Required: true, Rule: "non-empty; a blocking item prevents consensus"},
		{Name: "stance_revision_support", Type: "[{text, quote?}]", Rule: "support items; required when the stance changes"},
		{Name: "verdict", Type: "string", Enum: Verdicts, Rule: "only in a dispute debate, where ACCEPTING_CONSENSUS requires it"},
		{Name: "support", In: "counterpoints[].support, novel_argument.support, stance_revision_support", Type: "{text, quote?}", Rule: "a support item, never a key of the turn; a quote must occur in the source (white-space runs count as one space)"},
	},
	validate:   validateSocratic,
	terminal:   terminalSocratic,
	next:       nextSocratic,
	Layout:     eachTurn(renderSocratic),
	Help:       "socratic (two participants, 6 turns)",
	StartFlags: "[--source FILE.md]",
	CloseRules: map[string]string{
		SocraticAcceptedConsensus: "both participants' latest turns must be ACCEPTING_CONSENSUS with no blocking unresolved item",
		SocraticDissent:           "both participants must have contributed, and a latest stance must be DISSENTING with a blocking unresolved item left",
		SocraticMaxTurns:          "the turn limit must be reached",
	},
	Disputes:     true,
	OnePerSource: true,
	Doc:          socraticDoc,
}

// nextSocratic: no turn before the second participant joins (seed 000);
// the only way on alone is the timeout path, `claim --for-timeout`.
func nextSocratic(d *Debate, st TurnState) TurnState {
	if len(d.Participants) < 2 && st.ParticipantID != "" {
		st.ParticipantID, st.Role, st.JoinRole = "", "", "participant"
	}
	return st
}

func validateSocratic(d *Debate, participantID, role string, t *DebateTurn, source []byte) error {
	if err := firstErr(
		enum("stance", t.Stance, Stances),
		need("position", t.Position),
	); err != nil {
		return err
	}
	if len(t.Counterpoints) == 0 {
		return &TurnError{Field: "counterpoints", Rule: "at least one counterpoint is required"}
	}
	checkSupport := func(field string, ss []Support) error {
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
		}
		return nil
	}
	for i, c := range t.Counterpoints {
		f := fmt.Sprintf("counterpoints[%d]", i)
		switch _, ok := d.turnRef(c.Addresses); {
		case ok:
		case c.Addresses == "source" && d.Source != nil:
		case c.Addresses == "topic":
		default:
			return &TurnError{Field: f + ".addresses", Rule: fmt.Sprintf(`%q names nothing; use "turn-N" of one of the %d earlier turns, "source" (when the debate has one) or "topic"`, c.Addresses, len(d.Turns))}
		}
		if err := firstErr(need(f+".claim", c.Claim), checkSupport(f+".support", c.Support)); err != nil {
			return err
		}
		if len(c.Support) == 0 {
			return &TurnError{Field: f + ".support", Rule: "every counterpoint carries support: at least one item {text, quote?}"}
		}
	}
	if len(t.Agreements) == 0 {
		return &TurnError{Field: "agreements", Rule: "at least one agreement is required"}
	}
	for i, a := range t.Agreements {
		if err := need(fmt.Sprintf("agreements[%d]", i), a); err != nil {
			return err
		}
	}
	if t.NovelArgument == nil {
		return &TurnError{Field: "novel_argument", Rule: "is required"}
	}
	if err := firstErr(need("novel_argument.text", t.NovelArgument.Text),
		checkSupport("novel_argument.support", t.NovelArgument.Support)); err != nil {
		return err
	}
	if len(t.NovelArgument.Support) == 0 {
		return &TurnError{Field: "novel_argument.support", Rule: "the novel argument carries support: at least one item {text, quote?}"}
	}
	for _, old := range d.Turns {
		if old.ParticipantID == participantID && old.NovelArgument != nil && sameText(old.NovelArgument.Text, t.NovelArgument.Text) {
			return &TurnError{Field: "novel_argument.text", Rule: fmt.Sprintf("repeats your novel argument of turn-%d; a novel argument is new in every turn", old.TurnNumber)}
		}
	}
	if len(t.Unresolved) == 0 {
		return &TurnError{Field: "unresolved", Rule: "at least one unresolved item is required (mark it non-blocking when it does not stop consensus)"}
	}
	for i, u := range t.Unresolved {
		if err := need(fmt.Sprintf("unresolved[%d].text", i), u.Text); err != nil {
			return err
		}
	}
	if err := checkSupport("stance_revision_support", t.StanceRevisionSupport); err != nil {
		return err
	}
	if prev := d.LastTurnOf(participantID); prev != nil && prev.Stance != t.Stance && len(t.StanceRevisionSupport) == 0 {
		return &TurnError{Field: "stance_revision_support", Rule: fmt.Sprintf("the stance changes from %s to %s, which needs stance revision support", prev.Stance, t.Stance)}
	}
	// ACCEPTING_CONSENSUS must still carry a critique and evidence (seed
	// 000): the required counterpoints are the critique, and every one of
	// them carries support.
	switch {
	case d.About == nil && t.Verdict != "":
		return &TurnError{Field: "verdict", Rule: "only a dispute debate (started with --about) takes a verdict"}
	case d.About != nil && t.Stance == StanceAccepting && t.Verdict == "":
		return &TurnError{Field: "verdict", Rule: "ACCEPTING_CONSENSUS in a dispute needs a verdict: withdrawn or stands"}
	case t.Verdict != "":
		return enum("verdict", t.Verdict, Verdicts)
	}
	return nil
}

// latestTurns returns each participant's latest turn, in join order; ok is
// false when some participant has not written yet or fewer than need joined.
func latestTurns(d *Debate, need int) ([]*DebateTurn, bool) {
	if len(d.Participants) < need {
		return nil, false
	}
	var out []*DebateTurn
	for _, p := range d.Participants {
		t := d.LastTurnOf(p.ParticipantID)
		if t == nil {
			return nil, false
		}
		out = append(out, t)
	}
	return out, true
}

// sameText says whether a and b are the same text after normalising case
// and white space.
func sameText(a, b string) bool {
	return strings.Join(strings.Fields(strings.ToLower(a)), " ") == strings.Join(strings.Fields(strings.ToLower(b)), " ")
}

func blocking(t *DebateTurn) bool {
	return slices.ContainsFunc(t.Unresolved, func(u UnresolvedItem) bool { return u.Blocking })
}

func terminalSocratic(d *Debate) Assessment {
	var a Assessment
	latest, both := latestTurns(d, 2)
	if both {
		accepting, converging, dissent, blocked := true, true, false, false
		for _, t := range latest {
			accepting = accepting && t.Stance == StanceAccepting
			converging = converging && (t.Stance == StanceConverging || t.Stance == StanceAccepting)
			dissent = dissent || t.Stance == StanceDissenting
			blocked = blocked || blocking(t)
		}
		a.CandidateConvergence = converging
		switch {
		case accepting && !blocked:
			a.Closed, a.Outcome, a.Reason = true, SocraticAcceptedConsensus, "both participants' latest turns accept consensus with no blocking unresolved item"
			return a
		case dissent && blocked:
			a.Closed, a.Outcome, a.Reason = true, SocraticDissent, "a participant dissents with blocking unresolved items left"
			return a
		case blocked && len(d.Turns) >= d.MaxTurns:
			a.Closed, a.Outcome, a.Reason = true, SocraticDissent, fmt.Sprintf("turn %d landed with blocking unresolved items left after both participants contributed", len(d.Turns))
			return a
		}
	}
	if len(d.Turns) >= d.MaxTurns {
		a.Closed, a.Outcome, a.Reason = true, SocraticMaxTurns, fmt.Sprintf("turn %d landed without consensus or dissent", len(d.Turns))
	}
	return a
}
