package loop_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proofloop/proofloop/loop"
	"github.com/proofloop/proofloop/model"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden transcripts under testdata/transcripts")

const trAt = "2026-11-23T09:00:00Z"

func trStr(s string) *string { return &s }

// trDebate starts a debate of protocol name through the model API.
func trDebate(t *testing.T, name, topic string, mut func(*model.Debate), joiners ...model.Participant) (*model.Protocol, *model.Debate) {
	t.Helper()
	p, err := model.LookupProtocol(name)
	if err != nil {
		t.Fatal(err)
	}
	d := model.NewDebate(p, topic, 1, trAt)
	if mut != nil {
		mut(d)
	}
	if err := p.CheckStart(d); err != nil {
		t.Fatal(err)
	}
	for _, j := range joiners {
		trJoin(t, p, d, j)
	}
	return p, d
}

func trJoin(t *testing.T, p *model.Protocol, d *model.Debate, j model.Participant) {
	t.Helper()
	role, err := p.JoinRole(d)
	if err != nil {
		t.Fatal(err)
	}
	j.ParticipantID, j.Role, j.JoinedAt = d.NextParticipantID(), role, trAt
	d.Participants = append(d.Participants, j)
}

// trTurn validates and appends a turn, then closes the debate when the
// protocol's terminal rules say so, as the engine does.
func trTurn(t *testing.T, p *model.Protocol, d *model.Debate, pid string, tt model.DebateTurn, source []byte) {
	t.Helper()
	if err := p.ValidateTurn(d, pid, &tt, source); err != nil {
		t.Fatalf("turn %d: %v", len(d.Turns)+1, err)
	}
	role := p.WhoseTurn(d).Role
	if pid == model.ParticipantUser {
		role = model.RoleUser
	}
	d.AppendTurn(tt, pid, role, trAt)
	if a := p.Terminal(d); a.Closed {
		d.Status = p.ClosedStatus(a.Outcome)
		d.Outcome = &model.DebateOutcome{Outcome: a.Outcome, Reason: a.Reason, At: trAt}
	}
}

func trGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "transcripts", name+".md")
	if *updateGolden {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./loop -run Transcript -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("transcript %s differs from %s; got:\n%s", name, path, got)
	}
}

const trSource = "# Caching\n\nThe cache is never stale.\nEntries expire after 60 s.\n"

func socraticDebate(t *testing.T) *model.Debate {
	p, d := trDebate(t, "socratic", "Is the cache ever stale?", func(d *model.Debate) {
		d.Source = &model.DebateSource{Path: "docs/cache.md", SHA256: strings.Repeat("ab", 32)}
		d.About = &model.DisputeLink{Statement: "stmt_cache_wrap", IssueNumber: 2}
	}, model.Participant{Name: "Checker", Harness: "Claude Code", ModelID: "opus"}, model.Participant{Name: "Fixer"})
	src := []byte(trSource)
	trTurn(t, p, d, "p1", model.DebateTurn{
		Stance:        model.StanceOpen,
		Position:      "The cache can be stale for up to 60 s.",
		Counterpoints: []model.Counterpoint{{Addresses: "source", Claim: "Expiry implies staleness.", Support: []model.Support{{Text: "the source says so", Quote: trStr("Entries expire after 60 s.")}}}},
		Agreements:    []string{"Entries do expire."},
		NovelArgument: &model.NovelArgument{Text: "A write between two reads is not seen.", Support: []model.Support{{Text: "the spec", URL: "https://example.com/cache#expiry"}}},
		Unresolved:    []model.UnresolvedItem{{Text: "Is 60 s stale?", Blocking: true}},
	}, src)
	trTurn(t, p, d, "p2", model.DebateTurn{
		Stance:        model.StanceAccepting,
		Position:      "Stale for at most 60 s; the issue stands as a wording fix.",
		Counterpoints: []model.Counterpoint{{Addresses: "turn-1", Claim: "Bounded staleness is a design choice.", Support: []model.Support{{Text: "Principle: a documented bound is a design choice"}}}},
		Agreements:    []string{"The write is not seen until expiry."},
		NovelArgument: &model.NovelArgument{Text: "Say bounded staleness.", Support: []model.Support{{Text: "the source", Quote: trStr("The cache is never stale.")}}},
		Unresolved:    []model.UnresolvedItem{{Text: "the exact wording", Blocking: false}},
		Verdict:       model.VerdictStands,
	}, src)
	trTurn(t, p, d, "p1", model.DebateTurn{
		Stance:                model.StanceAccepting,
		Position:              "Agreed: bounded staleness.",
		Counterpoints:         []model.Counterpoint{{Addresses: "turn-2", Claim: "The wording must name the bound.", Support: []model.Support{{Text: "turn 2 names 60 s", Turn: "turn-2"}}}},
		Agreements:            []string{"Bounded staleness."},
		NovelArgument:         &model.NovelArgument{Text: "Name 60 s in the claim.", Support: []model.Support{{Text: "Principle: a claim names its bound"}}},
		Unresolved:            []model.UnresolvedItem{{Text: "none material", Blocking: false}},
		StanceRevisionSupport: []model.Support{{Text: "turn 2 showed the bound is documented", Turn: "turn-2"}},
		Verdict:               model.VerdictStands,
	}, src)
	return d
}

