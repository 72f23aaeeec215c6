package model

import (
	"fmt"
	"strings"
	"testing"
)

func TestDialecticValidateTurn(t *testing.T) {
	sum := func(o string, f func(*Conclusion)) *Conclusion {
		c := concl(o, "text")
		f(c)
		return c
	}
	atPartner := func(t *testing.T) *Debate {
		d := newDebate(&Dialectic)
		joinAll(t, &Dialectic, d, "claude", "codex")
		play(t, &Dialectic, d, "p1", DebateTurn{Body: "my view"})
		return d
	}
	atMain := func(t *testing.T) *Debate {
		d := atPartner(t)
		play(t, &Dialectic, d, "p2", DebateTurn{Body: "a challenge"})
		return d
	}
	runTurnCases(t, &Dialectic, []turnCase{
		{"partner with suggestions", atPartner, "p2", DebateTurn{Body: "b", Suggestions: []SuggestionInput{{"add a test"}}}, "", ""},
		{"empty body", atPartner, "p2", DebateTurn{Body: "\n"}, "body", "must not be empty"},
		{"empty suggestion", atPartner, "p2", DebateTurn{Body: "b", Suggestions: []SuggestionInput{{""}}}, "suggestions[0].text", "required"},
		{"partner concludes", atPartner, "p2", DebateTurn{Body: "b", Conclusion: &Conclusion{Outcome: DialecticConsensus, Text: "x"}}, "conclusion", "only the main role writes it"},
		{"main suggests", atMain, "p1", DebateTurn{Body: "b", Suggestions: []SuggestionInput{{"x"}}}, "suggestions", "only the partner role writes it"},
		{"user suggests", atMain, ParticipantUser, DebateTurn{Body: "b", Suggestions: []SuggestionInput{{"x"}}}, "suggestions", "only the partner role writes it"},
		{"user concludes", atMain, ParticipantUser, DebateTurn{Body: "b", Conclusion: &Conclusion{Outcome: DialecticConsensus, Text: "x"}}, "conclusion", "only the main role writes it"},
		{"user interjects", atMain, ParticipantUser, DebateTurn{Body: "please consider cost"}, "", ""},
		{"main concludes", atMain, "p1", DebateTurn{Body: "b", Conclusion: concl(DialecticPartial, "we agree on half")}, "", ""},
		{"conclusion out of range", atMain, "p1", DebateTurn{Body: "b", Conclusion: &Conclusion{Outcome: "win", Text: "x"}}, "conclusion.outcome", `"win" is not accepted`},
		{"conclusion without text", atMain, "p1", DebateTurn{Body: "b", Conclusion: &Conclusion{Outcome: DialecticConsensus, Text: ""}}, "conclusion.text", "required"},
		// Seed 001's summaries: a consensus presents the agreed points and
		// key insights, a disagreement each side's position and the open
		// points; a paragraph alone is refused.
		{"consensus, text only", atMain, "p1", DebateTurn{Body: "b", Conclusion: &Conclusion{Outcome: DialecticConsensus, Text: "we agree"}}, "conclusion.agreed", "a consensus conclusion lists its agreed points"},
		{"consensus without insights", atMain, "p1", DebateTurn{Body: "b", Conclusion: sum(DialecticConsensus, func(c *Conclusion) { c.Insights = nil })}, "conclusion.insights", "lists its key insights"},
		{"consensus with a blank insight", atMain, "p1", DebateTurn{Body: "b", Conclusion: sum(DialecticConsensus, func(c *Conclusion) { c.Insights = []string{" "} })}, "conclusion.insights[0]", "must not be empty"},
		{"consensus with open points", atMain, "p1", DebateTurn{Body: "b", Conclusion: sum(DialecticConsensus, func(c *Conclusion) { c.OpenPoints = []string{"x"} })}, "conclusion.open_points", "conclude partial instead"},
		{"consensus, whole", atMain, "p1", DebateTurn{Body: "b", Conclusion: concl(DialecticConsensus, "we agree")}, "", ""},
		{"disagreement without positions", atMain, "p1", DebateTurn{Body: "b", Conclusion: sum(DialecticDisagreement, func(c *Conclusion) { c.Positions = nil })}, "conclusion.positions", "each side's position, main's and partner's"},
		{"disagreement, one side", atMain, "p1", DebateTurn{Body: "b", Conclusion: sum(DialecticDisagreement, func(c *Conclusion) { c.Positions = c.Positions[:1] })}, "conclusion.positions", "main's and partner's"},
		{"disagreement, a side twice", atMain, "p1", DebateTurn{Body: "b", Conclusion: sum(DialecticDisagreement, func(c *Conclusion) { c.Positions[1].Role = RoleMain })}, "conclusion.positions[1].role", "given twice"},
		{"disagreement, an unknown side", atMain, "p1", DebateTurn{Body: "b", Conclusion: sum(DialecticDisagreement, func(c *Conclusion) { c.Positions[1].Role = "user" })}, "conclusion.positions[1].role", `"user" is not a side`},
		{"disagreement without open points", atMain, "p1", DebateTurn{Body: "b", Conclusion: sum(DialecticDisagreement, func(c *Conclusion) { c.OpenPoints = nil })}, "conclusion.open_points", "lists its open points"},
		{"partial without agreed points", atMain, "p1", DebateTurn{Body: "b", Conclusion: sum(DialecticPartial, func(c *Conclusion) { c.Agreed = nil })}, "conclusion.agreed", "lists its agreed points"},
		{"a signal in a dialectic", atMain, "p1", DebateTurn{Body: "b", Signal: SignalApprove}, "signal", "is not a field of the dialectic protocol"},
	})
}

