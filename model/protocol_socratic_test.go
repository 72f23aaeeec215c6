package model

import "testing"

const sourceText = "# Claim\n\nThe bound holds for all n.\nIt fails   at\nzero.\n"

// socraticAt2 is a socratic debate with a source, both joined, and p1's
// OPEN_TO_DEBATE turn 1: p2 writes next.
func socraticAt2(t *testing.T, mut ...func(*Debate)) *Debate {
	d := newDebate(&Socratic, append([]func(*Debate){func(d *Debate) { d.Source = &DebateSource{Path: "claim.md", SHA256: "00"} }}, mut...)...)
	joinAll(t, &Socratic, d, "alice", "bob")
	play(t, &Socratic, d, "p1", sTurn(StanceOpen, true))
	return d
}

func TestSocraticValidateTurn(t *testing.T) {
	dispute := func(d *Debate) { d.About = &DisputeLink{Statement: "stmt_a_wrap", IssueNumber: 1} }
	noSource := func(d *Debate) { d.Source = nil }
	// at is a complete turn 2 that answers turn 1.
	at := func(stance string, blocking bool) DebateTurn {
		tt := sTurn(stance, blocking)
		tt.Counterpoints[0].Addresses = "turn-1"
		return tt
	}
	mod := func(f func(*DebateTurn)) DebateTurn {
		tt := at(StanceDissenting, true)
		f(&tt)
		return tt
	}
	support := func(s Support) DebateTurn {
		return mod(func(t *DebateTurn) { t.Counterpoints[0].Support = []Support{s} })
	}
	onTopic := func(f func(*DebateTurn)) DebateTurn {
		return mod(func(t *DebateTurn) { t.Counterpoints[0].Addresses = "topic"; f(t) })
	}
	cases := []struct {
		name  string
		mut   []func(*Debate)
		turn  DebateTurn
		field string // "" when the turn is valid
		frag  string
	}{
		{"complete turn", nil, at(StanceDissenting, true), "", ""},
		{"stance out of range", nil, mod(func(t *DebateTurn) { t.Stance = "MAYBE" }), "stance", `"MAYBE" is not accepted`},
		{"empty position", nil, mod(func(t *DebateTurn) { t.Position = " " }), "position", "must not be empty"},
		{"no counterpoints", nil, mod(func(t *DebateTurn) { t.Counterpoints = nil }), "counterpoints", "at least one"},
		{"addresses an earlier turn", nil, mod(func(t *DebateTurn) { t.Counterpoints[0].Addresses = "turn-1" }), "", ""},
		{"addresses a turn that does not exist", nil, mod(func(t *DebateTurn) { t.Counterpoints[0].Addresses = "turn-2" }), "counterpoints[0].addresses", `"turn-2" names nothing`},
		{"addresses turn-01", nil, mod(func(t *DebateTurn) { t.Counterpoints[0].Addresses = "turn-01" }), "counterpoints[0].addresses", "names nothing"},
		{"addresses the source", nil, mod(func(t *DebateTurn) { t.Counterpoints[0].Addresses = "source" }), "", ""},
		{"addresses a missing source", []func(*Debate){noSource}, mod(func(t *DebateTurn) { t.Counterpoints[0].Addresses = "source" }), "counterpoints[0].addresses", "names nothing"},
		{"empty claim", nil, mod(func(t *DebateTurn) { t.Counterpoints[0].Claim = "" }), "counterpoints[0].claim", "required"},
		{"empty support text", nil, mod(func(t *DebateTurn) { t.Counterpoints[0].Support[0].Text = "" }), "counterpoints[0].support[0].text", "required"},
		{"no agreements", nil, mod(func(t *DebateTurn) { t.Agreements = nil }), "agreements", "at least one"},
		{"blank agreement", nil, mod(func(t *DebateTurn) { t.Agreements = []string{"\t"} }), "agreements[0]", "must not be empty"},
		{"no novel argument", nil, mod(func(t *DebateTurn) { t.NovelArgument = nil }), "novel_argument", "required"},
		{"empty novel argument", nil, mod(func(t *DebateTurn) { t.NovelArgument.Text = "" }), "novel_argument.text", "required"},
		{"no unresolved items", nil, mod(func(t *DebateTurn) { t.Unresolved = nil }), "unresolved", "at least one"},
		{"quote in the source, re-wrapped", nil, mod(func(t *DebateTurn) { t.Counterpoints[0].Support[0].Quote = str("It fails at zero.") }), "", ""},
		{"quote not in the source", nil, mod(func(t *DebateTurn) { t.Counterpoints[0].Support[0].Quote = str("It holds at zero.") }), "counterpoints[0].support[0].quote", "does not occur in the source"},
		{"quote in a novel argument not in the source", nil, mod(func(t *DebateTurn) {
			t.NovelArgument.Support = []Support{{Text: "x", Quote: str("for all m")}}
		}), "novel_argument.support[0].quote", "does not occur"},
		{"quote with no source", []func(*Debate){noSource}, mod(func(t *DebateTurn) { t.Counterpoints[0].Support[0].Quote = str("The bound") }), "counterpoints[0].support[0].quote", "no source"},
		{"accepting with evidence", nil, at(StanceAccepting, false), "", ""},
		{"accepting without evidence", nil, mod(func(t *DebateTurn) { t.Stance = StanceAccepting; t.Counterpoints[0].Support = nil }), "counterpoints[0].support", "carries support"},
		{"counterpoint without support", nil, mod(func(t *DebateTurn) { t.Counterpoints[0].Support = nil }), "counterpoints[0].support", "every counterpoint carries support"},
		{"novel argument without support", nil, mod(func(t *DebateTurn) { t.NovelArgument.Support = nil }), "novel_argument.support", "carries support"},
		{"an agora field in socratic", nil, mod(func(t *DebateTurn) { t.Evidence = []Evidence{{"s", "c", 1}} }), "evidence", "is not a field of the socratic protocol"},
		{"verdict outside a dispute", nil, mod(func(t *DebateTurn) { t.Verdict = VerdictStands }), "verdict", "only a dispute"},
		{"dispute accepting without verdict", []func(*Debate){dispute}, at(StanceAccepting, false), "verdict", "needs a verdict"},
		{"dispute verdict out of range", []func(*Debate){dispute}, mod(func(t *DebateTurn) { t.Verdict = "maybe" }), "verdict", `"maybe" is not accepted`},
		{"dispute accepting with verdict", []func(*Debate){dispute}, mod(func(t *DebateTurn) { t.Stance = StanceAccepting; t.Verdict = VerdictWithdrawn }), "", ""},
		// Seed 000: "Support MUST be a URL, source file reference, debate
		// artifact turn reference, or `Principle: ...`".
		{"support in none of the forms", nil, support(Support{Text: "the topic names no bound"}), "counterpoints[0].support[0]", "support cites nothing"},
		{"support: a principle", nil, support(Support{Text: "principle: a claim names its bound"}), "", ""},
		{"support: Principle: with nothing after it", nil, support(Support{Text: "Principle:  "}), "counterpoints[0].support[0]", "support cites nothing"},
		{"support: a quote of the source", nil, support(Support{Text: "the source", Quote: str("The bound holds")}), "", ""},
		{"support: an earlier turn", nil, support(Support{Text: "turn 1 said so", Turn: "turn-1"}), "", ""},
		{"support: a turn that does not exist", nil, support(Support{Text: "turn 2", Turn: "turn-2"}), "counterpoints[0].support[0].turn", `"turn-2" names no earlier turn`},
		{"support: a URL", nil, support(Support{Text: "the RFC", URL: "https://www.rfc-editor.org/rfc/rfc9111"}), "", ""},
		{"support: not an http(s) URL", nil, support(Support{Text: "a file", URL: "file:///etc/passwd"}), "counterpoints[0].support[0].url", "is not an http(s) URL"},
		{"support: a URL without a host", nil, support(Support{Text: "x", URL: "https:///x"}), "counterpoints[0].support[0].url", "is not an http(s) URL"},
		{"support: a URL with a space", nil, support(Support{Text: "x", URL: "https://a.example/b c"}), "counterpoints[0].support[0].url", "is not an http(s) URL"},
		{"novel argument support in none of the forms", nil, mod(func(t *DebateTurn) { t.NovelArgument.Support = []Support{{Text: "obvious"}} }), "novel_argument.support[0]", "support cites nothing"},
		{"stance revision support in none of the forms", nil, mod(func(t *DebateTurn) { t.StanceRevisionSupport = []Support{{Text: "I changed my mind"}} }), "stance_revision_support[0]", "support cites nothing"},
		// Seed 000's topic focus: a turn engages the source or an earlier turn.
		{"on the topic alone, citing nothing", nil, onTopic(func(*DebateTurn) {}), "counterpoints", "cites neither the source nor an earlier turn"},
		{"on the topic, quoting the source", nil, onTopic(func(t *DebateTurn) { t.NovelArgument.Support[0].Quote = str("The bound holds") }), "", ""},
		{"on the topic, citing turn 1", nil, onTopic(func(t *DebateTurn) { t.Counterpoints[0].Support[0].Turn = "turn-1" }), "", ""},
		{"on the topic, a URL only", nil, onTopic(func(t *DebateTurn) { t.Counterpoints[0].Support[0].URL = "https://example.com" }), "counterpoints", "cites neither"},
		{"addresses the source, a principle only", nil, mod(func(t *DebateTurn) { t.Counterpoints[0].Addresses = "source" }), "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := socraticAt2(t, c.mut...)
			err := Socratic.ValidateTurn(d, "p2", &c.turn, []byte(sourceText))
			wantTurnError(t, err, c.field, c.frag)
		})
	}
}