func reviewDebate(t *testing.T) *model.Debate {
	p, d := trDebate(t, "review", "PR 42 cache layer", func(d *model.Debate) { d.Subject = trStr("cache: add a TTL") },
		model.Participant{Name: "Reviewer", Harness: "Codex", ModelID: "gpt"}, model.Participant{Name: "Author", Harness: "Claude Code", ModelID: "sonnet"})
	reply := func(n int, v, r string) model.ReviewReply {
		return model.ReviewReply{Point: n, Verdict: v, Reasoning: r}
	}
	trTurn(t, p, d, "p1", model.DebateTurn{Points: []model.ReviewPoint{{Point: 1, Text: "The TTL is a magic number."}, {Point: 2, Text: "No test for expiry."}, {Point: 3, Text: "The lock is held across I/O."}}}, nil)
	trTurn(t, p, d, "p2", model.DebateTurn{Replies: []model.ReviewReply{reply(1, model.ReplyAgreed, "Will name it."), reply(2, model.ReplyPartiallyAgreed, "A test, but no fake clock."), reply(3, model.ReplyDisagreed, "The I/O is in memory.")}}, nil)
	trTurn(t, p, d, "p1", model.DebateTurn{FollowUps: []model.ReviewPoint{{Point: 2, Text: "A fake clock keeps it fast."}, {Point: 3, Text: "It becomes disk I/O in v2."}}}, nil)
	trTurn(t, p, d, "p2", model.DebateTurn{Replies: []model.ReviewReply{reply(2, model.ReplyAgreed, "Fake clock added."), reply(3, model.ReplyAgreed, "Lock released before I/O.")}}, nil)
	trTurn(t, p, d, "p1", model.DebateTurn{Consensus: &model.ReviewConsensus{Agreed: []int{1, 2, 3}, ActionItems: []string{"Name the TTL.", "Add the fake-clock test."}}}, nil)
	return d
}

func agoraDebate(t *testing.T) *model.Debate {
	p, d := trDebate(t, "agora", "Which eviction policy?", func(d *model.Debate) {
		d.Positions = []model.Position{{Role: "lru", Text: "Evict the least recently used."}, {Role: "lfu", Text: "Evict the least frequently used."}}
		d.Methodology = "mixed"
	}, model.Participant{Name: "Ada", Harness: "Claude Code", ModelID: "opus"}, model.Participant{Name: "Bo"})
	conf := func(f float64) *float64 { return &f }
	trTurn(t, p, d, "p1", model.DebateTurn{Signal: model.SignalPropose, Message: "LRU: the trace is recency-heavy.", Confidence: conf(0.8),
		Evidence: []model.Evidence{{Source: "trace.csv", Content: "90% of hits are recent", Confidence: 0.75}}}, nil)
	trTurn(t, p, d, "p2", model.DebateTurn{Signal: model.SignalApprove, Message: "The trace convinces me.", Confidence: conf(0.7), Target: trStr("proposal-lru")}, nil)
	trTurn(t, p, d, "p1", model.DebateTurn{Signal: model.SignalNoChange, Message: "Nothing to add.", Confidence: conf(1)}, nil)
	return d
}

