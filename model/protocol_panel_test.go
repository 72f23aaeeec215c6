package model

import (
	"strings"
	"testing"
)

// panelAt is a panel whose three seats are taken, after turns bodies, each
// by the participant whose turn it is.
func panelAt(t *testing.T, bodies ...string) *Debate {
	t.Helper()
	d := newDebate(&Panel)
	joinAll(t, &Panel, d, "pia", "oto", "jude")
	for _, b := range bodies {
		play(t, &Panel, d, Panel.WhoseTurn(d).ParticipantID, DebateTurn{Body: b})
	}
	return d
}

func TestPanelOrderAndRefusals(t *testing.T) {
	d := newDebate(&Panel)
	for _, want := range []string{RoleProponent, RoleOpponent, RoleJudge} {
		if got, err := Panel.JoinRole(d); err != nil || got != want {
			t.Fatalf("joiner %d gets role %q (%v); want %s", len(d.Participants)+1, got, err, want)
		}
		joinAll(t, &Panel, d, want+"-agent")
	}
	if _, err := Panel.JoinRole(d); err == nil {
		t.Error("a fourth joiner was given a seat; want a refusal")
	}
	verdict := &Conclusion{Outcome: PanelUpheld, Text: "the claim holds"}
	cases := []struct {
		name   string
		before []string
		turn   DebateTurn
		field  string
		frag   string
	}{
		{"proponent argues", nil, DebateTurn{Body: "for"}, "", ""},
		{"empty body", nil, DebateTurn{Body: " "}, "body", "must not be empty"},
		{"proponent gives a verdict", nil, DebateTurn{Body: "for", Conclusion: verdict}, "conclusion", "only the judge role writes it"},
		{"opponent gives a verdict", []string{"for"}, DebateTurn{Body: "against", Conclusion: verdict}, "conclusion", "only the judge role writes it"},
		{"judge asks in round 1", []string{"for", "against"}, DebateTurn{Body: "why?"}, "", ""},
		{"judge rules in round 1", []string{"for", "against"}, DebateTurn{Body: "enough", Conclusion: verdict}, "", ""},
		{"verdict out of range", []string{"for", "against"}, DebateTurn{Body: "b", Conclusion: &Conclusion{Outcome: "win", Text: "x"}}, "conclusion.outcome", `"win" is not accepted`},
		{"verdict without reasons", []string{"for", "against"}, DebateTurn{Body: "b", Conclusion: &Conclusion{Outcome: PanelSplit, Text: ""}}, "conclusion.text", "required"},
		{"judge only asks in the last round", []string{"f", "a", "q", "f", "a", "q", "f", "a"}, DebateTurn{Body: "more?"}, "conclusion", "must give the verdict now"},
		{"a JSON field of another protocol", nil, DebateTurn{Body: "b", Signal: SignalApprove}, "signal", "is not a field of the panel protocol"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := panelAt(t, tc.before...)
			err := Panel.ValidateTurn(d, Panel.WhoseTurn(d).ParticipantID, &tc.turn, nil)
			wantTurnError(t, err, tc.field, tc.frag)
		})
	}
	// Out of order: the opponent may not write the proponent's turn.
	d = panelAt(t)
	if err := Panel.ValidateTurn(d, "p2", &DebateTurn{Body: "against"}, nil); err == nil || !strings.Contains(err.Error(), "p1 (proponent) writes turn 1") {
		t.Errorf("the opponent writing turn 1: %v; want a refusal naming p1 (proponent)", err)
	}
}

func TestPanelVerdictCloses(t *testing.T) {
	d := panelAt(t, "for", "against", "why?", "because", "granted")
	if s := Panel.WhoseTurn(d); s.Role != RoleJudge || s.Require != "" {
		t.Errorf("round 2's judge: %+v; want the judge, nothing required", s)
	}
	for _, v := range PanelVerdicts {
		d := panelAt(t, "for", "against")
		a := play(t, &Panel, d, "p3", DebateTurn{Body: "weighed", Conclusion: &Conclusion{Outcome: v, Text: "reasons"}})
		if !a.Closed || a.Outcome != v || d.Status != DebateCompleted {
			t.Errorf("verdict %s: %+v, status %s; want closed with %s, completed", v, a, d.Status, v)
		}
		if err := Panel.ValidateTurn(d, "p1", &DebateTurn{Body: "more"}, nil); err == nil {
			t.Errorf("verdict %s: a turn after it was taken; want a refusal", v)
		}
	}
	// The last round's judge must rule: next says so.
	d = panelAt(t, "f", "a", "q", "f", "a", "q", "f", "a")
	if s := Panel.WhoseTurn(d); s.Role != RoleJudge || s.Require != "conclusion" {
		t.Errorf("round 3's judge: %+v; want the judge with require=conclusion", s)
	}
	if a := Panel.Terminal(d); a.Closed {
		t.Errorf("8 turns without a verdict closed the panel: %+v", a)
	}
}

func TestPanelLayout(t *testing.T) {
	d := panelAt(t, "for", "against", "why?", "because")
	play(t, &Panel, d, "p2", DebateTurn{Body: "granted"})
	play(t, &Panel, d, "p3", DebateTurn{Body: "weighed", Conclusion: &Conclusion{Outcome: PanelOverturned, Text: "the cost wins"}})
	var b strings.Builder
	Panel.Layout(&b, d)
	got := b.String()
	for _, want := range []string{
		"## Round 1\n\n### Proponent — pia (unknown harness / unknown model) (turn 1)\n\n> for\n\n",
		"### Opponent — oto (unknown harness / unknown model) (turn 2)\n\n> against\n\n",
		"### Judge — jude (unknown harness / unknown model) (turn 3)\n\n> why?\n\n## Round 2\n\n",
		"### Judge — jude (unknown harness / unknown model) (turn 6)\n\n> weighed\n\n**Verdict: overturned**\n\n> the cost wins\n\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the panel transcript lacks %q:\n%s", want, got)
		}
	}
	if strings.Count(got, "## Round ") != 2 {
		t.Errorf("the panel transcript has %d rounds; want 2:\n%s", strings.Count(got, "## Round "), got)
	}
}
