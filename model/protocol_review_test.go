package model

import (
	"strings"
	"testing"
)

func reply(p int, v string) ReviewReply {
	return ReviewReply{Point: p, Verdict: v, Reasoning: "because " + v}
}

// reviewAt3 has a review of points 1..3 and a response agreeing with 1 only:
// the reviewer writes turn 3.
func reviewAt3(t *testing.T) *Debate {
	d := newDebate(&Review)
	joinAll(t, &Review, d, "rev", "resp")
	play(t, &Review, d, "p1", DebateTurn{Points: []ReviewPoint{{1, "naming"}, {2, "a race"}, {3, "no test"}}})
	play(t, &Review, d, "p2", DebateTurn{Replies: []ReviewReply{reply(1, ReplyAgreed), reply(2, ReplyDisagreed), reply(3, ReplyPartiallyAgreed)}})
	return d
}

func TestReviewValidateTurn(t *testing.T) {
	fresh := func(t *testing.T) *Debate {
		d := newDebate(&Review)
		joinAll(t, &Review, d, "rev", "resp")
		return d
	}
	afterFollowUp := func(t *testing.T) *Debate {
		d := reviewAt3(t)
		play(t, &Review, d, "p1", DebateTurn{FollowUps: []ReviewPoint{{2, "see line 40"}}})
		return d
	}
	runTurnCases(t, &Review, []turnCase{
		{"first review", fresh, "p1", DebateTurn{Points: []ReviewPoint{{1, "a"}, {2, "b"}}}, "", ""},
		{"first review without points or body", fresh, "p1", DebateTurn{}, "points", "numbered points or a free-form body"},
		{"a free-form first review", fresh, "p1", DebateTurn{Body: "The lock is taken twice on the error path."}, "", ""},
		{"points out of order", fresh, "p1", DebateTurn{Points: []ReviewPoint{{1, "a"}, {3, "b"}}}, "points[1].point", "want 2, not 3"},
		{"empty point", fresh, "p1", DebateTurn{Points: []ReviewPoint{{1, ""}}}, "points[0].text", "required"},
		{"follow-up in the first review", fresh, "p1", DebateTurn{Points: []ReviewPoint{{1, "a"}}, FollowUps: []ReviewPoint{{1, "x"}}}, "follow_ups", "nothing to follow up"},
		{"a stance in a review", fresh, "p1", DebateTurn{Stance: StanceOpen, Points: []ReviewPoint{{1, "a"}}}, "stance", "is not a field of the review protocol"},
		{"reviewer replies", fresh, "p1", DebateTurn{Replies: []ReviewReply{reply(1, ReplyAgreed)}}, "replies", "only the responder role writes it, not reviewer"},
		{"follow-up on unresolved points", reviewAt3, "p1", DebateTurn{FollowUps: []ReviewPoint{{2, "x"}, {3, "y"}}}, "", ""},
		{"follow-up on an agreed point", reviewAt3, "p1", DebateTurn{FollowUps: []ReviewPoint{{1, "x"}}}, "follow_ups[0].point", "point 1 is already agreed"},
		{"follow-up on a point that does not exist", reviewAt3, "p1", DebateTurn{FollowUps: []ReviewPoint{{4, "x"}}}, "follow_ups[0].point", "point 4 does not exist"},
		{"follow-up twice on a point", reviewAt3, "p1", DebateTurn{FollowUps: []ReviewPoint{{2, "x"}, {2, "y"}}}, "follow_ups[1].point", "named twice"},
		{"new points later", reviewAt3, "p1", DebateTurn{Points: []ReviewPoint{{4, "x"}}}, "points", "first review turn only"},
		{"empty reviewer turn", reviewAt3, "p1", DebateTurn{}, "follow_ups", "needs follow-ups"},
		{"consensus too early", reviewAt3, "p1", DebateTurn{Consensus: &ReviewConsensus{Agreed: []int{1}}}, "consensus", "points [2 3] are not agreed"},
		{"replies to every point asked", reviewAt3Responder, "p2", DebateTurn{Replies: []ReviewReply{reply(3, ReplyAgreed), reply(2, ReplyDisagreed)}}, "", ""},
		{"reply to a point not asked", afterFollowUp, "p2", DebateTurn{Replies: []ReviewReply{reply(2, ReplyAgreed), reply(3, ReplyAgreed)}}, "replies[1].point", "point 3 was not raised"},
		{"a point without reply", reviewAt3Responder, "p2", DebateTurn{Replies: []ReviewReply{reply(2, ReplyAgreed)}}, "replies", "point 3 has no reply"},
		{"a point answered twice", afterFollowUp, "p2", DebateTurn{Replies: []ReviewReply{reply(2, ReplyAgreed), reply(2, ReplyAgreed)}}, "replies[1].point", "answered twice"},
		{"verdict out of range", afterFollowUp, "p2", DebateTurn{Replies: []ReviewReply{reply(2, "fine")}}, "replies[0].verdict", `"fine" is not accepted`},
		{"agreed reply without reasoning", afterFollowUp, "p2", DebateTurn{Replies: []ReviewReply{{Point: 2, Verdict: ReplyAgreed}}}, "", ""},
		{"disagreed reply without reasoning", afterFollowUp, "p2", DebateTurn{Replies: []ReviewReply{{Point: 2, Verdict: ReplyDisagreed}}}, "replies[0].reasoning", "required"},
		{"no replies", afterFollowUp, "p2", DebateTurn{}, "replies", "reply to each of points [2]"},
		{"responder raises points", afterFollowUp, "p2", DebateTurn{Points: []ReviewPoint{{1, "x"}}}, "points", "only the reviewer role writes it, not responder"},
		{"responder's consensus before the limit", afterFollowUp, "p2", DebateTurn{Replies: []ReviewReply{reply(2, ReplyDisagreed)}, Consensus: &ReviewConsensus{Agreed: []int{1, 3}, Disagreements: []Disagreement{{2, "x"}}}}, "consensus", "points [2 3] are not agreed and this reply is not the last round (2 of 5)"},
	})
}