func TestSocraticStanceChangeNeedsSupport(t *testing.T) {
	d := socraticAt2(t)
	// p2's first turn may take any stance: there is no earlier one to change.
	play(t, &Socratic, d, "p2", sTurn(StanceRevising, false))
	tt := answer(sTurn(StanceConverging, false), "turn-2")
	err := Socratic.ValidateTurn(d, "p1", &tt, nil)
	wantTurnError(t, err, "stance_revision_support", "changes from OPEN_TO_DEBATE to CONVERGING")
	tt = withRevision(tt)
	if err := Socratic.ValidateTurn(d, "p1", &tt, nil); err != nil {
		t.Errorf("ValidateTurn with revision support = %v; want nil", err)
	}
	same := answer(sTurn(StanceOpen, true), "turn-2")
	if err := Socratic.ValidateTurn(d, "p1", &same, nil); err != nil {
		t.Errorf("ValidateTurn keeping the stance = %v; want nil", err)
	}
}

func TestSocraticTurnOrder(t *testing.T) {
	d := socraticAt2(t)
	tt := sTurn(StanceOpen, true)
	wantRefusal(t, Socratic.ValidateTurn(d, "p1", &tt, nil), "it is not p1's turn: p2 (participant) writes turn 2")
	wantRefusal(t, Socratic.ValidateTurn(d, "p9", &tt, nil), `"p9" is not a participant`)
	wantRefusal(t, Socratic.ValidateTurn(d, ParticipantUser, &tt, nil), `"user" is not a participant`)
	d.Status = DebateCompleted
	wantRefusal(t, Socratic.ValidateTurn(d, "p2", &tt, nil), "the debate is completed")
}

