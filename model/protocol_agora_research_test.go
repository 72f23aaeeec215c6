package model

import (
	"reflect"
	"strings"
	"testing"
)

// researchDebate is an open agora debate started with n research turns
// and the methodology given; nobody has joined.
func researchDebate(t *testing.T, n int, methodology string) *Debate {
	t.Helper()
	d := newDebate(&Agora, func(d *Debate) {
		d.Positions = []Position{{"pro", "pro position"}, {"con", "con position"}}
		d.Research, d.Methodology = n, methodology
	})
	if err := Agora.CheckStart(d); err != nil {
		t.Fatal(err)
	}
	return d
}

func researchTurn(items ...Evidence) DebateTurn { return DebateTurn{Evidence: items} }

func TestAgoraResearchStart(t *testing.T) {
	for _, n := range []int{-1, AgoraMaxResearch + 1} {
		d := newDebate(&Agora, func(d *Debate) {
			d.Positions = []Position{{"pro", "x"}, {"con", "y"}}
			d.Research = n
		})
		wantTurnError(t, Agora.CheckStart(d), "research", "must be 0..20")
	}
	d := newDebate(&Agora, func(d *Debate) { d.Positions = []Position{{"researcher", "x"}, {"con", "y"}} })
	wantTurnError(t, Agora.CheckStart(d), "positions[0].role", "researcher is a role of agora's own")
	for _, p := range []*Protocol{&Socratic, &Review, &Dialectic, &Panel} {
		d := newDebate(p, func(d *Debate) { d.Research = 2 })
		wantTurnError(t, p.CheckStart(d), "research", "only a protocol whose turns carry evidence (agora)")
	}
}

// TestAgoraResearchStage follows the stage: the first joiner is the
// researcher, who writes the N research turns while the positions wait;
// then the stage is over, the positions alternate from the first one, the
// researcher has no more turns, and the pool holds every item numbered.
func TestAgoraResearchStage(t *testing.T) {
	d := researchDebate(t, 2, "opinion")
	if s := Agora.WhoseTurn(d); s.JoinRole != RoleResearcher || !strings.Contains(s.Advice, "research turn 1 of 2") {
		t.Fatalf("WhoseTurn before any join = %+v; want a researcher to join, with the stage in the advice", s)
	}
	joinAll(t, &Agora, d, "rita", "ann", "ben")
	if got := []string{d.Participants[0].Role, d.Participants[1].Role, d.Participants[2].Role}; strings.Join(got, ",") != "researcher,pro,con" {
		t.Fatalf("roles by join = %v; want researcher, pro, con", got)
	}
	if s := Agora.WhoseTurn(d); s.ParticipantID != "p1" || s.Role != RoleResearcher {
		t.Fatalf("WhoseTurn = %+v; want the researcher p1", s)
	}
	// A position writes nothing during the stage.
	early := agoraTurn(SignalPropose, "", 0.9)
	wantRefusal(t, Agora.ValidateTurn(d, "p2", &early, nil), "p1 (researcher) writes turn 1")

	play(t, &Agora, d, "p1", researchTurn(Evidence{"model/debate.go", "turns are stored in order", 0.9}, Evidence{"https://example.org/x", "x", 0.5}))
	if !ResearchOpen(d) {
		t.Fatal("ResearchOpen after 1 of 2 research turns = false; want true")
	}
	play(t, &Agora, d, "p1", researchTurn(Evidence{"doi:10.1000/182", "the DOI handbook", 0.7}))
	if ResearchOpen(d) {
		t.Fatal("ResearchOpen after 2 of 2 research turns = true; want false: the engine ends the stage")
	}
	var ids []string
	for _, e := range d.EvidencePool {
		ids = append(ids, e.ID+"@"+string(rune('0'+e.TurnNumber)))
	}
	if got := strings.Join(ids, " "); got != "pool-1@1 pool-2@1 pool-3@2" {
		t.Errorf("pool = %s; want pool-1@1 pool-2@1 pool-3@2", got)
	}
	if s := Agora.WhoseTurn(d); s.ParticipantID != "p2" || s.Role != "pro" || s.TurnNumber != 3 {
		t.Fatalf("WhoseTurn after the stage = %+v; want p2 (pro) writing turn 3", s)
	}
	more := researchTurn(Evidence{"a.go", "b", 0.5})
	wantRefusal(t, Agora.ValidateTurn(d, "p1", &more, nil), "p2 (pro) writes turn 3")

	play(t, &Agora, d, "p2", agoraTurn(SignalPropose, "", 0.9))
	if s := Agora.WhoseTurn(d); s.ParticipantID != "p3" {
		t.Fatalf("WhoseTurn after pro's turn = %+v; want p3 (con): research turns take no one's turn", s)
	}
	play(t, &Agora, d, "p3", agoraTurn(SignalApprove, "proposal-pro", 0.7))
	a := play(t, &Agora, d, "p2", agoraTurn(SignalNoChange, "", 0.9))
	if !a.Closed || a.Outcome != AgoraConsensus {
		t.Errorf("after approve and no-change = %+v; want consensus: the researcher is no position", a)
	}
}

