package report

import (
	"fmt"
	"testing"

	"github.com/proofloop/proofloop/loop"
	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

func TestFigures(t *testing.T) {
	str := func(s string) *string { return &s }
	d := &Data{Statements: map[string]*StatementData{
		"stmt_a_wrap": {Statement: &model.Statement{ID: "stmt_a_wrap", Status: model.StatementTrue, Round: 2,
			VerifiedAt: str("2026-11-22T10:05:00Z"), Validate: model.Validate{Issues: []model.Issue{
				{IssueNumber: 1, ErrorType: "gap"}, {IssueNumber: 2, ErrorType: "unjustified_leap", Severity: model.SeverityCritical}}}},
			FirstProofAt: "2026-11-22T10:00:00Z"},
		"stmt_b_wrap": {Statement: &model.Statement{ID: "stmt_b_wrap", Status: model.StatementPending}},
	}}
	for _, c := range []string{"check-reject-proof", "check-confirm-proof", "fix-patch-proof", "decide", "claim", "new-problem", "state-complete-proof"} {
		d.Events = append(d.Events, store.Event{Command: c})
	}
	f := figures(d)
	roles := map[string]int{}
	for _, c := range f.TurnsPerRole {
		roles[c.Label] = c.N
	}
	for role, want := range map[string]int{"check": 2, "fix": 1, "prove": 1, "solve": 0, "decide": 1} {
		if roles[role] != want {
			t.Errorf("turns of %s = %d; want %d (all: %v)", role, roles[role], want, f.TurnsPerRole)
		}
	}
	if got := fmt.Sprint(f.OtherCommands); got != "[{claim 1} {new-problem 1}]" {
		t.Errorf("other commands = %s; want claim and new-problem, once each", got)
	}
	if got := fmt.Sprint(f.RoundsHist, f.MostRounds); got != "[{0 rounds 1} {2 rounds 1}] [{stmt_a_wrap 2 rounds}]" {
		t.Errorf("rounds = %s; want one statement with 0, one with 2", got)
	}
	if got := fmt.Sprint(f.TimeToTrue, f.MedianToTrue); got != "[{stmt_a_wrap 5m0s}]5m0s" {
		t.Errorf("first proof to true = %s; want 5m0s for stmt_a_wrap", got)
	}
	if got := fmt.Sprint(f.IssuesByType, f.IssuesBySev); got != "[{gap 1} {unjustified_leap 1}] [{critical 1} {gap 1}]" {
		t.Errorf("issues = %s; want one gap (severity gap by default), one critical leap", got)
	}
}

func TestTimelineKeepsTheLatest(t *testing.T) {
	d := &Data{Items: map[string]*loop.Item{}}
	for seq := 1; seq <= maxTimeline+500; seq++ {
		d.Events = append(d.Events, store.Event{Seq: seq, Command: "claim"})
	}
	evs, left := timeline(d)
	if len(evs) != maxTimeline || left != 500 || evs[0].Seq != maxTimeline+500 || evs[len(evs)-1].Seq != 501 {
		t.Errorf("timeline = %d events (seq %d..%d), %d left out; want the %d latest, newest first, 500 left out",
			len(evs), evs[0].Seq, evs[len(evs)-1].Seq, left, maxTimeline)
	}
}