func TestDialecticUserKeepsAlternation(t *testing.T) {
	d := newDebate(&Dialectic)
	joinAll(t, &Dialectic, d, "claude", "codex")
	play(t, &Dialectic, d, "p1", DebateTurn{Body: "view"})
	play(t, &Dialectic, d, ParticipantUser, DebateTurn{Body: "interjection"})
	play(t, &Dialectic, d, ParticipantUser, DebateTurn{Body: "another"})
	if s := Dialectic.WhoseTurn(d); s.ParticipantID != "p2" || s.Role != RolePartner || s.TurnNumber != 4 {
		t.Errorf("WhoseTurn after user turns = %+v; want p2 partner, turn 4", s)
	}
	if r := d.Turns[1].Role; r != RoleUser {
		t.Errorf("user turn role %q; want user", r)
	}
	if a := play(t, &Dialectic, d, "p2", DebateTurn{Body: "challenge"}); a.Closed || DialecticRounds(d) != 1 {
		t.Errorf("after one round: %+v, rounds %d; want open, 1", a, DialecticRounds(d))
	}
}

func TestDialecticSoftLimitAndClose(t *testing.T) {
	d := newDebate(&Dialectic)
	joinAll(t, &Dialectic, d, "claude", "codex")
	var a Assessment
	for r := 1; r <= 10; r++ {
		if s := Dialectic.WhoseTurn(d); s.Advice != "" {
			t.Fatalf("advice before round %d: %q", r, s.Advice)
		}
		play(t, &Dialectic, d, "p1", DebateTurn{Body: fmt.Sprint("view ", r)})
		a = play(t, &Dialectic, d, "p2", DebateTurn{Body: fmt.Sprint("challenge ", r)})
	}
	if a.Closed || !a.SoftLimitReached {
		t.Errorf("after 10 rounds: %+v; want open with the soft limit reached", a)
	}
	s := Dialectic.WhoseTurn(d)
	if s.ParticipantID != "p1" || s.Advice == "" {
		t.Errorf("WhoseTurn after the soft limit = %+v; want p1 with advice", s)
	}
	// Nothing stops the debate: an 11th round is accepted.
	play(t, &Dialectic, d, "p1", DebateTurn{Body: "view 11"})
	play(t, &Dialectic, d, "p2", DebateTurn{Body: "challenge 11"})
	a = play(t, &Dialectic, d, "p1", DebateTurn{Body: "summary", Conclusion: concl(DialecticDisagreement, "we differ")})
	if !a.Closed || a.Outcome != DialecticDisagreement || d.Status != DebateCompleted {
		t.Errorf("conclusion: %+v, status %s; want disagreement, completed", a, d.Status)
	}
	tt := DebateTurn{Body: "late"}
	wantRefusal(t, Dialectic.ValidateTurn(d, ParticipantUser, &tt, nil), "the debate is completed")
}

