package loop

import (
	"strings"
	"testing"

	"github.com/proofloop/proofloop/model"
)

// TestFailureSuggestions: what the failure analysis suggests first follows
// what is open (gaps: more rounds; a critical issue: another claim), and a
// split is suggested only when no decomposition was tried.
func TestFailureSuggestions(t *testing.T) {
	open := func(sev ...string) []model.Issue {
		var out []model.Issue
		for i, s := range sev {
			out = append(out, model.Issue{IssueNumber: i + 1, Severity: s})
		}
		return out
	}
	for _, tt := range []struct {
		name    string
		open    []model.Issue
		subs    []string
		dead    []model.DeadEnd
		first   string
		splits  bool
		mention string
	}{
		{"gaps", open(model.SeverityGap, model.SeverityGap), nil, nil, "Extend (the open issues are only unsupported steps", true, "level rewrite"},
		{"one gap", open(model.SeverityGap), nil, nil, "Extend (the open issue is only", true, ""},
		{"critical", open(model.SeverityGap, model.SeverityCritical), nil, nil, "Modify the claim (1 critical issue says a step wrong", true, ""},
		{"two critical", open(model.SeverityCritical, model.SeverityCritical), nil, nil, "Modify the claim (2 critical issues say a step wrong", true, ""},
		{"nothing open", nil, nil, nil, "Extend: ", true, ""},
		{"decomposed now", open(model.SeverityGap), []string{"stmt_a_wrap_sub1"}, nil, "Extend (", false, ""},
		{"decomposed before", open(model.SeverityGap), nil, []model.DeadEnd{{Number: 1, SubStatements: []string{"stmt_a_wrap_sub1"}}}, "Extend (", false, ""},
	} {
		f := &Failure{Statement: &model.Statement{ID: "stmt_a_wrap", SubStatements: tt.subs, DeadEnds: tt.dead},
			Step: model.Step{Level: model.LevelRewrite}, Open: tt.open}
		got := suggestions(f)
		if len(got) == 0 || !strings.HasPrefix(got[0], tt.first) {
			t.Errorf("%s: suggestions %q; want the first to start %q", tt.name, got, tt.first)
			continue
		}
		split := strings.HasPrefix(got[len(got)-1], "Split it")
		if split != tt.splits {
			t.Errorf("%s: suggestions %q; want a split suggested: %v", tt.name, got, tt.splits)
		}
		if !strings.Contains(strings.Join(got, " "), "proofloop decide stmt_a_wrap --extend N") {
			t.Errorf("%s: suggestions %q; want the extend command named", tt.name, got)
		}
		if tt.mention != "" && !strings.Contains(got[0], tt.mention) {
			t.Errorf("%s: %q; want it to name %q", tt.name, got[0], tt.mention)
		}
	}
}