func dialecticDebate(t *testing.T, conclude bool) *model.Debate {
	p, d := trDebate(t, "dialectic", "Monorepo or not?", nil,
		model.Participant{Name: "Claude", Harness: "Claude Code", ModelID: "opus"}, model.Participant{Name: "Codex", Harness: "Codex CLI", ModelID: "gpt"})
	trTurn(t, p, d, model.ParticipantUser, model.DebateTurn{Body: "Keep CI time in mind."}, nil)
	trTurn(t, p, d, "p1", model.DebateTurn{Body: "A monorepo:\n\n- one CI\n- atomic changes"}, nil)
	trTurn(t, p, d, "p2", model.DebateTurn{Body: "CI gets slow.", Suggestions: []model.SuggestionInput{{Text: "Cache builds per package."}, {Text: "Split the docs."}}}, nil)
	// The first is the user's consent (decide without a lease), the
	// second a decision under a lease.
	if err := d.DecideSuggestion(1, true, "ann", trAt); err != nil {
		t.Fatal(err)
	}
	d.Suggestions[0].ByUser = true
	if err := d.DecideSuggestion(2, false, "ann", trAt); err != nil {
		t.Fatal(err)
	}
	trTurn(t, p, d, "p1", model.DebateTurn{Body: "With build caching, CI stays fast."}, nil)
	trTurn(t, p, d, "p2", model.DebateTurn{Body: "Then I agree, bar the docs.", Suggestions: []model.SuggestionInput{{Text: "Measure CI weekly."}}}, nil)
	if conclude {
		trTurn(t, p, d, "p1", model.DebateTurn{Body: "Summary: monorepo with build caching.", Conclusion: &model.Conclusion{Outcome: model.DialecticPartial, Text: "Monorepo; the docs question stays open.",
			Agreed: []string{"One repository, with build caching per package."}, OpenPoints: []string{"Whether the docs move out."}, LeftOpen: []int{3}}}, nil)
	}
	return d
}

func TestTranscriptGolden(t *testing.T) {
	for name, build := range map[string]func(*testing.T) *model.Debate{
		"socratic":       socraticDebate,
		"review":         reviewDebate,
		"agora":          agoraDebate,
		"dialectic":      func(t *testing.T) *model.Debate { return dialecticDebate(t, true) },
		"dialectic_open": func(t *testing.T) *model.Debate { return dialecticDebate(t, false) },
	} {
		t.Run(name, func(t *testing.T) {
			d := build(t)
			got := loop.RenderDebate(d)
			trGolden(t, name, got)
			if again := loop.RenderDebate(d); !bytes.Equal(again, got) {
				t.Errorf("RenderDebate is not deterministic")
			}
		})
	}
}

// TestTranscriptShapes checks the seed headings independently of the
// golden files, so that an -update cannot bless a transcript that lost them.
func TestTranscriptShapes(t *testing.T) {
	for _, c := range []struct {
		name  string
		d     *model.Debate
		wants []string
		lacks []string
	}{
		{"socratic", socraticDebate(t), []string{
			"## Turn 1 — Checker (Claude Code / opus) — OPEN_TO_DEBATE\n", "## Turn 2 — Fixer (unknown harness / unknown model) — ACCEPTING_CONSENSUS\n",
			"**Position**", "**Counterpoints**", "- Addresses: Source\n", "- Addresses: Turn 1\n", "**Agreements**", "**Novel Argument**",
			"**Unresolved Items**", "(blocking)", "(non-blocking)", "**Stance Revision Support**", "- **Dispute:** issue 2 of stmt_cache_wrap",
			"- **Status:** completed", "## Conclusion", "ACCEPTED_CONSENSUS", "sha256 `abab",
			// Seed 000's §TURN_MARKDOWN: a rule before every turn.
			"---\n\n## Turn 1 — ", "---\n\n## Turn 2 — ", "---\n\n## Turn 3 — ",
		}, nil},
		{"review", reviewDebate(t), []string{
			"# Code Debate: cache: add a TTL\n", "## Review\n", "## Response 1\n", "## Reviewer Follow-up 1\n", "## Response 2\n", "## CONSENSUS\n",
			"**Agreed**", "**Partially agreed**", "**Disagreed**", "\n---\n", "**Agreed:** points 1, 2, 3",
			// Seed 003's file: the title, then the sections; the outcome closes CONSENSUS.
			"# Code Debate: cache: add a TTL\n\n## Review\n\n1. ", "- **Outcome:** consensus\n- **Reason:** every point is agreed and the reviewer wrote the consensus\n",
		}, []string{"- **Id:**", "- **Status:**", "- **Participants:**", "_Reviewer (", "_Author ("}},
		{"agora", agoraDebate(t), []string{"— propose\n", "- **Confidence:** 0.8\n", "- **Target:** proposal-lru\n", "**Evidence**", "(confidence 0.75)", "consensus"}, nil},
		{"dialectic", dialecticDebate(t, false), []string{
			"## Round 1\n", "## Round 2\n", "### User input (turn 1)", "1. Cache builds per package. — user agreed (recorded by ann at 2026-11-23T09:00:00Z)",
			"2. Split the docs. — rejected by ann", "3. Measure CI weekly. — pending", "- **Status:** in-progress",
		}, nil},
		// Seed 001: the conclusion's summary under ## Conclusion, then the outcome.
		{"dialectic concluded", dialecticDebate(t, true), []string{
			"---\n\n## Conclusion\n\n> Monorepo; the docs question stays open.\n\n**Agreed points**\n\n- One repository, with build caching per package.\n\n**Open points**\n\n- Whether the docs move out.\n\n**Left open:** suggestion 3\n\n- **Outcome:** partial\n",
		}, []string{"**Conclusion (partial)**"}},
	} {
		got := string(loop.RenderDebate(c.d))
		for _, w := range c.wants {
			if !strings.Contains(got, w) {
				t.Errorf("%s transcript lacks %q", c.name, w)
			}
		}
		for _, l := range c.lacks {
			if strings.Contains(got, l) {
				t.Errorf("%s transcript has %q, which its seed's does not", c.name, l)
			}
		}
		if c.d.Outcome == nil && (strings.Contains(got, "## Conclusion") || strings.Contains(got, "## Round 3")) {
			t.Errorf("%s: an open debate of 2 rounds has neither a conclusion nor a third round:\n%s", c.name, got)
		}
	}
}