// reviewAt3Responder follows up on points 2 and 3: the responder answers.
func reviewAt3Responder(t *testing.T) *Debate {
	d := reviewAt3(t)
	play(t, &Review, d, "p1", DebateTurn{FollowUps: []ReviewPoint{{2, "x"}, {3, "y"}}})
	return d
}

func TestReviewConsensus(t *testing.T) {
	d := reviewAt3Responder(t)
	play(t, &Review, d, "p2", DebateTurn{Replies: []ReviewReply{reply(2, ReplyAgreed), reply(3, ReplyAgreed)}})
	s := Review.WhoseTurn(d)
	if s.ParticipantID != "p1" || s.Require != "consensus" {
		t.Errorf("WhoseTurn = %+v; want p1 required to write the consensus", s)
	}
	noCons := DebateTurn{FollowUps: []ReviewPoint{{2, "x"}}}
	wantTurnError(t, Review.ValidateTurn(d, "p1", &noCons, nil), "follow_ups[0].point", "already agreed")
	wrong := DebateTurn{Consensus: &ReviewConsensus{Agreed: []int{1, 2}}}
	wantTurnError(t, Review.ValidateTurn(d, "p1", &wrong, nil), "consensus.agreed", "the agreed points are [1 2 3]")
	a := play(t, &Review, d, "p1", DebateTurn{Consensus: &ReviewConsensus{Agreed: []int{3, 1, 2}, ActionItems: []string{"rename"}}})
	if !a.Closed || a.Outcome != ReviewConsensusOutcome || d.Status != DebateCompleted {
		t.Errorf("Terminal = %+v, status %s; want consensus, completed", a, d.Status)
	}
}

