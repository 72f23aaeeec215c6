package skills

import (
	"slices"
	"strings"
	"testing"

	"github.com/proofloop/proofloop/model"
)

// TestWorksOnFollowsTheTable: AGENTS.md's "works on" cell of a role names
// every status and condition on which the table gives that role a turn, and
// a rule added to the table shows up there with no other edit.
func TestWorksOnFollowsTheTable(t *testing.T) {
	for _, r := range append(Roles(), model.RoleDecide) {
		got := worksOn(r)
		for _, rule := range model.Table {
			for _, f := range rule.From {
				if f.Turn != r {
					continue
				}
				for _, s := range f.Statuses {
					if !strings.Contains(got, "`"+string(s)+"`") {
						t.Errorf("worksOn(%s) = %q; want it to name %s, where %s gives it a turn", r, got, s, rule.Skill)
					}
				}
				for _, g := range f.When {
					if !strings.Contains(got, g.Text) {
						t.Errorf("worksOn(%s) = %q; want it to say %q, %s's condition", r, got, g.Text, rule.Skill)
					}
				}
			}
		}
	}
	saved := model.Table
	t.Cleanup(func() { model.Table = saved })
	model.Table = slices.Clone(model.Table)
	model.AddRule(model.Rule{Skill: "test-audit", Roles: []model.Role{model.RoleCheck}, Kind: model.KindStatement,
		From: []model.From{{Statuses: []model.Status{model.StatementTrue}, Turn: model.RoleCheck}}})
	if got := worksOn(model.RoleCheck); !strings.Contains(got, "`true`") {
		t.Errorf("worksOn(check) with a rule giving check a turn on true = %q; want it to name true", got)
	}
}