func TestAgoraResearchTurnValidation(t *testing.T) {
	sig := DebateTurn{Signal: SignalPropose, Evidence: []Evidence{{"a.go", "b", 0.5}}}
	msg := DebateTurn{Message: "I found this.", Evidence: []Evidence{{"a.go", "b", 0.5}}}
	cases := []struct {
		name  string
		turn  DebateTurn
		field string
		frag  string
	}{
		{"evidence only", researchTurn(Evidence{"codebase", "3 switch statements", 0.8}), "", ""},
		{"no evidence", DebateTurn{}, "evidence", "at least one evidence item"},
		{"a signal", sig, "signal", "the researcher role does not write it: its turns carry only evidence"},
		{"a message", msg, "message", "the researcher role does not write it"},
		{"no content", researchTurn(Evidence{"a.go", " ", 0.5}), "evidence[0].content", "required"},
		{"confidence above 1", researchTurn(Evidence{"a.go", "b", 1.5}), "evidence[0].confidence", "outside 0..1"},
		{"a pool item that does not exist", researchTurn(Evidence{"pool-1", "b", 0.5}), "evidence[0].source", `"pool-1" names no item of the evidence pool, which has no items`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := researchDebate(t, 1, "fact-based")
			joinAll(t, &Agora, d, "rita")
			err := Agora.ValidateTurn(d, "p1", &c.turn, nil)
			wantTurnError(t, err, c.field, c.frag)
		})
	}
}

// TestAgoraFactBasedCitation: after the research stage, each evidence item
// of a fact-based debate cites a pool item that exists or names a
// verifiable source; a pool-N that does not exist is refused under any
// methodology.
func TestAgoraFactBasedCitation(t *testing.T) {
	debate := func(t *testing.T, methodology string) *Debate {
		d := researchDebate(t, 1, methodology)
		joinAll(t, &Agora, d, "rita", "ann", "ben")
		play(t, &Agora, d, "p1", researchTurn(Evidence{"codebase", "3 switch statements", 0.8}))
		return d
	}
	cases := []struct {
		methodology, source string
		field, frag         string
	}{
		{"fact-based", "pool-1", "", ""},
		{"fact-based", " pool-1 ", "", ""},
		{"fact-based", "https://go.dev/doc/effective_go", "", ""},
		{"fact-based", "10.1145/3192366.3192379", "", ""},
		{"fact-based", "model/protocol_agora.go:42", "", ""},
		{"fact-based", "README.md", "", ""},
		{"fact-based", "pool-9", "evidence[0].source", `"pool-9" names no item of the evidence pool, which has pool-1`},
		{"fact-based", "pool-01", "evidence[0].source", "names no item"},
		{"fact-based", "codebase", "evidence[0].source", `"codebase" is neither a pool item nor a verifiable source`},
		{"fact-based", "GOF book", "evidence[0].source", "neither a pool item nor a verifiable source"},
		{"fact-based", "ftp://example.org/x", "evidence[0].source", `"ftp://example.org/x" is a URL of scheme ftp: a source that is a URL must be http or https`},
		{"opinion", "file:///etc/passwd", "evidence[0].source", "is a URL of scheme file"},
		{"opinion", "javascript:alert(1)", "evidence[0].source", "is a URL of scheme javascript"},
		{"opinion", "Knuth: TAOCP, vol. 1", "", ""},
		{"opinion", "isbn:0-201-89683-4", "", ""},
		{"fact-based", "doi:10.1145/3192366.3192379", "", ""},
		{"fact-based", "https://", "evidence[0].source", "neither"},
		{"fact-based", "/etc/passwd", "evidence[0].source", "is a path that leaves the project folder"},
		{"fact-based", "../secret.txt", "evidence[0].source", "is a path that leaves the project folder"},
		{"opinion", "~/.ssh/id_rsa", "evidence[0].source", "is a path that leaves the project folder"},
		{"opinion", "lib/../../x.go:1", "evidence[0].source", "is a path that leaves the project folder"},
		{"opinion", "//evil.example/x", "evidence[0].source", "is a path that leaves the project folder"},
		{"opinion", "lib/a..b.go:1", "", ""},
		{"fact-based", "Makefile", "evidence[0].source", "neither"},
		{"opinion", "codebase", "", ""},
		{"opinion", "pool-9", "evidence[0].source", "names no item"},
	}
	for _, c := range cases {
		t.Run(c.methodology+" "+c.source, func(t *testing.T) {
			d := debate(t, c.methodology)
			tt := agoraTurn(SignalPropose, "", 0.8)
			tt.Evidence = []Evidence{{c.source, "a fact", 0.9}}
			err := Agora.ValidateTurn(d, "p2", &tt, nil)
			wantTurnError(t, err, c.field, c.frag)
		})
	}
}

