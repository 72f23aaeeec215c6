package model

import (
	"fmt"
	"slices"
	"strings"
)

// Review verdicts on a point (seed 003: Agreed / Partially agreed / Disagreed).
const (
	ReplyAgreed          = "agreed"
	ReplyPartiallyAgreed = "partially_agreed"
	ReplyDisagreed       = "disagreed"
)

// ReplyVerdicts lists the review verdicts.
var ReplyVerdicts = []string{ReplyAgreed, ReplyPartiallyAgreed, ReplyDisagreed}

// Review outcomes and roles.
const (
	ReviewConsensusOutcome = "consensus"
	ReviewPartial          = "partial"
	ReviewInvalidated      = "invalidated"
	RoleReviewer           = "reviewer"
	RoleResponder          = "responder"
)

// Review is code-debate's review: the reviewer raises numbered points, the
// responder answers each, the reviewer follows up on unresolved ones, and
// the reviewer's consensus turn closes it. A round is one response.
var Review = Protocol{
	Name:        "review",
	Seed:        "003 (code-debate)",
	Summary:     "A reviewer raises numbered points; the responder answers each point; the reviewer follows up on unresolved points; a consensus turn ends it: the reviewer's once every point is agreed (consensus), or the last writer's, either side, at the round limit (partial).",
	Roles:       []string{RoleReviewer, RoleResponder},
	Limit:       Limit{N: 5, Unit: "rounds"},
	Outcomes:    []string{ReviewConsensusOutcome, ReviewPartial, ReviewInvalidated},
	Invalidated: ReviewInvalidated,
	Fields: []Field{
		{Name: "body", Type: "string (Markdown)", Roles: []string{RoleReviewer}, Rule: "free-form analysis; a first turn without points is one point, 1, the whole review"},
		{Name: "points", Type: "[{point, text}]", Roles: []string{RoleReviewer}, Rule: "the reviewer's first turn only (or a free-form body): numbered 1, 2, ... in order"},
		{Name: "follow_ups", Type: "[{point, text}]", Roles: []string{RoleReviewer}, Rule: "later reviewer turns: non-empty, naming only points that are not agreed; not after the round limit"},
		{Name: "replies", Type: "[{point, verdict, reasoning}]", Roles: []string{RoleResponder}, Required: true, Enum: ReplyVerdicts, Rule: "exactly one reply per point of the reviewer turn it answers; reasoning unless agreed"},
		{Name: "consensus", Type: "{agreed[], action_items[], disagreements[{point, text}]}", Rule: "the closing turn of the last writer, whichever side, once every point is agreed or the round limit is reached: agreed lists exactly the agreed points, disagreements every other point"},
	},
	validate:     validateReview,
	next:         nextReview,
	terminal:     terminalReview,
	Title:        "Code Debate",
	SubjectTitle: true,
	Bare:         true,
	Layout:       renderReview,
	Help:         "review (reviewer then responder, 5 rounds; --subject names what is reviewed)",
	StartFlags:   "--subject TEXT",
	CloseRules: map[string]string{
		ReviewConsensusOutcome: "a consensus turn closes the review once every point is agreed (the reviewer's, or the responder's with the reply that agrees the last point)",
		ReviewPartial:          "at the round limit the last writer, either side, appends the consensus turn listing what remains: the responder with its last reply, else the reviewer next",
	},
	Doc:     reviewDoc,
	closing: func(d *Debate) bool { return len(d.Turns) > 0 && d.Turns[len(d.Turns)-1].Consensus != nil },
}

// reviewState is what the turns say about the points so far.
type reviewState struct {
	points  int            // points raised: 1..points
	verdict map[int]string // each point's latest verdict
	rounds  int            // responder turns
	asked   []int          // the points of the latest reviewer turn
}

func reviewOf(d *Debate) reviewState {
	s := reviewState{verdict: map[int]string{}}
	for _, t := range d.Turns {
		switch t.Role {
		case RoleReviewer:
			s.asked = nil
			if s.points == 0 && len(t.Points) == 0 && t.Body != "" {
				// A free-form review is one point: the whole review.
				s.points, s.asked = 1, []int{1}
			}
			for _, p := range t.Points {
				s.points = max(s.points, p.Point)
				s.asked = append(s.asked, p.Point)
			}
			for _, p := range t.FollowUps {
				s.asked = append(s.asked, p.Point)
			}
		case RoleResponder:
			s.rounds++
			for _, r := range t.Replies {
				s.verdict[r.Point] = r.Verdict
			}
		}
	}
	return s
}