func TestSocraticTerminal(t *testing.T) {
	type step struct {
		pid  string
		turn DebateTurn
	}
	open, conv, acc, dis := StanceOpen, StanceConverging, StanceAccepting, StanceDissenting
	cases := []struct {
		name      string
		steps     []step
		closed    bool
		outcome   string
		candidate bool
	}{
		{"one turn is not terminal", []step{{"p1", sTurn(open, true)}}, false, "", false},
		{"a lone dissent before the peer spoke is not terminal", []step{{"p1", sTurn(dis, true)}}, false, "", false},
		{"both accepting, nothing blocking", []step{{"p1", sTurn(acc, false)}, {"p2", sTurn(acc, false)}}, true, SocraticAcceptedConsensus, true},
		{"both accepting but a blocking item", []step{{"p1", sTurn(acc, false)}, {"p2", sTurn(acc, true)}}, false, "", true},
		{"one accepting, one converging: candidate only", []step{{"p1", sTurn(conv, false)}, {"p2", sTurn(acc, false)}}, false, "", true},
		{"dissent with blocking items", []step{{"p1", sTurn(open, false)}, {"p2", sTurn(dis, true)}}, true, SocraticDissent, false},
		{"dissent without blocking items", []step{{"p1", sTurn(open, false)}, {"p2", sTurn(dis, false)}}, false, "", false},
		{"max turns at 6", []step{
			{"p1", sTurn(open, true)}, {"p2", sTurn(open, true)}, {"p1", sTurn(open, true)},
			{"p2", sTurn(open, true)}, {"p1", sTurn(open, false)}, {"p2", sTurn(open, false)},
		}, true, SocraticMaxTurns, false},
		{"blocking items left at the limit: dissent", []step{
			{"p1", sTurn(open, true)}, {"p2", sTurn(open, true)}, {"p1", sTurn(open, true)},
			{"p2", sTurn(open, true)}, {"p1", sTurn(open, true)}, {"p2", sTurn(open, true)},
		}, true, SocraticDissent, false},
		{"consensus at turn 6 beats max turns", []step{
			{"p1", sTurn(acc, false)}, {"p2", sTurn(open, true)}, {"p1", sTurn(acc, true)},
			{"p2", withRevision(sTurn(conv, true))}, {"p1", sTurn(acc, false)}, {"p2", withRevision(sTurn(acc, false))},
		}, true, SocraticAcceptedConsensus, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := newDebate(&Socratic)
			joinAll(t, &Socratic, d, "alice", "bob")
			var a Assessment
			for _, s := range c.steps {
				if a.Closed {
					t.Fatalf("closed early as %s", a.Outcome)
				}
				a = play(t, &Socratic, d, s.pid, s.turn)
			}
			if a.Closed != c.closed || a.Outcome != c.outcome || a.CandidateConvergence != c.candidate {
				t.Errorf("Terminal = closed %v, %q, candidate %v; want %v, %q, %v", a.Closed, a.Outcome, a.CandidateConvergence, c.closed, c.outcome, c.candidate)
			}
		})
	}
}

