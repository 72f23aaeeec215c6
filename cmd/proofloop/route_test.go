package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/skills"
)

// TestNextFollowsTheTable sets up, through the real CLI, the state every
// skill's example leaves (skills.ExampleSetup, then the example), and for
// every document of the root asks `next --role R --json` of every role. The
// roles that may be offered an item come from the transition table read
// directly (model.TurnRoles: the From entries that give a turn on its
// status): next offers nothing else, and it offers every item the table
// gives a turn on unless the item waits on its children.
func TestNextFollowsTheTable(t *testing.T) {
	roles := []model.Role{model.RoleSolve, model.RoleProve, model.RoleCheck, model.RoleFix, model.RoleDecide}
	seen := map[model.Status]bool{}
	for _, sk := range skills.Registry {
		lines, err := skills.ExampleSetup(sk)
		if err != nil {
			t.Fatal(err)
		}
		c := emptyFolder(t)
		for _, line := range lines {
			c.must("", "setup-user", shellWords(t, line)[1:]...)
		}
		actor := skills.ExampleActor(sk.Rule().Roles[0])
		c.must("", actor, append(shellWords(t, "proofloop "+sk.Name+" "+sk.Example)[1:], "--json")...)

		offered := map[string]model.Role{}
		for _, r := range roles {
			var out struct {
				Items []struct {
					ID     string       `json:"id"`
					Role   model.Role   `json:"role"`
					Status model.Status `json:"status"`
				} `json:"items"`
			}
			if err := json.Unmarshal([]byte(c.must("", "anyone", "next", "--role", string(r), "--json")), &out); err != nil {
				t.Fatal(err)
			}
			for _, it := range out.Items {
				if it.Role != r {
					t.Errorf("after %s: next --role %s offers %s to %s", sk.Name, r, it.ID, it.Role)
				}
				offered[it.ID] = r
			}
		}
		for _, k := range []model.Kind{model.KindProblem, model.KindStatement} {
			files, _ := filepath.Glob(filepath.Join(c.root, k.Dir(), "*.json"))
			for _, file := range files {
				var doc struct {
					ID            string       `json:"id"`
					Status        model.Status `json:"status"`
					SubStatements []string     `json:"sub_statements"`
					Progresses    []string     `json:"progresses"`
				}
				data, err := os.ReadFile(file)
				if err != nil {
					t.Fatal(err)
				}
				if err := json.Unmarshal(data, &doc); err != nil {
					t.Fatal(err)
				}
				if k == model.KindStatement {
					seen[doc.Status] = true
				}
				allowed := model.TurnRoles(k, doc.Status)
				role, ok := offered[doc.ID]
				switch {
				case ok && !slices.Contains(allowed, role):
					t.Errorf("after %s: next offers %s %s to %s; the table gives a turn on %s only to %v", sk.Name, k, doc.ID, role, doc.Status, allowed)
				case !ok && len(allowed) > 0 && !waitsOnChildren(t, c.root, append(doc.SubStatements, doc.Progresses...)):
					t.Errorf("after %s: next offers %s %s (%s) to nobody; the table gives a turn on %s to %v", sk.Name, k, doc.ID, doc.Status, doc.Status, allowed)
				}
			}
		}
	}
	for _, s := range model.StatementStatuses {
		if !seen[s] {
			t.Errorf("no skill's example leaves a statement %s: the test did not check next there", s)
		}
	}
}

// waitsOnChildren reports whether one of the statements ids is still open.
func waitsOnChildren(t *testing.T, root string, ids []string) bool {
	for _, id := range ids {
		data, err := os.ReadFile(filepath.Join(root, "statement", id+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var st struct {
			Status model.Status `json:"status"`
		}
		if err := json.Unmarshal(data, &st); err != nil {
			t.Fatal(err)
		}
		if !model.Resolved(st.Status) {
			return true
		}
	}
	return false
}