func trStatement() *model.Statement {
	proof := "Let x be cached. Then x expires after 60 s. Hence x is never stale."
	return &model.Statement{
		ID: "stmt_cache_wrap", Status: model.StatementTrue, Claim: "The cache is never stale.",
		Premises: []string{"Entries expire after 60 s."}, Context: "prob_cache",
		Proof: &proof, ProofStrategy: trStr("direct"), ProofRevision: 2, ProofAuthor: trStr("prover"),
		VerifiedAt: trStr("2026-11-23T12:00:00Z"), VerificationSummary: trStr("Two checkers confirmed revision 2."),
		Validate: model.Validate{
			Issues: []model.Issue{{IssueNumber: 1, Sentence: 2, SentenceText: "Hence x is never stale.", ErrorType: "unjustified_leap",
				Explanation: "Expiry bounds staleness; it does not rule it out.", SuggestedFix: trStr("Say bounded."),
				CreatedAt: "2026-11-23T10:00:00.5Z", Actor: trStr("checker"), Round: 1, ProofRevision: 1}},
			Responses: []model.Response{{ResponseNumber: 1, IssueAddressed: 1, IssuesAddressed: []int{1}, Type: "patch",
				CreatedAt: "2026-11-23T11:00:00Z", Actor: trStr("fixer")}},
			Confirmations: []model.Confirmation{{Actor: trStr("checker"), ProofRevision: 2, CreatedAt: "2026-11-23T11:30:00Z"}},
		},
	}
}

func TestStatementThreadGolden(t *testing.T) {
	st := trStatement()
	revisions := []loop.ProofRevisionView{
		// Given out of order: the renderer sorts by time, and 10:00:00Z
		// comes before the issue at 10:00:00.5Z although it sorts after it
		// as a string.
		{Revision: 2, Text: *st.Proof, Strategy: "direct", Author: "fixer", At: "2026-11-23T11:00:00Z"},
		{Revision: 1, Text: "Let x be cached. Hence x is never stale.", Strategy: "direct", Author: "prover", At: "2026-11-23T10:00:00Z"},
	}
	got := loop.RenderStatementThread(st, revisions)
	trGolden(t, "statement", got)
	s := string(got)
	order := []string{"## Proof revision 1", "## Issue 1", "## Proof revision 2", "## Response 1", "## Confirmation", "## Conclusion"}
	last := -1
	for _, h := range order {
		i := strings.Index(s, h)
		if i < 0 || i < last {
			t.Errorf("%q at %d, after %d; want the sections in time order %v", h, i, last, order)
		}
		last = i
	}
	for _, w := range []string{"**Sentence 2:** Hence x is never stale.", "- **Addresses:** issue 1\n", "- [2] Then x expires after 60 s.", "- **Claim:** The cache is never stale."} {
		if !strings.Contains(s, w) {
			t.Errorf("thread lacks %q", w)
		}
	}

	got = loop.RenderStatementThread(st, nil)
	trGolden(t, "statement_current_only", got)
	if s := string(got); !strings.Contains(s, "only the current proof is shown") || !strings.Contains(s, "## Proof revision 2 — prover — direct") {
		t.Errorf("a thread without revisions must show the current proof and say so:\n%s", s)
	}
}