func TestSocraticNovelArgumentNotRepeated(t *testing.T) {
	d := newDebate(&Socratic)
	joinAll(t, &Socratic, d, "alice", "bob")
	first, second := sTurn(StanceOpen, true), sTurn(StanceOpen, true)
	first.NovelArgument.Text, second.NovelArgument.Text = "Caches hide writes.", "Leases bound staleness."
	play(t, &Socratic, d, "p1", first)
	play(t, &Socratic, d, "p2", second)
	again := answer(sTurn(StanceOpen, true), "turn-2")
	again.NovelArgument.Text = "  caches   HIDE\nwrites. "
	wantTurnError(t, Socratic.ValidateTurn(d, "p1", &again, nil), "novel_argument.text", "repeats your novel argument of turn-1")
	// The peer's argument is not the writer's own: bob may take it up.
	second = answer(second, "turn-2")
	if err := Socratic.ValidateTurn(d, "p1", &second, nil); err != nil {
		t.Errorf("p1 taking up p2's novel argument: %v; want nil", err)
	}
}

func TestSocraticMaxTurnsOverride(t *testing.T) {
	d := newDebate(&Socratic, func(d *Debate) { d.MaxTurns = 2 })
	joinAll(t, &Socratic, d, "a", "b")
	play(t, &Socratic, d, "p1", sTurn(StanceOpen, false))
	if a := play(t, &Socratic, d, "p2", sTurn(StanceOpen, false)); a.Outcome != SocraticMaxTurns {
		t.Errorf("outcome at turn 2 of 2 = %q; want MAX_TURNS", a.Outcome)
	}
}

