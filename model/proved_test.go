package model

import (
	"slices"
	"testing"
)

func TestReliesOn(t *testing.T) {
	proof := "By stmt_a_sub1 and stmt_a_fix1, done."
	st := &Statement{Proof: &proof, SubStatements: []string{"stmt_a_sub1", "stmt_a_sub2", "stmt_a_fix1", "stmt_a_fix2"},
		Validate: Validate{Responses: []Response{
			{Type: "substatement", IssueAddressed: 1, SubStatementID: "stmt_a_fix1"},
			{Type: "substatement", IssueAddressed: 2, SubStatementID: "stmt_a_fix2"},
			{Type: "patch", IssueAddressed: 1, IssuesAddressed: []int{1}},
		}}}
	relies, uncited := ReliesOn(st)
	// fix2 filled issue 2, which no patch used: not relied on.
	if want := []string{"stmt_a_sub1", "stmt_a_sub2", "stmt_a_fix1"}; !slices.Equal(relies, want) {
		t.Errorf("relies %v; want %v", relies, want)
	}
	if want := []string{"stmt_a_sub2"}; !slices.Equal(uncited, want) {
		t.Errorf("uncited %v; want %v", uncited, want)
	}
}

func TestCites(t *testing.T) {
	for _, tt := range []struct {
		text string
		want bool
	}{{"by stmt_a_sub1.", true}, {"by stmt_a_sub10.", false}, {"xstmt_a_sub1", false}, {"stmt_a_sub1", true}, {"", false}} {
		if got := Cites(tt.text, "stmt_a_sub1"); got != tt.want {
			t.Errorf("Cites(%q) = %v; want %v", tt.text, got, tt.want)
		}
	}
}

