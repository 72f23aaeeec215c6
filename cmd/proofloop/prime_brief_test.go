package main

import (
	"strings"
	"testing"

	"github.com/proofloop/proofloop/model"
)

// TestIssueLineKeepsLaTeX: an open issue's quoted sentence reaches the
// agent as written, on one line: %q doubled every backslash of its LaTeX
// (`\\frac`), which the agent then quoted back wrong.
func TestIssueLineKeepsLaTeX(t *testing.T) {
	var b strings.Builder
	issueLine(&b, "", model.Issue{IssueNumber: 2, ErrorType: "gap", Severity: "gap",
		SentenceText: "Then $\\frac{a}{b}\n  \\le 1$", Explanation: "Why?"})
	want := "open issue 2 (gap, gap): quoted \"Then $\\frac{a}{b} \\le 1$\". Why?\n"
	if b.String() != want {
		t.Errorf("issueLine wrote %q; want %q", b.String(), want)
	}
}
