package model

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// Agora signals (seed 004).
const (
	SignalPropose  = "propose"
	SignalCounter  = "counter"
	SignalApprove  = "approve"
	SignalNoChange = "no-change"
	SignalDefer    = "defer"
)

// Signals lists the agora signals.
var Signals = []string{SignalPropose, SignalCounter, SignalApprove, SignalNoChange, SignalDefer}

// Agora outcomes.
const (
	AgoraConsensus   = "consensus"
	AgoraTimeout     = "timeout"
	AgoraInvalidated = "invalidated"
)

// MediatorAfter is how many consecutive counters make agora ask for a
// mediator.
const MediatorAfter = 4

var roleRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`) })

// Agora is the Agora debate drone: one participant per position, JSON
// signals with confidence and evidence, consensus by the four conditions.
var Agora = Protocol{
	Name:        "agora",
	Seed:        "004 (Agora debate drone)",
	Summary:     "One participant per starting position exchanges signals (propose, counter, approve, no-change, defer) with a message, a confidence and evidence, until every last signal is approve or no-change with one approved proposal and no self-approval, or the turn limit.",
	Limit:       Limit{N: 20, Unit: "turns"},
	Outcomes:    []string{AgoraConsensus, AgoraTimeout, AgoraInvalidated},
	Invalidated: AgoraInvalidated,
	ExtraRoles:  []string{RoleMediator, RoleResearcher},
	Fields: []Field{
		{Name: "signal", Type: "string", Except: research, Required: true, Enum: Signals, Rule: "propose and counter reset the equilibrium; approve needs a target naming a proposal"},
		{Name: "message", Type: "string", Except: research, Required: true, Rule: "non-empty; 2-4 sentences, at most the debate's message_tokens (about 100 tokens)"},
		{Name: "confidence", Type: "number", Except: research, Required: true, Rule: "0..1"},
		{Name: "target", Type: "string or null", Except: research, Rule: `"turn-N" of an earlier turn, "proposal-<role>" of a role that has proposed or countered, or null`},
		{Name: "evidence", Type: "[{source, content, confidence}]", Rule: "a research turn is evidence only, at least one item, each added to the pool as pool-N; counter needs evidence; methodology fact-based needs evidence on every turn, each item's source a pool-N of the pool or " + VerifiableRule + "; a pool-N source must exist; confidence 0..1"},
	},
	roles: func(d *Debate) []string {
		var out []string
		for _, p := range d.Positions {
			out = append(out, p.Role)
		}
		return out
	},
	start:    startAgora,
	validate: validateAgora,
	next:     nextAgora,
	extraJoin: func(d *Debate) string {
		if counterRun(d) >= MediatorAfter && !hasMediator(d) {
			return RoleMediator
		}
		return ""
	},
	terminal:   terminalAgora,
	Layout:     layoutAgora,
	Help:       "agora (one participant per --position ROLE=TEXT, 20 turns; --methodology opinion|fact-based|mixed; --research N opens with N research turns)",
	StartFlags: "--position ROLE=TEXT --position ROLE=TEXT [--methodology " + strings.Join(Methodologies, "|") + "] [--research N]",
	CloseRules: map[string]string{
		AgoraConsensus: "every participant's last signal must be approve or no-change, with at least one approve, all approves of one proposal, and no self-approval",
		AgoraTimeout:   "the turn limit must be reached",
	},
	Doc: agoraDoc,
}

// research lists the role whose turns carry evidence only.
var research = []string{RoleResearcher}

// AgoraMessageTokens and AgoraMessageSentences are seed 004's message
// limit: "2-4 sentences max", about 100 tokens.
const (
	AgoraMessageTokens    = 100
	AgoraMessageSentences = 4
)

func startAgora(d *Debate) error {
	if d.Methodology == "" {
		d.Methodology = "opinion"
	}
	if d.MessageTokens == 0 {
		d.MessageTokens = AgoraMessageTokens
	}
	if d.MessageTokens < 1 {
		return &TurnError{Field: "message_tokens", Rule: fmt.Sprintf("must be at least 1, not %d", d.MessageTokens)}
	}
	if err := enum("methodology", d.Methodology, Methodologies); err != nil {
		return err
	}
	if err := checkResearch(d); err != nil {
		return err
	}
	if len(d.Positions) < 2 {
		return &TurnError{Field: "positions", Rule: fmt.Sprintf("agora needs at least 2 positions (--position ROLE=TEXT), not %d", len(d.Positions))}
	}
	seen := map[string]bool{}
	for i, p := range d.Positions {
		f := fmt.Sprintf("positions[%d]", i)
		switch {
		case !roleRe().MatchString(p.Role):
			return &TurnError{Field: f + ".role", Rule: fmt.Sprintf("%q is not a role name: a-z, 0-9, _ and -", p.Role)}
		case p.Role == RoleMediator || p.Role == RoleResearcher:
			return &TurnError{Field: f + ".role", Rule: p.Role + " is a role of agora's own (the mediator after repeated counters, the researcher of the research stage); name the position otherwise"}
		case seen[p.Role]:
			return &TurnError{Field: f + ".role", Rule: fmt.Sprintf("role %q is given twice", p.Role)}
		}
		seen[p.Role] = true
		if err := need(f+".text", p.Text); err != nil {
			return err
		}
	}
	return nil
}

// proposalOf resolves a target to the role whose proposal it names: a
// "proposal-<role>" of a role that proposed or countered, or "turn-N" of a
// propose or counter turn. ok is false when it names no proposal.
func proposalOf(d *Debate, target string) (string, bool) {
	if role, ok := strings.CutPrefix(target, "proposal-"); ok {
		for _, t := range d.Turns {
			if t.Role == role && (t.Signal == SignalPropose || t.Signal == SignalCounter) {
				return role, true
			}
		}
		return "", false
	}
	if n, ok := d.turnRef(target); ok {
		t := d.Turns[n-1]
		if t.Signal == SignalPropose || t.Signal == SignalCounter {
			return t.Role, true
		}
	}
	return "", false
}

func validateAgora(_ *Protocol, d *Debate, participantID, role string, t *DebateTurn, _ []byte) error {
	if role == RoleResearcher {
		return validateResearch(d, t)
	}
	if err := firstErr(
		enum("signal", t.Signal, Signals),
		need("message", t.Message),
	); err != nil {
		return err
	}
	if err := messageLimit(d, t.Message); err != nil {
		return err
	}
	if t.Confidence == nil {
		return &TurnError{Field: "confidence", Rule: "is required (0..1)"}
	}
	if err := unit("confidence", *t.Confidence); err != nil {
		return err
	}
	if t.Target != nil {
		_, isTurn := d.turnRef(*t.Target)
		_, isProposal := proposalOf(d, *t.Target)
		if !isTurn && !isProposal {
			return &TurnError{Field: "target", Rule: fmt.Sprintf(`%q names nothing; use "turn-N" of one of the %d earlier turns, "proposal-<role>" of a role that has proposed, or null`, *t.Target, len(d.Turns))}
		}
	}
	if t.Signal == SignalApprove {
		if t.Target == nil {
			return &TurnError{Field: "target", Rule: "approve needs a target naming the proposal it approves"}
		}
		owner, ok := proposalOf(d, *t.Target)
		if !ok {
			return &TurnError{Field: "target", Rule: fmt.Sprintf("%q is not a proposal; approve a proposal-<role> or the turn-N of a propose or counter", *t.Target)}
		}
		if me := d.ParticipantByID(participantID); me != nil && owner != me.Role && sameActorAs(d, owner, me.Actor) {
			return &RefusalError{Action: "approve", Why: fmt.Sprintf("%s holds the position %s too: no one approves their own proposal, whatever position they write from", me.Actor, owner)}
		}
	}
	switch {
	case t.Signal == SignalCounter && len(t.Evidence) == 0:
		return &TurnError{Field: "evidence", Rule: "a counter needs evidence"}
	case d.Methodology == "fact-based" && len(t.Evidence) == 0:
		return &TurnError{Field: "evidence", Rule: "methodology fact-based needs evidence on every turn"}
	}
	return checkEvidence(d, t, d.Methodology == "fact-based")
}

// sameActorAs reports whether the seat of role is held by actor: "no
// self-approval" compares actors, not positions.
func sameActorAs(d *Debate, role, actor string) bool {
	for _, p := range d.Participants {
		if p.Role == role && SameActor(p.Actor, actor) {
			return true
		}
	}
	return false
}

// messageLimit holds an agora message to the debate's token bound (words
// count 4/3 of a token each, rounded up) and to AgoraMessageSentences.
func messageLimit(d *Debate, msg string) error {
	limit := d.MessageTokens
	if limit == 0 {
		limit = AgoraMessageTokens
	}
	if tokens := (len(strings.Fields(msg))*4 + 2) / 3; tokens > limit {
		return &TurnError{Field: "message", Rule: fmt.Sprintf("is about %d tokens; this debate's limit is %d (2-4 sentences): move detail into evidence", tokens, limit)}
	}
	if n := sentences(msg); n > AgoraMessageSentences {
		return &TurnError{Field: "message", Rule: fmt.Sprintf("has %d sentences; at most %d", n, AgoraMessageSentences)}
	}
	return nil
}

// sentences counts the sentence ends in s: a run of . ! or ? followed by
// white space or the end.
func sentences(s string) int {
	n := 0
	r := []rune(strings.TrimSpace(s))
	for i, c := range r {
		if (c == '.' || c == '!' || c == '?') && (i+1 == len(r) || r[i+1] == ' ' || r[i+1] == '\n' || r[i+1] == '\t') {
			n++
		}
	}
	if n == 0 && len(r) > 0 {
		n = 1
	}
	return n
}

// counterRun is the number of consecutive counters at the end of the
// debate since the last mediator turn; any other signal ends a run.
func counterRun(d *Debate) int {
	n := 0
	for i := len(d.Turns) - 1; i >= 0; i-- {
		if d.Turns[i].Role == RoleMediator || d.Turns[i].Signal != SignalCounter {
			break
		}
		n++
	}
	return n
}

// nextAgora gives a joined mediator the turn after MediatorAfter
// consecutive counters. Without one the debate does not stall (seed 004
// has no mediator): the positions go on to the turn limit, and the advice
// says to recruit one, whose join then takes the mediator role.
func nextAgora(d *Debate, st TurnState) TurnState {
	if st, ok := nextResearch(d, st); ok {
		return st
	}
	n := counterRun(d)
	if n < MediatorAfter {
		return st
	}
	for _, p := range d.Participants {
		if p.Role == RoleMediator {
			st.ParticipantID, st.Role, st.JoinRole = p.ParticipantID, p.Role, ""
			st.Advice = fmt.Sprintf("%d consecutive counters: the mediator writes next", n)
			return st
		}
	}
	st.Advice = fmt.Sprintf("%d consecutive counters and no mediator: the debate goes on to its limit of %d turns; recruit one with `proofloop debate join %s --participant-name NAME` (it takes the mediator role)", n, d.MaxTurns, d.ID)
	return st
}

func hasMediator(d *Debate) bool {
	for _, p := range d.Participants {
		if p.Role == RoleMediator {
			return true
		}
	}
	return false
}

func terminalAgora(d *Debate) Assessment {
	a := Assessment{MediatorNeeded: counterRun(d) >= MediatorAfter}
	if ok, reason := agoraConsensus(d); ok {
		a.Closed, a.Outcome, a.Reason = true, AgoraConsensus, reason
		return a
	}
	if n := debateTurns(d); n >= d.MaxTurns {
		// Research turns do not count: the limit is the debate's own.
		a.Closed, a.Outcome, a.Reason = true, AgoraTimeout, fmt.Sprintf("turn %d landed without consensus", len(d.Turns))
		if n != len(d.Turns) {
			a.Reason += fmt.Sprintf(" (%d debate turns after %d research turns)", n, len(d.Turns)-n)
		}
	}
	return a
}

// agoraConsensus requires ALL of: every position participant spoke since
// the last propose or counter (those reset the equilibrium) and its last
// signal is approve or no-change; at least one approve; every approve names
// the same proposal; nobody approves its own proposal. The seed ORs two of
// these, so that two no-change stand-offs pass as consensus.
func agoraConsensus(d *Debate) (bool, string) {
	positions := len(d.Positions)
	var parts []Participant
	for _, p := range d.Participants {
		if p.Role != RoleMediator && p.Role != RoleResearcher {
			parts = append(parts, p)
		}
	}
	if len(parts) < positions || positions == 0 {
		return false, ""
	}
	reset := 0 // turn number of the last propose or counter
	for _, t := range d.Turns {
		if t.Signal == SignalPropose || t.Signal == SignalCounter {
			reset = t.TurnNumber
		}
	}
	approved := ""
	for _, p := range parts {
		t := d.LastTurnOf(p.ParticipantID)
		if t == nil || t.TurnNumber <= reset || (t.Signal != SignalApprove && t.Signal != SignalNoChange) {
			return false, ""
		}
		if t.Signal != SignalApprove {
			continue
		}
		if t.Target == nil {
			return false, "" // ValidateTurn refuses this; a hand-edited file may not
		}
		role, _ := proposalOf(d, *t.Target)
		if role == p.Role || sameActorAs(d, role, p.Actor) || (approved != "" && approved != role) {
			return false, ""
		}
		approved = role
	}
	if approved == "" {
		return false, ""
	}
	return true, fmt.Sprintf("every participant approves or accepts the proposal of %s", approved)
}
