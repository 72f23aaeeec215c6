package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tidwall/sjson"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/skills"
)

// TestNextFollowsTheTable sets up, through the real CLI, the state every
// skill's example leaves (skills.ExampleSetup, then the example), and for
// every problem and statement of the root asks `next --role R --json` of
// every role. The role next offers an item to is the one the transition
// table gives a turn, read directly from the documents (model.Route, holds
// included), and nobody else's. Each state is checked four ways: as the
// example leaves it; with the round budget spent (config max_rounds 1, two
// idle turns written into every document by hand); with a dispute open on
// an open issue of every statement that has one; and with both. The holds
// are also checked another way than the table says them: a statement in its
// check/fix exchange with a dispute open is nobody's, and an open item past
// its budget without one is decide's.
func TestNextFollowsTheTable(t *testing.T) {
	seen := map[model.Status]bool{}
	held := map[string]int{} // statements checked with a dispute open, items with the budget spent
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

		for _, v := range []struct {
			name            string
			spent, disputed bool
		}{{"as it is", false, false}, {"budget spent", true, false}, {"dispute open", false, true}, {"both", true, true}} {
			vc := &cli{t, filepath.Join(t.TempDir(), "contents")}
			if err := os.CopyFS(vc.root, os.DirFS(c.root)); err != nil {
				t.Fatal(err)
			}
			disputes := map[string]bool{}
			if v.disputed {
				disputes = openDisputes(t, vc)
				held["dispute"] += len(disputes)
			}
			if v.spent {
				held["budget"] += spendBudgets(t, vc.root)
			}
			checkNext(t, vc, fmt.Sprintf("after %s, %s", sk.Name, v.name), v.spent, disputes, seen)
		}
	}
	for _, s := range model.StatementStatuses {
		if !seen[s] {
			t.Errorf("no skill's example leaves a statement %s: the test did not check next there", s)
		}
	}
	if held["dispute"] == 0 || held["budget"] == 0 {
		t.Errorf("checked %d disputed statements and %d items past their budget; want some of each", held["dispute"], held["budget"])
	}
}

// checkNext compares what next offers on c's root with the table's turns.
// spent says every open item is past its budget; disputed names the
// statements with a dispute open.
func checkNext(t *testing.T, c *cli, label string, spent bool, disputed map[string]bool, seen map[model.Status]bool) {
	t.Helper()
	offered := map[string]model.Role{}
	for _, r := range []model.Role{model.RoleSolve, model.RoleProve, model.RoleCheck, model.RoleFix, model.RoleDecide} {
		var out struct {
			Items []struct {
				ID   string     `json:"id"`
				Role model.Role `json:"role"`
			} `json:"items"`
		}
		if err := json.Unmarshal([]byte(c.must("", "anyone", "next", "--role", string(r), "--json")), &out); err != nil {
			t.Fatal(err)
		}
		for _, it := range out.Items {
			if it.Role != r {
				t.Errorf("%s: next --role %s offers %s to %s", label, r, it.ID, it.Role)
			}
			offered[it.ID] = r
		}
	}
	var cfg struct {
		MaxRounds int `json:"max_rounds"`
	}
	readJSON(t, filepath.Join(c.root, "config.json"), &cfg)
	for _, k := range []model.Kind{model.KindProblem, model.KindStatement} {
		files, _ := filepath.Glob(filepath.Join(c.root, k.Dir(), "*.json"))
		for _, file := range files {
			var f *model.Facts
			var id string
			inPlay := false
			if k == model.KindStatement {
				var st model.Statement
				readJSON(t, file, &st)
				id, seen[st.Status] = st.ID, true
				f = model.StatementFacts(&st, children(t, c.root, st.SubStatements))
				inPlay = !model.Resolved(st.Status) && st.Status != model.StatementNeedsModification
			} else {
				var p model.Problem
				readJSON(t, file, &p)
				id = p.ID
				f = model.ProblemFacts(&p, children(t, c.root, p.Progresses))
				inPlay = p.Status != model.ProblemSolved
			}
			f.MaxRounds = cfg.MaxRounds
			grants := model.Route(k, f)
			var want model.Role
			if len(grants) > 0 {
				want = grants[0].Role
			}
			for _, g := range grants {
				if g.Role != want {
					t.Errorf("%s: the table gives turns on %s to %s and %s; the index keeps one role per item", label, id, want, g.Role)
				}
			}
			switch got := offered[id]; {
			case got != want:
				t.Errorf("%s: next offers %s %s (%s) to %q; the table gives the turn to %q (%v)", label, k, id, f.Status, got, want, grants)
			case inPlay && disputed[id] && got != "":
				t.Errorf("%s: next offers %s, whose dispute is open, to %s; want nobody", label, id, got)
			case inPlay && spent && !disputed[id] && got != model.RoleDecide:
				t.Errorf("%s: next offers %s (%s), past its budget, to %q; want decide", label, id, f.Status, got)
			}
		}
	}
}

// openDisputes opens a dispute on the first open issue of every statement
// of the root that is not final, as its fixer would, and names them.
func openDisputes(t *testing.T, c *cli) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	files, _ := filepath.Glob(filepath.Join(c.root, "statement", "*.json"))
	for _, file := range files {
		var st model.Statement
		readJSON(t, file, &st)
		if open := st.OpenIssues(); len(open) > 0 && !model.Resolved(st.Status) {
			ref := fmt.Sprintf("%s#%d", st.ID, open[0])
			c.must("", "disputer", "debate", "start", "--protocol", "socratic", "--topic", "Does "+ref+" hold", "--about", ref)
			out[st.ID] = true
		}
	}
	return out
}

// spendBudgets writes two idle turns into every problem and statement by
// hand and sets max_rounds to 1, so that every open item is past its
// budget; the new max_rounds makes the next read rebuild the index from
// the documents. It returns how many documents it wrote.
func spendBudgets(t *testing.T, root string) int {
	t.Helper()
	n := 0
	for _, dir := range []string{"problem", "statement"} {
		files, _ := filepath.Glob(filepath.Join(root, dir, "*.json"))
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if data, err = sjson.SetBytes(data, "idle_turns", 2); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, data, 0o644); err != nil {
				t.Fatal(err)
			}
			n++
		}
	}
	file := filepath.Join(root, "config.json")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if data, err = sjson.SetBytes(data, "max_rounds", 1); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return n
}

// children reads the status of each statement ids, with the issue it
// fills, as the router sees a document's children.
func children(t *testing.T, root string, ids []string) []model.Child {
	var out []model.Child
	for _, id := range ids {
		var st model.Statement
		readJSON(t, filepath.Join(root, "statement", id+".json"), &st)
		out = append(out, model.Child{ID: id, Status: st.Status, FillsIssue: st.FillsIssue})
	}
	return out
}

func readJSON(t *testing.T, file string, v any) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}