func TestDisputeWithdrawn(t *testing.T) {
	accept := func(v string) DebateTurn {
		tt := sTurn(StanceAccepting, false)
		tt.Verdict = v
		return tt
	}
	for _, c := range []struct {
		name   string
		v1, v2 string
		want   bool
	}{
		{"both withdrawn", VerdictWithdrawn, VerdictWithdrawn, true},
		{"one stands", VerdictWithdrawn, VerdictStands, false},
		{"both stand", VerdictStands, VerdictStands, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := newDebate(&Socratic, func(d *Debate) { d.About = &DisputeLink{Statement: "stmt_a_wrap", IssueNumber: 2} })
			joinAll(t, &Socratic, d, "checker", "fixer")
			play(t, &Socratic, d, "p1", accept(c.v1))
			a := play(t, &Socratic, d, "p2", accept(c.v2))
			if a.Outcome != SocraticAcceptedConsensus {
				t.Fatalf("outcome %q; want ACCEPTED_CONSENSUS", a.Outcome)
			}
			if got := DisputeWithdrawn(d); got != c.want {
				t.Errorf("DisputeWithdrawn = %v; want %v", got, c.want)
			}
		})
	}
	// Withdrawn verdicts without consensus (max turns) leave the issue standing.
	d := newDebate(&Socratic, func(d *Debate) {
		d.About = &DisputeLink{Statement: "stmt_a_wrap", IssueNumber: 2}
		d.MaxTurns = 2
	})
	joinAll(t, &Socratic, d, "checker", "fixer")
	play(t, &Socratic, d, "p1", accept(VerdictWithdrawn))
	tt := accept(VerdictWithdrawn)
	tt.Unresolved[0].Blocking = true
	play(t, &Socratic, d, "p2", tt)
	if d.Outcome.Outcome != SocraticDissent || DisputeWithdrawn(d) {
		t.Errorf("outcome %q, withdrawn %v; want DISSENT (a blocking item at the limit) and not withdrawn", d.Outcome.Outcome, DisputeWithdrawn(d))
	}
}

func TestSocraticNoTurnBeforeThePeerJoins(t *testing.T) {
	d := newDebate(&Socratic)
	joinAll(t, &Socratic, d, "alice")
	tt := sTurn(StanceOpen, true)
	wantRefusal(t, Socratic.ValidateTurn(d, "p1", &tt, nil), "the debate waits for a participant to join")
	if s := Socratic.WhoseTurn(d); s.ParticipantID != "" || s.JoinRole != "participant" {
		t.Errorf("WhoseTurn with one participant = %+v; want a join first", s)
	}
}

// TestSocraticTopicFocus: only a debate's first turn without a source may
// rest on the topic alone; with a source, or after a turn, a turn that
// cites neither is refused (seed 000: off-topic drafts are revised before
// they are appended).
func TestSocraticTopicFocus(t *testing.T) {
	d := newDebate(&Socratic)
	joinAll(t, &Socratic, d, "alice", "bob")
	first := sTurn(StanceOpen, true)
	if err := Socratic.ValidateTurn(d, "p1", &first, nil); err != nil {
		t.Fatalf("a first turn on the topic, no source: %v; want nil", err)
	}
	sourced := newDebate(&Socratic, func(d *Debate) { d.Source = &DebateSource{Path: "claim.md", SHA256: "00"} })
	joinAll(t, &Socratic, sourced, "alice", "bob")
	wantTurnError(t, Socratic.ValidateTurn(sourced, "p1", &first, []byte(sourceText)), "counterpoints", "cites neither the source nor an earlier turn")
	play(t, &Socratic, d, "p1", first)
	second := sTurn(StanceOpen, true)
	wantTurnError(t, Socratic.ValidateTurn(d, "p2", &second, nil), "counterpoints", "cites neither the source nor an earlier turn")
	second = answer(second, "turn-1")
	if err := Socratic.ValidateTurn(d, "p2", &second, nil); err != nil {
		t.Errorf("a second turn answering turn 1: %v; want nil", err)
	}
}