func TestReviewFreeFormAndResponderConsensus(t *testing.T) {
	d := newDebate(&Review)
	joinAll(t, &Review, d, "rev", "resp")
	play(t, &Review, d, "p1", DebateTurn{Body: "The retry loop never backs off."})
	// Every point agreed in the reply: the responder, the last writer, may close it.
	a := play(t, &Review, d, "p2", DebateTurn{Replies: []ReviewReply{{Point: 1, Verdict: ReplyAgreed}}, Consensus: &ReviewConsensus{Agreed: []int{1}, ActionItems: []string{"add backoff"}}})
	if !a.Closed || a.Outcome != ReviewConsensusOutcome {
		t.Errorf("Terminal = %+v; want consensus from the responder's closing turn", a)
	}
	if !Review.ClosingInLayout(d) {
		t.Error("ClosingInLayout = false; want the CONSENSUS section to close the transcript")
	}
	// At the round limit the responder's last reply may carry the partial consensus.
	d = newDebate(&Review, func(d *Debate) { d.MaxTurns = 1 })
	joinAll(t, &Review, d, "rev", "resp")
	play(t, &Review, d, "p1", DebateTurn{Points: []ReviewPoint{{1, "naming"}, {2, "a race"}}})
	a = play(t, &Review, d, "p2", DebateTurn{Replies: []ReviewReply{reply(1, ReplyAgreed), reply(2, ReplyDisagreed)},
		Consensus: &ReviewConsensus{Agreed: []int{1}, Disagreements: []Disagreement{{2, "the race stays"}}}})
	if !a.Closed || a.Outcome != ReviewPartial || !strings.Contains(a.Reason, "the responder, the last writer, wrote the consensus") {
		t.Errorf("Terminal = %+v; want partial from the responder, the last writer at the limit", a)
	}
}

func TestReviewPartialAfterRoundLimit(t *testing.T) {
	d := newDebate(&Review)
	joinAll(t, &Review, d, "rev", "resp")
	play(t, &Review, d, "p1", DebateTurn{Points: []ReviewPoint{{1, "naming"}, {2, "a race"}}})
	for round := 1; round <= 5; round++ {
		if round > 1 {
			play(t, &Review, d, "p1", DebateTurn{FollowUps: []ReviewPoint{{2, "still racy"}}})
		}
		replies := []ReviewReply{reply(2, ReplyDisagreed)}
		if round == 1 {
			replies = []ReviewReply{reply(1, ReplyAgreed), reply(2, ReplyDisagreed)}
		}
		// The responder's last round is told that the last writer, it or
		// the reviewer after it, appends the consensus (seed 003).
		if adv := Review.WhoseTurn(d).Advice; (round == 5) != strings.Contains(adv, "the last writer appends the consensus") {
			t.Errorf("round %d: the responder's advice %q; want the last-writer rule only in round 5", round, adv)
		}
		if a := play(t, &Review, d, "p2", DebateTurn{Replies: replies}); a.Closed {
			t.Fatalf("closed after round %d", round)
		}
	}
	s := Review.WhoseTurn(d)
	if s.Role != RoleReviewer || s.Require != "consensus" {
		t.Errorf("WhoseTurn after 5 rounds = %+v; want the reviewer, required to write the consensus", s)
	}
	follow := DebateTurn{FollowUps: []ReviewPoint{{2, "once more"}}}
	wantTurnError(t, Review.ValidateTurn(d, "p1", &follow, nil), "consensus", "round limit (5) is reached")
	missing := DebateTurn{Consensus: &ReviewConsensus{Agreed: []int{1}}}
	wantTurnError(t, Review.ValidateTurn(d, "p1", &missing, nil), "consensus.disagreements", "the unresolved points are [2]")
	a := play(t, &Review, d, "p1", DebateTurn{Consensus: &ReviewConsensus{Agreed: []int{1}, Disagreements: []Disagreement{{2, "the race stays"}}}})
	if !a.Closed || a.Outcome != ReviewPartial || !strings.Contains(a.Reason, "the reviewer, the last writer, wrote the consensus") {
		t.Errorf("Terminal = %+v; want partial, written by the reviewer", a)
	}
}