// unagreed lists the points whose latest verdict is not agreed.
func (s reviewState) unagreed() []int {
	var out []int
	for p := 1; p <= s.points; p++ {
		if s.verdict[p] != ReplyAgreed {
			out = append(out, p)
		}
	}
	return out
}

func validateReview(_ *Protocol, d *Debate, _, role string, t *DebateTurn, _ []byte) error {
	// Which role writes which field is checked from Fields before this.
	s := reviewOf(d)
	if role == RoleResponder {
		if err := checkReplies(t.Replies, s.asked); err != nil || t.Consensus == nil {
			return err
		}
		// The last writer at the round limit may be the responder: its
		// consensus is checked against the verdicts this turn gives.
		after := *d
		after.Turns = append(slices.Clone(d.Turns), *t)
		after.Turns[len(after.Turns)-1].Role = role
		s = reviewOf(&after)
		if open := s.unagreed(); len(open) > 0 && s.rounds < d.MaxTurns {
			return &TurnError{Field: "consensus", Rule: fmt.Sprintf("points %v are not agreed and this reply is not the last round (%d of %d); the reviewer follows up", open, s.rounds, d.MaxTurns)}
		}
		return checkConsensus(t.Consensus, s)
	}
	if s.points == 0 {
		if err := firstErr(
			forbid("follow_ups", len(t.FollowUps) > 0, "the first review turn raises points; there is nothing to follow up yet"),
			forbid("consensus", t.Consensus != nil, "the first review turn raises points; there is nothing to agree on yet"),
		); err != nil {
			return err
		}
		if len(t.Points) == 0 && strings.TrimSpace(t.Body) == "" {
			return &TurnError{Field: "points", Rule: "the review needs numbered points or a free-form body"}
		}
		for i, p := range t.Points {
			f := fmt.Sprintf("points[%d]", i)
			if p.Point != i+1 {
				return &TurnError{Field: f + ".point", Rule: fmt.Sprintf("points are numbered 1, 2, ... in order; want %d, not %d", i+1, p.Point)}
			}
			if err := need(f+".text", p.Text); err != nil {
				return err
			}
		}
		return nil
	}
	if err := forbid("points", len(t.Points) > 0, "points are raised in the first review turn only; follow up instead"); err != nil {
		return err
	}
	open := s.unagreed()
	atLimit := s.rounds >= d.MaxTurns
	switch {
	case t.Consensus != nil && len(t.FollowUps) > 0:
		return &TurnError{Field: "follow_ups", Rule: "a consensus turn takes no follow-ups"}
	case t.Consensus != nil:
		if len(open) > 0 && !atLimit {
			return &TurnError{Field: "consensus", Rule: fmt.Sprintf("points %v are not agreed and the round limit (%d) is not reached; follow up on them", open, d.MaxTurns)}
		}
		return checkConsensus(t.Consensus, s)
	case atLimit:
		return &TurnError{Field: "consensus", Rule: fmt.Sprintf("the round limit (%d) is reached: this turn must be the consensus, listing the remaining disagreements", d.MaxTurns)}
	case len(t.FollowUps) == 0:
		return &TurnError{Field: "follow_ups", Rule: "a later reviewer turn needs follow-ups on unresolved points, or the consensus"}
	}
	seen := map[int]bool{}
	for i, f := range t.FollowUps {
		field := fmt.Sprintf("follow_ups[%d]", i)
		switch {
		case f.Point < 1 || f.Point > s.points:
			return &TurnError{Field: field + ".point", Rule: fmt.Sprintf("point %d does not exist; the review has points 1..%d", f.Point, s.points)}
		case !slices.Contains(open, f.Point):
			return &TurnError{Field: field + ".point", Rule: fmt.Sprintf("point %d is already agreed; follow up only on unresolved points %v", f.Point, open)}
		case seen[f.Point]:
			return &TurnError{Field: field + ".point", Rule: fmt.Sprintf("point %d is named twice", f.Point)}
		}
		seen[f.Point] = true
		if err := need(field+".text", f.Text); err != nil {
			return err
		}
	}
	return nil
}