// TestWhoseTurn walks each protocol through joins and turns.
func TestWhoseTurn(t *testing.T) {
	type want struct{ pid, role, join string }
	type step struct {
		join string     // a participant name to join, or
		pid  string     // a writer
		turn DebateTurn // its turn
		want want       // the state after the step
	}
	positions := func(d *Debate) { d.Positions = []Position{{"pro", "a"}, {"con", "b"}, {"judge", "c"}} }
	cases := []struct {
		p     *Protocol
		mut   []func(*Debate)
		start want
		steps []step
	}{
		{&Socratic, nil, want{join: "participant"}, []step{
			// No turn before the second participant joins (seed 000).
			{join: "a", want: want{join: "participant"}},
			{join: "b", want: want{"p1", "participant", ""}},
			{pid: "p1", turn: sTurn(StanceOpen, true), want: want{"p2", "participant", ""}},
			{pid: "p2", turn: sTurn(StanceOpen, true), want: want{"p1", "participant", ""}},
		}},
		{&Review, nil, want{join: RoleReviewer}, []step{
			{join: "a", want: want{"p1", RoleReviewer, ""}},
			{join: "b", want: want{"p1", RoleReviewer, ""}},
			{pid: "p1", turn: DebateTurn{Points: []ReviewPoint{{1, "x"}}}, want: want{"p2", RoleResponder, ""}},
			{pid: "p2", turn: DebateTurn{Replies: []ReviewReply{reply(1, ReplyDisagreed)}}, want: want{"p1", RoleReviewer, ""}},
		}},
		{&Agora, []func(*Debate){positions}, want{join: "pro"}, []step{
			{join: "a", want: want{"p1", "pro", ""}},
			{pid: "p1", turn: agoraTurn(SignalPropose, "", 0.5), want: want{join: "con"}},
			{join: "b", want: want{"p2", "con", ""}},
			{pid: "p2", turn: agoraTurn(SignalNoChange, "", 0.5), want: want{join: "judge"}},
			{join: "c", want: want{"p3", "judge", ""}},
			{pid: "p3", turn: agoraTurn(SignalDefer, "", 0.5), want: want{"p1", "pro", ""}},
		}},
		{&Dialectic, nil, want{join: RoleMain}, []step{
			{join: "a", want: want{"p1", RoleMain, ""}},
			{pid: ParticipantUser, turn: DebateTurn{Body: "hi"}, want: want{"p1", RoleMain, ""}},
			{pid: "p1", turn: DebateTurn{Body: "v"}, want: want{join: RolePartner}},
			{join: "b", want: want{"p2", RolePartner, ""}},
			{pid: "p2", turn: DebateTurn{Body: "c"}, want: want{"p1", RoleMain, ""}},
		}},
	}
	for _, c := range cases {
		t.Run(c.p.Name, func(t *testing.T) {
			d := newDebate(c.p, c.mut...)
			check := func(at string, w want) {
				s := c.p.WhoseTurn(d)
				if s.ParticipantID != w.pid || s.Role != w.role || s.JoinRole != w.join || s.TurnNumber != len(d.Turns)+1 || s.Closed {
					t.Errorf("%s: WhoseTurn = %+v; want %+v, turn %d", at, s, w, len(d.Turns)+1)
				}
			}
			check("start", c.start)
			for i, s := range c.steps {
				if s.join != "" {
					joinAll(t, c.p, d, s.join)
				} else {
					play(t, c.p, d, s.pid, s.turn)
				}
				check(fmt.Sprintf("step %d", i+1), s.want)
			}
			d.Status = DebateInvalidated
			if s := c.p.WhoseTurn(d); !s.Closed || s.ParticipantID != "" || s.JoinRole != "" {
				t.Errorf("WhoseTurn on a closed debate = %+v; want closed, nobody", s)
			}
		})
	}
}

func TestDialecticConclusionWaitsForPendingSuggestions(t *testing.T) {
	d := newDebate(&Dialectic)
	joinAll(t, &Dialectic, d, "a", "b")
	play(t, &Dialectic, d, "p1", DebateTurn{Body: "v"})
	play(t, &Dialectic, d, "p2", DebateTurn{Body: "c", Suggestions: []SuggestionInput{{"s"}, {"t"}}})
	end := DebateTurn{Body: "end", Conclusion: concl(DialecticConsensus, "done")}
	wantTurnError(t, Dialectic.ValidateTurn(d, "p1", &end, nil), "conclusion", "suggestion 1 is pending")
	if err := d.DecideSuggestion(1, false, "ann", at0); err != nil {
		t.Fatal(err)
	}
	wantTurnError(t, Dialectic.ValidateTurn(d, "p1", &end, nil), "conclusion", "suggestion 2 is pending")
	end.Conclusion.LeftOpen = []int{1}
	wantTurnError(t, Dialectic.ValidateTurn(d, "p1", &end, nil), "conclusion.left_open[0]", "suggestion 1 is not pending")
	end.Conclusion.LeftOpen = []int{2}
	if err := Dialectic.ValidateTurn(d, "p1", &end, nil); err != nil {
		t.Errorf("conclusion naming the pending suggestion as left open: %v; want nil", err)
	}
}

// TestDialecticGuide checks what the /debate skill tells main that no engine
// rule can: ask the user with the host's question tool, the topic first
// (seed 001: `/debate` without a topic asks for one), and choose the
// partner's agent type by the topic, with how the partner records it and a
// fallback (seed 001's dynamic agent selection).
func TestDialecticGuide(t *testing.T) {
	for _, want := range []string{
		"AskUserQuestion", "confirm topic, focus and your initial leaning",
		"agent type by the topic", "`general-purpose`", "`--agent-type T`", "`--fallback-from T --fallback-reason WHY`",
	} {
		if !strings.Contains(Dialectic.Doc.Guide, want) {
			t.Errorf("the dialectic guide does not say %q:\n%s", want, Dialectic.Doc.Guide)
		}
	}
}
