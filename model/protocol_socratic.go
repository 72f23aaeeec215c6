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
		{Name: "position", Type: "string", Required: true, Rule: "your position on the topic, non-empty"},
		{Name: "counterpoints", Type: "[{addresses, claim, support: [" + supportShape + "]}]", Required: true, Rule: `non-empty, each with support; addresses is "turn-N" of an earlier turn, "source" (when the debate has one) or "topic"; ` + FocusRule},
		{Name: "agreements", Type: "[string]", Required: true, Rule: "non-empty"},
		{Name: "novel_argument", Type: "{text, support: [" + supportShape + "]}", Required: true, Rule: "text and support non-empty; never a repeat of your own earlier one"},
		{Name: "unresolved", Type: "[{text, blocking}]", Required: true, Rule: "non-empty; a blocking item prevents consensus"},
		{Name: "stance_revision_support", Type: "[" + supportShape + "]", Rule: "support items; required when the stance changes"},
		{Name: "verdict", Type: "string", Enum: Verdicts, Rule: "only in a dispute debate, where ACCEPTING_CONSENSUS requires it"},
		{Name: "support", In: "counterpoints[].support, novel_argument.support, stance_revision_support", Type: supportShape, Rule: "a support item, never a key of the turn; " + SupportRule},
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

func validateSocratic(_ *Protocol, d *Debate, participantID, role string, t *DebateTurn, source []byte) error {
	if err := firstErr(
		enum("stance", t.Stance, Stances),
		need("position", t.Position),
		checkCounterpoints(d, t, source),
	); err != nil {
		return err
	}
	if len(t.Agreements) == 0 {
		return &TurnError{Field: "agreements", Rule: "at least one agreement is required"}
	}
	for i, a := range t.Agreements {
		if err := need(fmt.Sprintf("agreements[%d]", i), a); err != nil {
			return err
		}
	}
	if err := checkNovelArgument(d, participantID, t, source); err != nil {
		return err
	}
	if len(t.Unresolved) == 0 {
		return &TurnError{Field: "unresolved", Rule: "at least one unresolved item is required (mark it non-blocking when it does not stop consensus)"}
	}
	for i, u := range t.Unresolved {
		if err := need(fmt.Sprintf("unresolved[%d].text", i), u.Text); err != nil {
			return err
		}
	}
	if err := checkSupport(d, "stance_revision_support", t.StanceRevisionSupport, source); err != nil {
		return err
	}
	if prev := d.LastTurnOf(participantID); prev != nil && prev.Stance != t.Stance && len(t.StanceRevisionSupport) == 0 {
		return &TurnError{Field: "stance_revision_support", Rule: fmt.Sprintf("the stance changes from %s to %s, which needs stance revision support", prev.Stance, t.Stance)}
	}
	if err := checkFocus(d, t); err != nil {
		return err
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

// checkCounterpoints wants at least one counterpoint, each addressing
// something that exists, with a claim and support.
func checkCounterpoints(d *Debate, t *DebateTurn, source []byte) error {
	if len(t.Counterpoints) == 0 {
		return &TurnError{Field: "counterpoints", Rule: "at least one counterpoint is required"}
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
		if err := firstErr(need(f+".claim", c.Claim), checkSupport(d, f+".support", c.Support, source)); err != nil {
			return err
		}
		if len(c.Support) == 0 {
			return &TurnError{Field: f + ".support", Rule: "every counterpoint carries support: at least one item " + supportShape}
		}
	}
	return nil
}

// checkNovelArgument wants a novel argument with support that is not a
// repeat of the writer's own earlier one.
func checkNovelArgument(d *Debate, participantID string, t *DebateTurn, source []byte) error {
	if t.NovelArgument == nil {
		return &TurnError{Field: "novel_argument", Rule: "is required"}
	}
	if err := firstErr(need("novel_argument.text", t.NovelArgument.Text),
		checkSupport(d, "novel_argument.support", t.NovelArgument.Support, source)); err != nil {
		return err
	}
	if len(t.NovelArgument.Support) == 0 {
		return &TurnError{Field: "novel_argument.support", Rule: "the novel argument carries support: at least one item " + supportShape}
	}
	for _, old := range d.Turns {
		if old.ParticipantID == participantID && old.NovelArgument != nil && sameText(old.NovelArgument.Text, t.NovelArgument.Text) {
			return &TurnError{Field: "novel_argument.text", Rule: fmt.Sprintf("repeats your novel argument of turn-%d; a novel argument is new in every turn", old.TurnNumber)}
		}
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
