package model

import (
	"encoding/json"
	"testing"

	"github.com/proofloop/proofloop/schemas"
)

// TestDebatesFitTheSchema marshals debates of every protocol, built through
// the protocol API, and checks them against schemas/debate.schema.json: the
// Go type and the schema must agree on every field the engine writes.
func TestDebatesFitTheSchema(t *testing.T) {
	build := map[string]func(t *testing.T) *Debate{
		"socratic dispute": func(t *testing.T) *Debate {
			d := socraticAt2(t, func(d *Debate) {
				d.About = &DisputeLink{Statement: "stmt_a_wrap", IssueNumber: 1}
				d.Source.SHA256 = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
			})
			tt := sTurn(StanceAccepting, false)
			tt.Verdict = VerdictWithdrawn
			tt.Counterpoints[0].Support[0].Quote = str("It fails at zero.")
			tt.StanceRevisionSupport = []Support{{Text: "the bound", Turn: "turn-1"}, {Text: "the spec", URL: "https://example.com/spec"}}
			tt.Counterpoints[0].Addresses = "turn-1"
			if err := Socratic.ValidateTurn(d, "p2", &tt, []byte(sourceText)); err != nil {
				t.Fatal(err)
			}
			apply(&Socratic, d, "p2", tt)
			d.Flags = &DebateFlags{CandidateConvergenceAt: str(at0)}
			return d
		},
		"review partial": func(t *testing.T) *Debate {
			d := reviewAt3(t)
			d.Subject = str("PR 12")
			d.MaxTurns = 1
			play(t, &Review, d, "p1", DebateTurn{Consensus: &ReviewConsensus{Agreed: []int{1}, ActionItems: []string{"x"},
				Disagreements: []Disagreement{{2, "race"}, {3, "tests"}}}})
			return d
		},
		"agora mediator": func(t *testing.T) *Debate {
			d := agoraDebate(t, "pro", "con")
			play(t, &Agora, d, "p1", agoraTurn(SignalPropose, "", 0.5))
			for i := 0; i < 4; i++ {
				play(t, &Agora, d, d.Participants[(i+1)%2].ParticipantID, agoraTurn(SignalCounter, "turn-1", 0.5))
			}
			joinAll(t, &Agora, d, "judge")
			play(t, &Agora, d, "p3", agoraTurn(SignalPropose, "proposal-con", 0.5))
			return d
		},
		"dialectic concluded": func(t *testing.T) *Debate {
			d := newDebate(&Dialectic)
			joinAll(t, &Dialectic, d, "a", "b")
			play(t, &Dialectic, d, "p1", DebateTurn{Body: "v"})
			play(t, &Dialectic, d, ParticipantUser, DebateTurn{Body: "u"})
			play(t, &Dialectic, d, "p2", DebateTurn{Body: "c", Suggestions: []SuggestionInput{{"s"}, {"t"}}})
			if err := d.DecideSuggestion(1, true, "ann", at0); err != nil {
				t.Fatal(err)
			}
			play(t, &Dialectic, d, "p1", DebateTurn{Body: "end", Conclusion: func() *Conclusion { c := concl(DialecticConsensus, "done"); c.LeftOpen = []int{2}; return c }()})
			return d
		},
	}
	for name, b := range build {
		t.Run(name, func(t *testing.T) {
			d := b(t)
			d.Artifact = ArtifactPath(d.CreatedAt, d.TopicSlug)
			doc, err := json.Marshal(d)
			if err != nil {
				t.Fatal(err)
			}
			if err := schemas.Validate(schemas.Debate, doc); err != nil {
				t.Errorf("%v\n%s", err, doc)
			}
		})
	}
}
