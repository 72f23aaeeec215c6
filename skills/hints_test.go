package skills

import (
	"testing"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// TestEveryRefusalHasAHint: every guard of the transition table has its
// skill's refusal line, which is both what the generated docs quote and
// the runtime hint, and it is not the generic line of guard_failed; every
// error code has a line of its own in the refusal table.
func TestEveryRefusalHasAHint(t *testing.T) {
	generic := CodeHint(store.CodeGuardFailed)
	for _, r := range model.Table {
		if len(r.Roles) == 0 {
			continue // the engine's own rule (settle-dispute): no caller gets its refusals
		}
		for _, g := range r.Guards {
			if h := GuardHint(r.Skill, g.Name); h == "" || h == generic {
				t.Errorf("guard %s of %s: hint %q; want the skill's own refusal line for it", g.Name, r.Skill, h)
			}
		}
	}
	seen := map[string]bool{}
	for _, e := range ExitCodes {
		h := CodeHint(e.Code)
		if h == "" {
			t.Errorf("code %s has no line in the refusal table", e.Code)
		}
		if seen[h] {
			t.Errorf("code %s shares its line %q with another code", e.Code, h)
		}
		seen[h] = true
	}
	if GuardHint("no-such-skill", "x") != "" || GuardHint("check-confirm-proof", "no_such_guard") != "" {
		t.Errorf("GuardHint answers for a skill or guard that does not exist")
	}
}
