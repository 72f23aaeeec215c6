package model_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/proofloop/proofloop/internal/protocoltest"
	"github.com/proofloop/proofloop/model"
)

// TestAddProtocolReusingJudge adds tribunal, which reuses panel's roles
// with verdicts of its own: its judge's verdict is one of tribunal's, never
// panel's upheld, and panel's judge still refuses tribunal's; the undo
// leaves the five protocols. run_protocol_reuses_judge.txtar runs its
// example debate under run.
func TestAddProtocolReusingJudge(t *testing.T) {
	before := model.ProtocolNames()
	undo := model.AddProtocol(protocoltest.Tribunal())
	p, err := model.LookupProtocol("tribunal")
	if err != nil {
		undo()
		t.Fatalf("LookupProtocol(tribunal) after AddProtocol: %v", err)
	}
	if got := p.OwnRoles(); !slices.Contains(got, model.RoleJudge) {
		t.Errorf("tribunal's roles are %v; want judge among them", got)
	}
	verdict := func(p *model.Protocol, outcome string) error {
		d := &model.Debate{ID: "deb_t", Status: model.DebateOpen, Protocol: p.Name, Topic: "t", MaxTurns: p.Limit.N}
		for _, role := range p.Roles {
			d.Participants = append(d.Participants, model.Participant{ParticipantID: d.NextParticipantID(), Name: role, Role: role})
		}
		d.Turns = []model.DebateTurn{{TurnNumber: 1, ParticipantID: "p1", Role: model.RoleProponent, Body: "for"},
			{TurnNumber: 2, ParticipantID: "p2", Role: model.RoleOpponent, Body: "against"}}
		return p.ValidateTurn(d, "p3", &model.DebateTurn{Body: "so", Conclusion: &model.Conclusion{Outcome: outcome, Text: "because"}}, nil)
	}
	for _, tc := range []struct {
		p       *model.Protocol
		outcome string
		refused bool
	}{
		{p, protocoltest.Sustained, false},
		{p, model.PanelUpheld, true},
		{&model.Panel, model.PanelUpheld, false},
		{&model.Panel, protocoltest.Sustained, true},
	} {
		err := verdict(tc.p, tc.outcome)
		var te *model.TurnError
		if refused := errors.As(err, &te) && te.Field == "conclusion.outcome"; refused != tc.refused || (!tc.refused && err != nil) {
			t.Errorf("%s judge gives %s: %v; want refused %v", tc.p.Name, tc.outcome, err, tc.refused)
		}
	}
	undo()
	if got := model.ProtocolNames(); !slices.Equal(got, before) {
		t.Errorf("protocols after the undo: %v; want %v", got, before)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "panel is a protocol already") {
			t.Errorf("AddProtocol(panel) recovered %v; want a panic naming panel", r)
		}
	}()
	model.AddProtocol(&model.Panel)
}
