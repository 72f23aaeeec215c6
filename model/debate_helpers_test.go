package model

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

const at0 = "2026-11-23T09:00:00Z"

// newDebate is an open debate of protocol p with the protocol's limit.
func newDebate(p *Protocol, mut ...func(*Debate)) *Debate {
	d := &Debate{ID: "deb_t", Status: DebateOpen, CreatedAt: at0, UpdatedAt: at0, Revision: 1,
		Protocol: p.Name, Topic: "t", TopicSlug: "t", MaxTurns: p.Limit.N,
		Participants: []Participant{}, Turns: []DebateTurn{}}
	for _, m := range mut {
		m(d)
	}
	return d
}

// joinAll joins names in order, as the engine would.
func joinAll(t testing.TB, p *Protocol, d *Debate, names ...string) {
	t.Helper()
	for _, n := range names {
		role, err := p.JoinRole(d)
		if err != nil {
			t.Fatalf("join %s: %v", n, err)
		}
		d.Participants = append(d.Participants, Participant{ParticipantID: d.NextParticipantID(), Name: n, Role: role, JoinedAt: at0})
	}
}

// play validates a turn, appends it and closes the debate when the terminal
// rules say so, as the engine does in one transaction. A socratic turn of
// sTurn that addresses the topic answers the latest turn, or the source of
// a first turn, instead, as a participant's turn must (checkFocus).
func play(t testing.TB, p *Protocol, d *Debate, pid string, tt DebateTurn) Assessment {
	t.Helper()
	if p == &Socratic && len(tt.Counterpoints) == 1 && tt.Counterpoints[0].Addresses == "topic" {
		tt.Counterpoints = slices.Clone(tt.Counterpoints)
		switch {
		case len(d.Turns) > 0:
			tt.Counterpoints[0].Addresses = fmt.Sprintf("turn-%d", len(d.Turns))
		case d.Source != nil:
			tt.Counterpoints[0].Addresses = "source"
		}
	}
	if err := p.ValidateTurn(d, pid, &tt, nil); err != nil {
		t.Fatalf("turn %d by %s refused: %v", len(d.Turns)+1, pid, err)
	}
	return apply(p, d, pid, tt)
}

func apply(p *Protocol, d *Debate, pid string, tt DebateTurn) Assessment {
	role := p.WhoseTurn(d).Role
	if pid == ParticipantUser {
		role = RoleUser
	}
	d.AppendTurn(tt, pid, role, at0)
	a := p.Terminal(d)
	if a.Closed {
		d.Status = p.ClosedStatus(a.Outcome)
		d.Outcome = &DebateOutcome{Outcome: a.Outcome, Reason: a.Reason, At: at0}
	}
	return a
}

// wantTurnError checks err is a TurnError on field whose rule contains
// frag; field "" wants no error.
func wantTurnError(t testing.TB, err error, field, frag string) {
	t.Helper()
	if field == "" {
		if err != nil {
			t.Fatalf("err = %v; want nil", err)
		}
		return
	}
	var te *TurnError
	if !errors.As(err, &te) {
		t.Fatalf("err = %v; want a TurnError on %s", err, field)
	}
	if te.Field != field || !strings.Contains(te.Rule, frag) {
		t.Errorf("err = %q on %q; want field %q and a rule containing %q", te.Rule, te.Field, field, frag)
	}
}

// wantRefusal checks err is a RefusalError whose reason contains frag.
func wantRefusal(t testing.TB, err error, frag string) {
	t.Helper()
	var re *RefusalError
	if !errors.As(err, &re) {
		t.Fatalf("err = %v; want a RefusalError containing %q", err, frag)
	}
	if !strings.Contains(re.Why, frag) {
		t.Errorf("refusal %q; want it to contain %q", re.Why, frag)
	}
}

func str(s string) *string { return &s }

func num(f float64) *float64 { return &f }

// novel numbers the helpers' novel arguments: a participant may not repeat one.
var novel int

// sTurn is a complete socratic turn with the given stance.
func sTurn(stance string, blocking bool) DebateTurn {
	novel++
	return DebateTurn{
		Stance:        stance,
		Position:      "The claim holds " + strings.ToLower(stance),
		Counterpoints: []Counterpoint{{Addresses: "topic", Claim: "the premise is vague", Support: []Support{{Text: "Principle: a claim names its bound"}}}},
		Agreements:    []string{"the question matters"},
		NovelArgument: &NovelArgument{Text: fmt.Sprintf("consider edge case %d", novel), Support: []Support{{Text: "Principle: edge cases test a bound"}}},
		Unresolved:    []UnresolvedItem{{Text: "the edge case", Blocking: blocking}},
	}
}

// concl is a dialectic conclusion with outcome o, text and the summary its
// outcome needs (checkSummary).
func concl(o, text string) *Conclusion {
	c := &Conclusion{Outcome: o, Text: text}
	switch o {
	case DialecticConsensus:
		c.Agreed, c.Insights = []string{"the point both make"}, []string{"what the debate showed"}
	case DialecticPartial:
		c.Agreed, c.OpenPoints = []string{"the point both make"}, []string{"the point left"}
	case DialecticDisagreement:
		c.Positions = []Position{{Role: RoleMain, Text: "main's view"}, {Role: RolePartner, Text: "partner's view"}}
		c.OpenPoints = []string{"the point left"}
	}
	return c
}

// answer makes a socratic turn's first counterpoint address ref.
func answer(tt DebateTurn, ref string) DebateTurn {
	tt.Counterpoints = slices.Clone(tt.Counterpoints)
	tt.Counterpoints[0].Addresses = ref
	return tt
}

// withRevision adds stance revision support to a socratic turn.
func withRevision(tt DebateTurn) DebateTurn {
	tt.StanceRevisionSupport = []Support{{Text: "turn 1 showed the bound", Turn: "turn-1"}}
	return tt
}

func agoraTurn(signal string, target string, conf float64) DebateTurn {
	tt := DebateTurn{Signal: signal, Message: fmt.Sprintf("%s message", signal), Confidence: num(conf)}
	if target != "" {
		tt.Target = str(target)
	}
	if signal == SignalCounter {
		tt.Evidence = []Evidence{{Source: "paper", Content: "a table", Confidence: 0.8}}
	}
	return tt
}

// turnCase is one turn of a table test: on the debate setup makes, pid
// (whoever's turn it is when "") writes turn; field "" wants it accepted, else refused on field with a
// rule containing frag.
type turnCase struct {
	name  string
	setup func(*testing.T) *Debate
	pid   string
	turn  DebateTurn
	field string
	frag  string
}

// runTurnCases runs each case as a subtest of t against p.
func runTurnCases(t *testing.T, p *Protocol, cases []turnCase) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := c.setup(t)
			if c.pid == "" {
				c.pid = p.WhoseTurn(d).ParticipantID
			}
			wantTurnError(t, p.ValidateTurn(d, c.pid, &c.turn, nil), c.field, c.frag)
		})
	}
}
