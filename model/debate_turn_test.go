package model

import "testing"

// DebateTurnOf is the debate's turn as the index and the loop see it: the
// joiner's role, the writer's role, or nobody once closed.
func TestDebateTurnOf(t *testing.T) {
	d := newDebate(&Socratic)
	if got := DebateTurnOf(d); got.Role != "participant" || got.Reason != "waits for a participant to join" {
		t.Errorf("new debate: got %+v; want participant, waits for a participant to join", got)
	}
	joinAll(t, &Socratic, d, "alice", "bob")
	if got := DebateTurnOf(d); got.Role != "participant" || got.Reason != "p1 (participant) writes turn 1" {
		t.Errorf("joined: got %+v; want p1 writes turn 1", got)
	}
	d.Status, d.Outcome = DebateCompleted, &DebateOutcome{Outcome: SocraticMaxTurns}
	if got := DebateTurnOf(d); got.Role != "" || got.Outcome != SocraticMaxTurns || got.Reason != "the debate is completed: MAX_TURNS" {
		t.Errorf("closed: got %+v; want nobody, outcome MAX_TURNS", got)
	}
	d.Protocol = "duel"
	if got := DebateTurnOf(d); got.Role != "" {
		t.Errorf("unknown protocol: got role %q; want nobody", got.Role)
	}
}

// A statement with an open dispute on an issue waits for it: nobody's turn.
func TestStatementTurnWaitsForDispute(t *testing.T) {
	st := &Statement{ID: "stmt_a_wrap", Status: StatementHasGap}
	st.Validate.Issues = []Issue{{IssueNumber: 1}}
	if got := StatementTurn(st, nil, Policy{MaxRounds: 5}); got.Role != RoleFix {
		t.Fatalf("no dispute: got %+v; want fix", got)
	}
	st.Validate.Issues[0].Dispute = &IssueDispute{Debate: "deb_x", OpenedAt: "2026-01-01T00:00:00Z"}
	if got := StatementTurn(st, nil, Policy{MaxRounds: 5}); got.Role != "" || got.Outcome != OutcomeWaiting {
		t.Errorf("open dispute: got %+v; want nobody, waiting", got)
	}
	closed := "2026-01-02T00:00:00Z"
	st.Validate.Issues[0].Dispute.ClosedAt = &closed
	if got := StatementTurn(st, nil, Policy{MaxRounds: 5}); got.Role != RoleFix {
		t.Errorf("closed dispute: got %+v; want fix", got)
	}
	st.Validate.Issues[0].WithdrawnAt = &closed
	if got := st.OpenIssues(); len(got) != 0 {
		t.Errorf("withdrawn issue: open issues %v; want none", got)
	}
}

func TestParseTurnStripsAJSONFence(t *testing.T) {
	for _, in := range []string{"```json\n{\"signal\": \"propose\"}\n```", "  ```\n{\"signal\": \"propose\"}\n```\n"} {
		tt, err := ParseTurn([]byte(in))
		if err != nil || tt.Signal != "propose" {
			t.Errorf("ParseTurn(%q) = %+v, %v; want the fenced turn", in, tt, err)
		}
	}
	for _, in := range []string{"I propose tabs.", "```yaml\nsignal: propose\n```", "Here: ```json\n{}\n```"} {
		if _, err := ParseTurn([]byte(in)); err == nil {
			t.Errorf("ParseTurn(%q) accepted; want prose and other fences refused", in)
		}
	}
}
