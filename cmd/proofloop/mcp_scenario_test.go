package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// step is one call of a scenario: a tool and its arguments, which
// cliArgs also turns into the equivalent command line.
type step struct {
	tool  string
	actor string
	args  map[string]any
}

// solvedScenario is the story of testdata/script/e2e_solved.txtar, without
// its refusals: one problem taken to solved through the eleven skills and
// decide.
var solvedScenario = []step{
	{"new_problem", "sol", map[string]any{"name": "sq", "objective": "The sum of the first n odd numbers is n^2."}},
	{"prob_setup_subgoal", "sol", map[string]any{"parent_problem_path": "prob_sq", "subproblem_objective": "Show (n+1)^2 = n^2 + 2n + 1 for every integer n.", "subproblem_hypothesis": []string{"n is an integer"}, "rationale": "The inductive step needs this identity."}},
	{"prob_wrapup_statement", "sol", map[string]any{"problem_path": "prob_sq_sub1", "claim": "For every integer n, (n+1)^2 = n^2 + 2n + 1.", "purpose": "It is the objective of the subgoal."}},
	{"state_complete_proof", "pro", map[string]any{"statement_path": "stmt_sq_sub1_wrap", "proof_text": "(n+1)^2 = (n+1)(n+1) = n^2 + n + n + 1 = n^2 + 2n + 1.", "strategy": "direct"}},
	{"check_confirm_proof", "chk", map[string]any{"statement_path": "stmt_sq_sub1_wrap", "verification_summary": "One line of algebra."}},
	{"prob_finish_up", "sol", map[string]any{"problem_path": "prob_sq_sub1", "key_statement_id": "stmt_sq_sub1_wrap", "resolution": "The wrap-up statement is the objective."}},
	{"prob_wrapup_statement", "sol", map[string]any{"problem_path": "prob_sq", "claim": "For every integer n, 1 + 3 + ... + (2n-1) = n^2.", "premises": []string{"n is an integer"}, "purpose": "It is the objective."}},
	{"state_propose_modification", "pro", map[string]any{"statement_path": "stmt_sq_wrap", "source": "prove", "modification_type": "add_condition", "suggested_claim": "For every n >= 1, 1 + 3 + ... + (2n-1) = n^2.", "suggested_premises": []string{"n is a positive integer"}, "rationale": "The sum has no meaning for negative n."}},
	{"decide", "lead", map[string]any{"id": "stmt_sq_wrap", "accept": true, "reason": "The objective is about positive n."}},
	{"state_setup_substatement", "pro", map[string]any{"parent_statement_path": "stmt_sq_wrap", "rationale": "Induction on n, with a shortcut through primes.", "sub_statements": []map[string]any{
		{"claim": "1 = 1^2.", "premises": []string{}},
		{"claim": "If 1 + 3 + ... + (2n-1) = n^2, then 1 + 3 + ... + (2n+1) = (n+1)^2.", "premises": []string{"n is a positive integer"}},
		{"claim": "For every n >= 2, 2n - 1 is prime.", "premises": []string{}},
	}}},
	{"state_complete_proof", "pro", map[string]any{"statement_path": "stmt_sq_wrap_sub1", "proof_text": "Both sides equal 1.", "strategy": "direct"}},
	{"check_confirm_proof", "chk", map[string]any{"statement_path": "stmt_sq_wrap_sub1"}},
	{"state_mark_false", "pro", map[string]any{"statement_path": "stmt_sq_wrap_sub3", "source": "prove", "counterexample": "n = 5: 2n - 1 = 9 = 3 * 3."}},
	{"state_complete_proof", "pro", map[string]any{"statement_path": "stmt_sq_wrap_sub2", "proof_text": "Step 1: Assume $1 + 3 + \\dots + (2n-1) = n^2$. Step 2: Adding $2n+1$ gives $1 + 3 + \\dots + (2n+1) = n^2 + 2n + 1$. Step 3: This is $(n+1)^2$.", "strategy": "direct"}},
	{"check_reject_proof", "chk", map[string]any{"statement_path": "stmt_sq_wrap_sub2", "sentence_number": 2, "sentence_text": "Adding $2n+1$ gives", "error_type": "gap", "explanation": "Added to what? Say both sides."}},
	{"fix_patch_proof", "fix", map[string]any{"statement_path": "stmt_sq_wrap_sub2", "issue_number": []int{1}, "sentence_range": "2", "replacement_text": "Step 2: Adding $2n+1$ to both sides gives $1 + 3 + \\dots + (2n+1) = n^2 + 2n + 1$.", "change_description": "Say both sides."}},
	{"check_reject_proof", "chk", map[string]any{"statement_path": "stmt_sq_wrap_sub2", "sentence_number": 3, "sentence_text": "This is $(n+1)^2$.", "error_type": "unjustified_leap", "explanation": "Why is n^2 + 2n + 1 equal to (n+1)^2?"}},
	{"fix_create_substatement", "fix", map[string]any{"statement_path": "stmt_sq_wrap_sub2", "issue_number": 2, "sub_claim": "For every integer n, n^2 + 2n + 1 = (n+1)^2.", "gap_location": 3, "purpose": "Justifies step 3."}},
	{"state_complete_proof", "pro", map[string]any{"statement_path": "stmt_sq_wrap_sub2_fix1", "proof_text": "It is stmt_sq_sub1_wrap read from right to left.", "strategy": "direct"}},
	{"check_confirm_proof", "chk", map[string]any{"statement_path": "stmt_sq_wrap_sub2_fix1"}},
	{"fix_patch_proof", "fix", map[string]any{"statement_path": "stmt_sq_wrap_sub2", "issue_number": []int{2}, "sentence_range": "3", "replacement_text": "Step 3: By stmt_sq_wrap_sub2_fix1 this is $(n+1)^2$.", "change_description": "Cite the gap-filling sub-statement."}},
	{"check_confirm_proof", "chk", map[string]any{"statement_path": "stmt_sq_wrap_sub2"}},
	{"state_complete_proof", "pro", map[string]any{"statement_path": "stmt_sq_wrap", "proof_text": "By induction on n: the base case is stmt_sq_wrap_sub1 and the step is stmt_sq_wrap_sub2.", "strategy": "induction"}},
	{"check_confirm_proof", "chk", map[string]any{"statement_path": "stmt_sq_wrap", "verification_summary": "Base case and step are true sub-statements."}},
	{"prob_finish_up", "sol", map[string]any{"problem_path": "prob_sq", "key_statement_id": "stmt_sq_wrap", "resolution": "stmt_sq_wrap is the objective for every n >= 1."}},
}