func TestProver(t *testing.T) {
	nodes := map[string]*Node{
		"prob_a":           {Status: ProblemSolved, ReliesOn: []string{"stmt_a_wrap"}},
		"stmt_a_wrap":      {Status: StatementTrue, ReliesOn: []string{"stmt_a_sub1", "stmt_a_sub2"}, Uncited: []string{"stmt_a_sub2"}},
		"stmt_a_sub1":      {Status: StatementTrue, ReliesOn: []string{"stmt_a_sub1_sub1"}},
		"stmt_a_sub2":      {Status: StatementFalse}, // a dead end the proof does not cite
		"stmt_a_sub1_sub1": {Status: StatementTrue},
	}
	of := func(id string) Proved {
		p := NewProver(func(id string) (*Node, error) { return nodes[id], nil })
		v, err := p.Of(id)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if v := of("prob_a"); !v.FullyProved {
		t.Errorf("prob_a: %+v; want fully proved", v)
	}
	nodes["stmt_a_sub1_sub1"] = &Node{Status: StatementHasGap, Verified: true}
	for _, id := range []string{"prob_a", "stmt_a_wrap", "stmt_a_sub1", "stmt_a_sub1_sub1"} {
		if v := of(id); v.FullyProved || v.NotProved != "stmt_a_sub1_sub1" || !v.Reopened || v.Why() != "stmt_a_sub1_sub1 reopened" {
			t.Errorf("%s: %+v; want not proved because stmt_a_sub1_sub1 reopened", id, v)
		}
	}
	nodes["stmt_a_sub1_sub1"] = &Node{Status: StatementTrue}
	nodes["stmt_a_wrap"].Uncited = nil // the proof cites the false sub-statement: it relies on it
	if v := of("prob_a"); v.FullyProved || v.NotProved != "stmt_a_sub2" || v.Why() != "stmt_a_sub2 is false" {
		t.Errorf("prob_a: %+v; want not proved because of stmt_a_sub2", v)
	}
	nodes["stmt_a_sub1_sub1"] = &Node{Status: StatementTrue, ReliesOn: []string{"stmt_a_sub1"}}
	if v := of("stmt_a_sub1"); v.FullyProved {
		t.Errorf("a cycle: %+v; want not fully proved", v)
	}
}

func TestFindCycle(t *testing.T) {
	if c := FindCycle(map[string][]string{"a": {"b"}, "b": {"c"}, "c": nil}); c != nil {
		t.Errorf("FindCycle(acyclic) = %v; want nil", c)
	}
	if c, want := FindCycle(map[string][]string{"a": {"b"}, "b": {"c"}, "c": {"a"}}), []string{"a", "b", "c", "a"}; !slices.Equal(c, want) {
		t.Errorf("FindCycle = %v; want %v", c, want)
	}
}

func TestSeverityTable(t *testing.T) {
	for _, e := range ErrorTypes {
		if s := DefaultSeverity(e); !slices.Contains(Severities, s) {
			t.Errorf("DefaultSeverity(%s) = %q", e, s)
		}
	}
	legacy := &Issue{ErrorType: "circular"}
	if got := IssueSeverity(legacy); got != SeverityCritical {
		t.Errorf("IssueSeverity(legacy circular) = %q; want critical", got)
	}
	if got := IssueSeverity(&Issue{ErrorType: "circular", Severity: SeverityGap}); got != SeverityGap {
		t.Errorf("IssueSeverity(override) = %q; want gap", got)
	}
}

func TestCheckKept(t *testing.T) {
	p := "A. B."
	st := &Statement{Proof: &p, ProofRevision: 3, RevisionsKeptFrom: 2,
		Validate: Validate{Issues: []Issue{{IssueNumber: 1, Sentence: 2, SentenceText: "C.", ProofRevision: 2}, {IssueNumber: 2, Sentence: 1, SentenceText: "X", ProofRevision: 1}}}}
	kept := []ProofRevision{{Revision: 2, Text: "A. C."}, {Revision: 3, Text: "A. B."}}
	if m := CheckKept(st, kept); len(m) != 0 {
		t.Errorf("CheckKept = %v; want none", m)
	}
	if m := CheckIssueQuotes(st, kept); len(m) != 0 {
		t.Errorf("CheckIssueQuotes = %v; want none (revision 1 is not kept)", m)
	}
	if m := CheckKept(st, kept[:1]); len(m) != 1 {
		t.Errorf("CheckKept(one missing) = %v; want one finding", m)
	}
	st.Validate.Issues[0].SentenceText = "B."
	if m := CheckIssueQuotes(st, kept); len(m) != 1 {
		t.Errorf("CheckIssueQuotes(edited quote) = %v; want one finding", m)
	}
}

// TestGrade: the grade is derived with fully_proved: a statement is no
// better than the weakest statement it relies on, save a kernel-checked
// one, which stands on its own formal proof; a problem's is its key
// statement's. Weakest names where the tree rests on less.
func TestGrade(t *testing.T) {
	kernel, measured := Backing{Kernel: true}, Backing{Measured: true}
	tests := []struct {
		name    string
		nodes   map[string]*Node
		id      string
		grade   Grade
		weakest string
		proved  bool
	}{
		{"agents over a kernel-checked sub-statement", map[string]*Node{
			"stmt_a_wrap": {Status: StatementTrue, ReliesOn: []string{"stmt_a_sub1"}},
			"stmt_a_sub1": {Status: StatementTrue, Backing: kernel}}, "stmt_a_wrap", GradeAgents, "stmt_a_wrap", true},
		{"kernel-checked over agents' word", map[string]*Node{
			"stmt_a_wrap": {Status: StatementTrue, ReliesOn: []string{"stmt_a_sub1"}, Backing: kernel},
			"stmt_a_sub1": {Status: StatementTrue}}, "stmt_a_wrap", GradeKernel, "", true},
		{"kernel-checked over an open sub-statement", map[string]*Node{
			"stmt_a_wrap": {Status: StatementTrue, ReliesOn: []string{"stmt_a_sub1"}, Backing: kernel},
			"stmt_a_sub1": {Status: StatementHasGap}}, "stmt_a_wrap", GradeKernel, "", false},
		{"agents' word over an open sub-statement", map[string]*Node{
			"stmt_a_wrap": {Status: StatementTrue, ReliesOn: []string{"stmt_a_sub1"}},
			"stmt_a_sub1": {Status: StatementHasGap}}, "stmt_a_wrap", "", "", false},
		{"measured over agents' word", map[string]*Node{
			"stmt_a_wrap": {Status: StatementTrue, ReliesOn: []string{"stmt_a_sub1", "stmt_a_sub2"}, Backing: measured},
			"stmt_a_sub1": {Status: StatementTrue, Backing: kernel},
			"stmt_a_sub2": {Status: StatementTrue}}, "stmt_a_wrap", GradeAgents, "stmt_a_sub2", true},
		{"a problem formally verified", map[string]*Node{
			"prob_a":      {Status: ProblemSolved, ReliesOn: []string{"stmt_a_wrap"}},
			"stmt_a_wrap": {Status: StatementTrue, ReliesOn: []string{"stmt_a_sub1"}, Backing: kernel},
			"stmt_a_sub1": {Status: StatementTrue}}, "prob_a", GradeKernel, "", true},
		{"a problem on agents' word", map[string]*Node{
			"prob_a":      {Status: ProblemSolved, ReliesOn: []string{"stmt_a_wrap"}},
			"stmt_a_wrap": {Status: StatementTrue, ReliesOn: []string{"stmt_a_sub1"}, Backing: measured},
			"stmt_a_sub1": {Status: StatementTrue}}, "prob_a", GradeAgents, "stmt_a_sub1", true},
		{"a pending statement has none", map[string]*Node{
			"stmt_a_wrap": {Status: StatementPending, Backing: kernel}}, "stmt_a_wrap", "", "", false},
	}
	for _, tt := range tests {
		p := NewProver(func(id string) (*Node, error) { return tt.nodes[id], nil })
		v, err := p.Of(tt.id)
		if err != nil {
			t.Fatal(err)
		}
		if v.Grade != tt.grade || v.Weakest != tt.weakest || v.FullyProved != tt.proved {
			t.Errorf("%s: %+v; want grade %q, weakest %q, fully proved %v", tt.name, v, tt.grade, tt.weakest, tt.proved)
		}
	}
	if GradeKernel.ProblemText() != "formally verified" || GradeAgents.Text() != "agents' word" {
		t.Errorf("grade texts %q, %q", GradeKernel.ProblemText(), GradeAgents.Text())
	}
}