// TestAgoraResearchURLScheme (N12): a research turn's item, which joins
// the pool that later turns cite, is held to the URL rule too.
func TestAgoraResearchURLScheme(t *testing.T) {
	d := researchDebate(t, 1, "opinion")
	joinAll(t, &Agora, d, "rita", "ann", "ben")
	tt := researchTurn(Evidence{"file:///etc/passwd", "the users", 0.9})
	wantTurnError(t, Agora.ValidateTurn(d, "p1", &tt, nil), "evidence[0].source", "is a URL of scheme file")
}

// TestCitedFiles (N12, A20): the sources the engine checks against the
// project folder: every path:LINE, and under fact-based every project
// path; other sources are not files.
func TestCitedFiles(t *testing.T) {
	turn := &DebateTurn{Evidence: []Evidence{{Source: "model/a.go:3"}, {Source: "README.md"}, {Source: "docs/x.md:2-9"},
		{Source: "pool-1"}, {Source: "https://go.dev/x.go"}, {Source: "codebase"}, {Source: "../a.go:1"}, {Source: "a.go:0"}}}
	for _, c := range []struct {
		methodology string
		want        []FileCite
	}{
		{"opinion", []FileCite{{"evidence[0].source", "model/a.go:3", "model/a.go", true, 3, 3}, {"evidence[2].source", "docs/x.md:2-9", "docs/x.md", true, 2, 9}, {"evidence[7].source", "a.go:0", "a.go", true, 0, 0}}},
		{"fact-based", []FileCite{{"evidence[0].source", "model/a.go:3", "model/a.go", true, 3, 3}, {"evidence[1].source", "README.md", "README.md", false, 0, 0}, {"evidence[2].source", "docs/x.md:2-9", "docs/x.md", true, 2, 9}, {"evidence[7].source", "a.go:0", "a.go", true, 0, 0}}},
	} {
		got := CitedFiles(&Debate{Methodology: c.methodology}, turn)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("CitedFiles under %s = %+v; want %+v", c.methodology, got, c.want)
		}
	}
}

// TestAgoraResearchTurnsOutsideTheLimit: the turn limit counts the
// debate's turns, not the research stage's.
func TestAgoraResearchTurnsOutsideTheLimit(t *testing.T) {
	d := researchDebate(t, 2, "opinion")
	d.MaxTurns = 2
	joinAll(t, &Agora, d, "rita", "ann", "ben")
	play(t, &Agora, d, "p1", researchTurn(Evidence{"a.go", "b", 0.5}))
	if a := play(t, &Agora, d, "p1", researchTurn(Evidence{"a.go", "c", 0.5})); a.Closed {
		t.Fatalf("after 2 research turns with max_turns 2: %+v; want open", a)
	}
	play(t, &Agora, d, "p2", agoraTurn(SignalPropose, "", 0.9))
	a := play(t, &Agora, d, "p3", agoraTurn(SignalPropose, "", 0.9))
	if !a.Closed || a.Outcome != AgoraTimeout || !strings.Contains(a.Reason, "2 debate turns after 2 research turns") {
		t.Errorf("after 2 debate turns = %+v; want timeout naming the research turns", a)
	}
}

func TestAgoraResearchLayout(t *testing.T) {
	d := researchDebate(t, 1, "opinion")
	joinAll(t, &Agora, d, "rita", "ann", "ben")
	play(t, &Agora, d, "p1", researchTurn(Evidence{"model/debate.go", "turns are\nstored in order", 0.9}))
	var b strings.Builder
	Agora.Layout(&b, d)
	want := "## Evidence pool\n\n1 research turn (1 done); a later turn cites an item by its id.\n\n" +
		"- pool-1 (turn 1): model/debate.go: turns are stored in order (confidence 0.9)\n\n" +
		"## Turn 1 — rita (unknown harness / unknown model) — research\n\n- **Role:** researcher\n- **Evidence:** pool-1\n\n"
	if got := b.String(); got != want {
		t.Errorf("layout =\n%s\nwant\n%s", got, want)
	}
	plain := agoraDebate(t, "pro", "con")
	b.Reset()
	Agora.Layout(&b, plain)
	if b.Len() != 0 {
		t.Errorf("layout of a debate without research or turns = %q; want nothing", b.String())
	}
}