// checkReplies wants exactly one reply per asked point.
func checkReplies(replies []ReviewReply, asked []int) error {
	if len(replies) == 0 {
		return &TurnError{Field: "replies", Rule: fmt.Sprintf("reply to each of points %v", asked)}
	}
	seen := map[int]bool{}
	for i, r := range replies {
		f := fmt.Sprintf("replies[%d]", i)
		switch {
		case !slices.Contains(asked, r.Point):
			return &TurnError{Field: f + ".point", Rule: fmt.Sprintf("point %d was not raised in the turn this answers; reply to points %v", r.Point, asked)}
		case seen[r.Point]:
			return &TurnError{Field: f + ".point", Rule: fmt.Sprintf("point %d is answered twice", r.Point)}
		}
		seen[r.Point] = true
		if err := enum(f+".verdict", r.Verdict, ReplyVerdicts); err != nil {
			return err
		}
		if r.Verdict != ReplyAgreed {
			if err := need(f+".reasoning", r.Reasoning); err != nil {
				return err
			}
		}
	}
	for _, p := range asked {
		if !seen[p] {
			return &TurnError{Field: "replies", Rule: fmt.Sprintf("point %d has no reply; reply to each of points %v", p, asked)}
		}
	}
	return nil
}

// checkConsensus wants agreed to list exactly the agreed points and
// disagreements every other point, each once.
func checkConsensus(c *ReviewConsensus, s reviewState) error {
	open := s.unagreed()
	var agreed []int
	for p := 1; p <= s.points; p++ {
		if !slices.Contains(open, p) {
			agreed = append(agreed, p)
		}
	}
	got := slices.Clone(c.Agreed)
	slices.Sort(got)
	if !slices.Equal(got, agreed) {
		return &TurnError{Field: "consensus.agreed", Rule: fmt.Sprintf("lists %v; the agreed points are %v", c.Agreed, agreed)}
	}
	var dis []int
	for i, x := range c.Disagreements {
		if err := need(fmt.Sprintf("consensus.disagreements[%d].text", i), x.Text); err != nil {
			return err
		}
		dis = append(dis, x.Point)
	}
	slices.Sort(dis)
	if !slices.Equal(dis, open) {
		return &TurnError{Field: "consensus.disagreements", Rule: fmt.Sprintf("names points %v; the unresolved points are %v", dis, open)}
	}
	for i, a := range c.ActionItems {
		if err := need(fmt.Sprintf("consensus.action_items[%d]", i), a); err != nil {
			return err
		}
	}
	return nil
}

func nextReview(d *Debate, st TurnState) TurnState {
	s := reviewOf(d)
	if st.Role == RoleResponder && s.points > 0 && s.rounds+1 >= d.MaxTurns {
		st.Advice = fmt.Sprintf("this reply is round %d, the last (seed 003: the last writer appends the consensus): carry the consensus with your replies, listing what remains in disagreements, or leave it to the reviewer after you", s.rounds+1)
	}
	if st.Role != RoleReviewer {
		return st
	}
	switch {
	case s.points == 0:
	case s.rounds >= d.MaxTurns:
		st.Require = "consensus"
		st.Advice = fmt.Sprintf("the round limit (%d) is reached and the responder's last reply carried no consensus: the reviewer, the last writer now, must write the consensus turn, listing the remaining disagreements", d.MaxTurns)
	case len(s.unagreed()) == 0:
		st.Require = "consensus"
		st.Advice = "every point is agreed: the reviewer writes the consensus turn"
	}
	return st
}

func terminalReview(d *Debate) Assessment {
	if len(d.Turns) == 0 {
		return Assessment{}
	}
	c := d.Turns[len(d.Turns)-1].Consensus
	switch {
	case c == nil:
		return Assessment{}
	case len(c.Disagreements) == 0:
		return Assessment{Closed: true, Outcome: ReviewConsensusOutcome, Reason: fmt.Sprintf("every point is agreed and the %s wrote the consensus", d.Turns[len(d.Turns)-1].Role)}
	default:
		return Assessment{Closed: true, Outcome: ReviewPartial, Reason: fmt.Sprintf("the round limit (%d) was reached with %s not agreed; the %s, the last writer, wrote the consensus", d.MaxTurns, Count(len(c.Disagreements), "point"), d.Turns[len(d.Turns)-1].Role)}
	}
}
