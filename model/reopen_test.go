package model

import (
	"errors"
	"strings"
	"testing"
)

// TestReopenGuards: reopen acts on a true statement only, with
// check-reject-proof's checks against its proof and its self-check rule.
func TestReopenGuards(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(f *Facts)
		guard  string
		reason string
	}{
		{"passes", func(f *Facts) {}, "", ""},
		{"sentence out of range", func(f *Facts) { f.Sentence = 4 }, "sentence_in_range", "the proof has 3 sentences"},
		{"wrong quote", func(f *Facts) { f.Quote = "Hence the claim" }, "sentence_text_found", "in sentence 3"},
		{"by the proof's author", func(f *Facts) { f.ForbidSelfCheck, f.Actor, f.ProofAuthor = true, "alice", "alice" }, "not_self_check", "alice wrote proof revision"},
		{"by the author, self-check allowed", func(f *Facts) { f.Actor, f.ProofAuthor = "alice", "alice" }, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := passing(StatementTrue, "")
			tt.mutate(f)
			err := Allow("reopen", f)
			if tt.guard == "" {
				if err != nil {
					t.Fatalf("Allow = %v; want allowed", err)
				}
				return
			}
			var ge *GuardError
			if !errors.As(err, &ge) || ge.Guard != tt.guard || !strings.Contains(err.Error(), tt.reason) {
				t.Errorf("Allow = %v; want guard %s with %q", err, tt.guard, tt.reason)
			}
		})
	}
	for _, st := range []Status{StatementAwaitingVerification, StatementHasGap, StatementFalse, StatementPending} {
		var te *TransitionError
		if err := Allow("reopen", passing(st, "")); !errors.As(err, &te) {
			t.Errorf("Allow(reopen, %s) = %v; want a TransitionError", st, err)
		}
	}
	if r, _ := Lookup("reopen"); len(r.Roles) != 1 || r.Roles[0] != RoleCheck {
		t.Errorf("reopen roles %v; want [check]", r.Roles)
	}
}
