package model

import (
	"slices"
	"testing"
)

func TestDescribeChanges(t *testing.T) {
	const base = `{"id":"s","status":"has_gap","revision":3,"updated_at":"t1","proof":"A. B. C.","proof_revision":1,"validate":{"issues":[{"issue_number":1,"sentence":2,"error_type":"gap","sentence_text":"B."}],"responses":[]}}`
	tests := []struct {
		name          string
		before, after string
		want          []string
	}{
		{"created", "", `{"id":"s","status":"pending"}`, []string{"created (pending)"}},
		{"deleted", base, "", []string{"deleted"}},
		{"bookkeeping only", base, `{"id":"s","status":"has_gap","revision":4,"updated_at":"t2","proof":"A. B. C.","proof_revision":1,"validate":{"issues":[{"issue_number":1,"sentence":2,"error_type":"gap","sentence_text":"B."}],"responses":[]}}`, nil},
		{"patch of one sentence", base,
			`{"id":"s","status":"awaiting_verification","revision":4,"proof":"A. B, because A. C.","proof_revision":2,"validate":{"issues":[{"issue_number":1,"sentence":2,"error_type":"gap","sentence_text":"B."}],"responses":[{"response_number":1,"type":"patch","issue_addressed":1,"actor":"fix"}]}}`,
			[]string{`status: "has_gap" → "awaiting_verification"`, "proof: revision 1 → 2 (sentence 2 replaced)", "validate.responses[0] added: patch answering issue 1 by fix"}},
		{"sentences removed and a field set", base,
			`{"id":"s","status":"has_gap","proof":"A.","proof_revision":2,"round":2,"validate":{"issues":[{"issue_number":1,"sentence":2,"error_type":"gap","sentence_text":"B.","superseded_at":"t"}],"responses":[]}}`,
			[]string{"proof: revision 1 → 2 (sentences 2–3 removed)", "round added: 2", `validate.issues[0] changed: superseded_at added`}},
		{"an issue added", base,
			`{"id":"s","status":"has_gap","proof":"A. B. C.","proof_revision":1,"validate":{"issues":[{"issue_number":1,"sentence":2,"error_type":"gap","sentence_text":"B."},{"issue_number":2,"sentence":3,"error_type":"unjustified_leap","sentence_text":"C."}],"responses":[]}}`,
			[]string{`validate.issues[1] added: sentence 3, unjustified_leap, "C."`}},
		{"first proof", `{"status":"pending","proof":null,"proof_revision":0}`, `{"status":"pending","proof":"A. B.","proof_revision":1}`,
			[]string{"proof: revision 1 written (2 sentences)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b, a []byte
			if tt.before != "" {
				b = []byte(tt.before)
			}
			if tt.after != "" {
				a = []byte(tt.after)
			}
			if got := DescribeChanges(b, a); !slices.Equal(got, tt.want) {
				t.Errorf("DescribeChanges = %q; want %q", got, tt.want)
			}
		})
	}
}
