package skills

import (
	"slices"
	"strings"
	"testing"

	"github.com/proofloop/proofloop/model"
)

// TestDebateFileFollowsProtocol renders each debate file for a changed copy
// of its protocol: a changed limit and a new outcome must each show in the
// file (the turn fields are `prime`'s, checked by TestClaudeDebateFields), so the committed files go stale (and the sync test
// fails) whenever a protocol changes.
func TestDebateFileFollowsProtocol(t *testing.T) {
	for _, d := range AllDebateDocs() {
		p := *d.Protocol
		p.Fields = append(slices.Clone(p.Fields), model.Field{Name: "zz_new_field", Type: "string", Required: true, Enum: []string{"zz_value"}, Rule: "zz rule text"})
		p.Limit.N = 97
		p.Outcomes = append(slices.Clone(p.Outcomes), "ZZ_OUTCOME")
		got, err := debateFile(d, &p)
		if err != nil {
			t.Fatalf("%s: %v", d.Path, err)
		}
		for _, want := range []string{"The limit is 97 ", "| `ZZ_OUTCOME` |"} {
			if !strings.Contains(string(got), want) {
				t.Errorf("%s for a changed %s lacks %q", d.Path, p.Name, want)
			}
		}
		orig, err := debateFile(d, d.Protocol)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(orig), "zz_new_field") {
			t.Errorf("%s: rendering a copy changed the protocol itself", d.Path)
		}
	}
}

// TestDebateCommandsPerRole checks which commands each role is given: only
// the first role starts, only dialectic's main concludes and asks for
// consent, only partner suggests, and only socratic has the timeout path.
func TestDebateCommandsPerRole(t *testing.T) {
	has := func(p *model.Protocol, role, part string) bool {
		for _, c := range DebateCommands(p, role) {
			if strings.Contains(c.Run, part) {
				return true
			}
		}
		return false
	}
	for _, tc := range []struct {
		p    *model.Protocol
		role string
		part string
		want bool
	}{
		{&model.Dialectic, "main", "debate start --protocol dialectic", true},
		{&model.Dialectic, "partner", "debate start", false},
		{&model.Dialectic, "main", "--conclusion consensus|partial|disagreement", true},
		{&model.Dialectic, "partner", "--conclusion", false},
		{&model.Dialectic, "partner", "--suggestion TEXT", true},
		{&model.Dialectic, "main", "decide ID --suggestion N", true},
		{&model.Dialectic, "partner", "decide", false},
		{&model.Review, "reviewer", "--subject TEXT", true},
		{&model.Review, "responder", "--input -", true},
		{&model.Review, "responder", "--for-timeout", false},
		{&model.Socratic, "participant", "--outcome TIMEOUT --lease TOKEN", true},
		{&model.Agora, "mediator", "debate wait ID --participant-id P", true},
		{&model.Agora, "mediator", "debate start", false},
	} {
		if got := has(tc.p, tc.role, tc.part); got != tc.want {
			t.Errorf("DebateCommands(%s, %s) has %q = %v; want %v", tc.p.Name, tc.role, tc.part, got, tc.want)
		}
	}
}