// cliArgs writes a step as the CLI's command line: kebab-case flags, lists
// as repeated flags, sub-statements as a JSON flag, id as the argument.
func cliArgs(s step) []string {
	args := []string{strings.ReplaceAll(s.tool, "_", "-"), "--actor", s.actor}
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range s.args {
			if !yield(k) {
				return
			}
		}
	}) {
		flag := "--" + strings.ReplaceAll(k, "_", "-")
		switch v := s.args[k].(type) {
		case bool:
			args = append(args, flag)
		case []string:
			for _, x := range v {
				args = append(args, flag, x)
			}
		case []int:
			for _, x := range v {
				args = append(args, flag, fmt.Sprint(x))
			}
		case []map[string]any:
			b, _ := json.Marshal(v)
			args = append(args, flag, string(b))
		default:
			if k == "id" {
				args = append(args, fmt.Sprint(v))
				continue
			}
			args = append(args, flag, fmt.Sprint(v))
		}
	}
	return args
}

// TestMCPScenarioMatchesCLI takes a problem through the eleven skills by
// tool calls only, each as its role's actor, and the same story through
// the CLI, and compares the two stores: the same documents with the same
// fields (times and hashes aside) and the same event log.
func TestMCPScenarioMatchesCLI(t *testing.T) {
	viaCLI, viaMCP := newRoot(t), newRoot(t)
	for i, s := range solvedScenario {
		if code, _, stderr := mcpCLI(t, viaCLI, cliArgs(s)...); code != 0 {
			t.Fatalf("CLI step %d %v: exit %d: %s", i+1, cliArgs(s), code, stderr)
		}
	}
	cs := connect(t, viaMCP, nil)
	for i, s := range solvedScenario {
		args := map[string]any{"actor": s.actor}
		for k, v := range s.args {
			args[k] = v
		}
		res, obj := call(t, cs, s.tool, args)
		if res.IsError || obj["ok"] != true {
			t.Fatalf("tool step %d %s: %v", i+1, s.tool, obj)
		}
		if text, _ := res.Content[0].(*mcp.TextContent); len(res.Content) != 1 || text == nil || text.Text == "" || strings.Contains(text.Text, "\n") {
			t.Errorf("tool step %d %s: content = %s; want the result's sentence, one line", i+1, s.tool, js(res.Content))
		}
	}
	_, last := call(t, cs, "show", map[string]any{"ids": []string{"prob_sq"}})
	if last["status"] != "solved" {
		t.Fatalf("prob_sq after the tool calls is %v; want solved", last["status"])
	}
	got, want := storeState(t, viaMCP), storeState(t, viaCLI)
	var diffs []string
	diffJSON("$", got, want, &diffs)
	if len(diffs) > 0 {
		t.Errorf("the store made by tool calls differs from the CLI's:\n%s", strings.Join(diffs, "\n"))
	}
	if docs := got["documents"].(map[string]any); len(docs) != 8 {
		t.Errorf("the store has %d documents; want 2 problems and 6 statements", len(docs))
	}
}

// storeState reads every document of a root, and the event log without its
// times and hashes, normalised for comparison.
func storeState(t *testing.T, root string) map[string]any {
	t.Helper()
	docs := map[string]any{}
	for _, dir := range []string{"problem", "statement"} {
		files, _ := filepath.Glob(filepath.Join(root, dir, "*.json"))
		for _, f := range files {
			var v any
			b, err := os.ReadFile(f)
			if err == nil {
				err = json.Unmarshal(b, &v)
			}
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			docs[dir+"/"+filepath.Base(f)] = normalize(v)
		}
	}
	var events []any
	b, err := os.ReadFile(filepath.Join(root, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var v any
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("events.jsonl: %v", err)
		}
		events = append(events, normalize(dropTimePatches(v)))
	}
	return map[string]any{"documents": docs, "events": events}
}

// dropTimePatches removes the patch ops on updated_at from an event: the
// op is absent when a change lands in the same clock tick as the last one.
func dropTimePatches(ev any) any {
	m, _ := ev.(map[string]any)
	for _, c := range asSlice(m["changes"]) {
		ch, _ := c.(map[string]any)
		if ch == nil {
			continue
		}
		ops := []any{}
		for _, op := range asSlice(ch["patch"]) {
			if o, _ := op.(map[string]any); o["path"] != "/updated_at" {
				ops = append(ops, op)
			}
		}
		ch["patch"] = ops
	}
	return ev
}
