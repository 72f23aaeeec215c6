package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/skills"
	"github.com/proofloop/proofloop/store"
)

// TestRefusalHints (issue 22, item 6) walks the refusals through the real
// binary: every guard of the transition table (model.Table) that a call can
// reach, and every error code of the contract (skills.ExitCodes) that a
// command can meet, each with --json. Each refusal must carry a hint that
// says what to do now, in its own terms: never the generic line of its
// code, and for a guard exactly the skill's refusal of that guard that the
// generated docs quote (one source).
func TestRefusalHints(t *testing.T) {
	root := newRoot(t)
	proof := "Step 1: For n = 1 both sides are 1. Step 2: Adding 2n+1 gives (n+1)^2. Step 3: Hence the claim holds."
	ok := func(args ...string) map[string]any {
		t.Helper()
		code, out, stderr := mcpCLI(t, root, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d %v %s", args, code, out, stderr)
		}
		return out
	}
	seen := map[string]bool{} // codes met
	// refused runs a call that must be refused with code, and returns its hint.
	refused := func(code string, args ...string) string {
		t.Helper()
		exit, out, stderr := mcpCLI(t, root, args...)
		e, _ := out["error"].(map[string]any)
		if exit != skills.ExitOf(store.Code(code)) || e == nil || e["code"] != code {
			t.Fatalf("%v: exit %d %v %s; want %s", args, exit, out, stderr, code)
		}
		seen[code] = true
		h, _ := e["hint"].(string)
		if h == "" || h == skills.CodeHint(store.Code(code)) {
			t.Errorf("%v: hint %q; want a hint of its own", args, h)
		}
		return h
	}
	wants := func(h string, parts ...string) {
		t.Helper()
		for _, p := range parts {
			if !strings.Contains(h, p) {
				t.Errorf("hint %q; want it to say %q", h, p)
			}
		}
	}
	guards := map[[2]string]bool{} // (skill, guard) met
	guard := func(skill, name string, args ...string) {
		t.Helper()
		h := refused("guard_failed", append([]string{skill}, args...)...)
		guards[[2]string{skill, name}] = true
		if want := skills.GuardHint(skill, name); h != want {
			t.Errorf("%s %s: hint %q; want the skill's refusal of the guard, %q", skill, name, h, want)
		}
	}

	ok("new-problem", "--name", "odd", "--objective", "The sum of the first n odd numbers is n^2.")
	for range 3 {
		ok("prob-wrapup-statement", "--problem-path", "prob_odd", "--claim", "For n >= 1, 1 + 3 + ... + (2n-1) = n^2.", "--purpose", "the objective", "--actor", "solver")
	}
	a, b, c := "stmt_odd_wrap", "stmt_odd_wrap2", "stmt_odd_wrap3"

	// invalid_transition: another role's turn names it and says to release
	// and end the turn; the caller's own role's turn names its skills.
	h := refused("invalid_transition", "check-confirm-proof", "--statement-path", a, "--actor", "bob")
	wants(h, "it is prove's turn on "+a, "not check's", "release it and end your turn")
	guard("prob-finish-up", "key_statement_true", "--problem-path", "prob_odd", "--key-statement-id", a, "--resolution", "done")

	// A: sub-statements still open.
	ok("state-setup-substatement", "--parent-statement-path", a, "--sub-statements", `[{"claim": "1 = 1."}]`, "--rationale", "r", "--actor", "alice")
	guard("state-complete-proof", "no_open_substatement", "--statement-path", a, "--strategy", "direct", "--proof-text", proof, "--actor", "alice")
	guard("state-setup-substatement", "no_open_substatement", "--parent-statement-path", a, "--sub-statements", `[{"claim": "2 = 2."}]`, "--rationale", "r", "--actor", "alice")

	// B: a proof by alice awaiting verification, then a gap.
	ok("state-complete-proof", "--statement-path", b, "--strategy", "induction", "--proof-text", proof, "--actor", "alice")
	h = refused("invalid_transition", "state-complete-proof", "--statement-path", b, "--strategy", "direct", "--proof-text", proof, "--actor", "alice")
	wants(h, "it is check's turn on "+b, "not prove's", "release it and end your turn")
	guard("check-confirm-proof", "not_self_check", "--statement-path", b, "--actor", "alice")
	wants(skills.GuardHint("check-confirm-proof", "not_self_check"), "another checker", "release")
	reject := func(by, n, quote string) []string {
		return []string{"--statement-path", b, "--sentence-number", n, "--sentence-text", quote, "--error-type", "gap", "--explanation", "why", "--actor", by}
	}
	guard("check-reject-proof", "not_self_check", reject("alice", "2", "Adding 2n+1")...)
	guard("check-reject-proof", "sentence_in_range", reject("bob", "9", "Adding 2n+1")...)
	guard("check-reject-proof", "sentence_text_found", reject("bob", "2", "no such words")...)
	ok(append([]string{"check-reject-proof"}, reject("bob", "2", "Adding 2n+1")...)...)
	guard("check-reject-proof", "not_a_repeat", reject("dan", "2", "Adding  2n+1")...)
	// The same role, the wrong skill: it names the skills of its turn.
	h = refused("invalid_transition", "check-confirm-proof", "--statement-path", b, "--actor", "bob")
	wants(h, "it is fix's turn on "+b, "not check's", "release it and end your turn", "as check, only check-reject-proof")
	h = refused("invalid_transition", "state-complete-proof", "--statement-path", b, "--strategy", "direct", "--proof-text", proof, "--actor", "carol")
	wants(h, "it is fix's turn", "not prove's")
	guard("state-mark-false", "fix_names_open_issue", "--statement-path", b, "--source", "fix", "--counterexample", "n = 0", "--actor", "fixer")
	guard("state-propose-modification", "fix_names_open_issue", "--statement-path", b, "--source", "fix", "--modification-type", "add_condition", "--suggested-claim", "c", "--rationale", "r", "--actor", "fixer")
	// decide acts on b only for what its guards name: a proposed
	// modification, or a spent round budget.
	guard("decide", "modification_proposed", b, "--accept", "--reason", "r", "--actor", "dee")
	guard("decide", "budget_exhausted", b, "--extend", "2", "--reason", "r", "--actor", "dee")
	patch := func(issue, rng string) []string {
		return []string{"--statement-path", b, "--issue-number", issue, "--sentence-range", rng, "--replacement-text", "Step 2: It follows.", "--change-description", "d", "--actor", "fixer"}
	}
	guard("fix-patch-proof", "named_issue_open", patch("9", "2")...)
	guard("fix-patch-proof", "range_in_bounds", patch("1", "7-9")...)
	guard("fix-create-substatement", "named_issue_open", "--statement-path", b, "--issue-number", "9", "--sub-claim", "x", "--gap-location", "2", "--purpose", "p", "--actor", "fixer")
	ok("fix-create-substatement", "--statement-path", b, "--issue-number", "1", "--sub-claim", "n^2 + 2n + 1 = (n+1)^2.", "--gap-location", "2", "--purpose", "p", "--actor", "fixer")
	guard("fix-patch-proof", "no_open_substatement", patch("1", "2")...)

	// D: a rejected formalization, which only a new formalization answers.
	d := "stmt_odd_wrap4"
	ok("prob-wrapup-statement", "--problem-path", "prob_odd", "--claim", "For every n, n + 0 = n.", "--purpose", "a formal one", "--actor", "solver")
	ok("state-formalize", "--statement-path", d, "--system", "coq", "--source", "prove", "--formal-statement", "Theorem t : forall n : nat, n + 0 = n. Admitted.", "--actor", "alice")
	ok("check-reject-formalization", "--statement-path", d, "--explanation", "It misstates the claim.", "--actor", "bob")
	guard("fix-patch-proof", "named_issue_on_proof", "--statement-path", d, "--issue-number", "1", "--sentence-range", "1", "--replacement-text", "x", "--change-description", "d", "--actor", "fixer")
	guard("fix-create-substatement", "named_issue_on_proof", "--statement-path", d, "--issue-number", "1", "--sub-claim", "x", "--gap-location", "1", "--purpose", "p", "--actor", "fixer")

	// C: proved by alice, confirmed by bob; reopen's guards.
	ok("state-complete-proof", "--statement-path", c, "--strategy", "induction", "--proof-text", proof, "--actor", "alice")
	h = refused("invalid_transition", "reopen", "--statement-path", c, "--sentence-number", "2", "--sentence-text", "Adding", "--error-type", "gap", "--explanation", "e", "--actor", "bob")
	wants(h, "it is check's turn on "+c, "but not with reopen", "use check-confirm-proof or check-reject-proof")
	ok("check-confirm-proof", "--statement-path", c, "--actor", "bob")
	h = refused("invalid_transition", "check-confirm-proof", "--statement-path", c, "--actor", "carol")
	wants(h, "no role has a turn on "+c, "reopen", "release it and end your turn")
	reopen := func(by, n, quote string) []string {
		return []string{"reopen", "--statement-path", c, "--sentence-number", n, "--sentence-text", quote, "--error-type", "gap", "--explanation", "why", "--actor", by}
	}
	guard("reopen", "not_self_check", reopen("alice", "2", "Adding 2n+1")[1:]...)
	guard("reopen", "sentence_in_range", reopen("carol", "9", "Adding 2n+1")[1:]...)
	guard("reopen", "sentence_text_found", reopen("carol", "2", "no such words")[1:]...)

	// E: a statement that climbs to replan, whose prover must write the
	// lesson, may not repeat the dead end and must change the plan; then a
	// decomposition shown false, which may not be planned again.
	ok("config", "set", "escalation", `[{"level":"revise","rounds":1},{"level":"replan"}]`, "--actor", "ops")
	ok("prob-wrapup-statement", "--problem-path", "prob_odd", "--claim", "For n >= 1, 1 + 3 + ... + (2n-1) = n^2.", "--purpose", "the objective", "--actor", "solver")
	e := "stmt_odd_wrap5"
	ok("state-complete-proof", "--statement-path", e, "--strategy", "direct", "--proof-text", proof, "--actor", "alice")
	for i, quote := range []string{"Adding 2n+1", "Hence the claim"} {
		ok("check-reject-proof", "--statement-path", e, "--sentence-number", fmt.Sprint(2+i), "--sentence-text", quote, "--error-type", "gap", "--explanation", "why", "--actor", "bob")
		if i == 0 {
			ok("fix-patch-proof", "--statement-path", e, "--issue-number", "1", "--sentence-range", "2", "--replacement-text", "Step 2: Adding 2n+1 to n^2 gives n^2 + 2n + 1 = (n+1)^2.", "--change-description", "d", "--actor", "fixer")
		}
	}
	other := "Step 1: Both sides agree at n = 1. Step 2: Each step adds 2n+1 to both. Step 3: So they agree for all n."
	guard("state-complete-proof", "lesson_given", "--statement-path", e, "--strategy", "induction", "--proof-text", other, "--actor", "alice")
	guard("state-complete-proof", "not_a_dead_end", "--statement-path", e, "--strategy", "induction", "--proof-text", proof, "--lesson", "l", "--actor", "alice")
	guard("state-complete-proof", "plan_changed", "--statement-path", e, "--strategy", "direct", "--proof-text", other, "--lesson", "l", "--actor", "alice")
	subs := `[{"claim": "2 + 2 = 5."}]`
	ok("state-setup-substatement", "--parent-statement-path", e, "--sub-statements", subs, "--rationale", "r", "--lesson", "Pair the steps.", "--actor", "alice")
	ok("state-mark-false", "--statement-path", e+"_sub1", "--source", "prove", "--counterexample", "2 + 2 = 4.", "--actor", "alice")
	guard("state-setup-substatement", "lesson_given", "--parent-statement-path", e, "--sub-statements", `[{"claim": "1 = 1."}]`, "--rationale", "r", "--actor", "alice")
	guard("state-setup-substatement", "not_a_dead_end", "--parent-statement-path", e, "--sub-statements", subs, "--rationale", "r", "--lesson", "l", "--actor", "alice")
	// A new statement under review_statements waits for its review.
	ok("config", "set", "review_statements", "true", "--actor", "ops")
	ok("prob-wrapup-statement", "--problem-path", "prob_odd", "--claim", "For n >= 1, 1 + 3 + ... + (2n-1) = n^2.", "--purpose", "the objective", "--actor", "solver")
	guard("state-complete-proof", "statement_reviewed", "--statement-path", "stmt_odd_wrap6", "--strategy", "direct", "--proof-text", proof, "--actor", "alice")
	guard("state-setup-substatement", "statement_reviewed", "--parent-statement-path", "stmt_odd_wrap6", "--sub-statements", subs, "--rationale", "r", "--actor", "alice")
	guard("state-formalize", "statement_reviewed", "--statement-path", "stmt_odd_wrap6", "--system", "coq", "--source", "prove", "--formal-statement", "Theorem t : forall n : nat, n + 0 = n. Admitted.", "--actor", "alice")
	ok("config", "set", "review_statements", "false", "--actor", "ops")

	// Every guard of the table: met above, or not reachable through a call
	// (the input is refused before the guard runs, or no status lets it fail).
	unreachable := map[[2]string]string{
		{"state-complete-proof", "proof_not_empty"}:  "an empty --proof-text is refused as invalid_input first",
		{"state-setup-substatement", "at_least_one"}: "an empty --sub-statements is refused as invalid_input first",
		{"check-confirm-proof", "no_open_issue"}:     "a proof awaiting verification has no open issue: a patch that leaves one open leaves has_gap",
		{"reopen", "not_a_repeat"}:                   "reopen acts on a true statement, which has no open issue to repeat",
	}
	for _, r := range model.Table {
		if sk, ok := skills.Find(r.Skill); len(r.Roles) == 0 || ok && sk.Transition != nil || slices.Contains(model.FormalSkills(), r.Skill) {
			// The engine's own rule (settle-dispute) refuses no caller; a
			// skill that brings its own row, and the formal track's, walk
			// their guards in their own stories
			// (TestSkillStoriesWalkTheirGuards).
			continue
		}
		for _, g := range r.Guards {
			k := [2]string{r.Skill, g.Name}
			if h := skills.GuardHint(r.Skill, g.Name); h == "" || h == skills.CodeHint(store.CodeGuardFailed) {
				t.Errorf("guard %s of %s has no hint of its own in the registry (%q)", g.Name, r.Skill, h)
			}
			if _, skip := unreachable[k]; !guards[k] && !skip {
				t.Errorf("guard %s of %s was not walked", g.Name, r.Skill)
			}
		}
	}

	// not_found: the nearest ids of the index.
	h = refused("not_found", "show", "stmt_odd_wrp")
	wants(h, "did you mean", a)
	h = refused("not_found", "show", "stmt_zzzzzzzzzzzz")
	wants(h, "no id is near")
	// usage: the nearest flag and command.
	h = refused("usage", "show", a, "--feild", "status")
	wants(h, "did you mean --field?")
	h = refused("usage", "shwo", a)
	wants(h, "did you mean `proofloop show`?")
	// invalid_input: what the parameter is.
	h = refused("invalid_input", "check-reject-proof", "--statement-path", b, "--sentence-number", "two", "--sentence-text", "x", "--error-type", "gap", "--explanation", "e")
	wants(h, "--sentence-number is")
	// conflict: the revision moved.
	h = refused("conflict", "release", a, "--lease", "nope")
	wants(h, "was never claimed")
	refused("conflict", "check-confirm-proof", "--statement-path", c, "--expect-revision", "1", "--actor", "carol")

	// Leases: no token, a wrong one, one that ended.
	sub := b + "_fix1"
	claimed := ok("claim", sub, "--role", "prove", "--holder", "prover", "--actor", "prover")
	token, _ := claimed["lease"].(string)
	prove := []string{"state-complete-proof", "--statement-path", sub, "--strategy", "direct", "--proof-text", "Expand the square.", "--actor", "other"}
	h = refused("lease_held", prove...)
	wants(h, "you gave no lease token", "prover")
	h = refused("lease_held", append(prove, "--lease", "0123")...)
	wants(h, "the token you gave was never a lease of "+sub, "prover holds "+sub+" now")
	ok("release", sub, "--lease", token, "--actor", "prover")
	h = refused("conflict", "refresh", sub, "--lease", token, "--actor", "prover")
	wants(h, "your lease was released")
	// A lease that expired before another claimed the item: the token
	// given was this item's, and the hint says so and when it ended.
	// The lease's expiry is what is tested: time must pass, so the lease
	// is short and the wait ends just after it.
	short := ok("claim", sub, "--role", "prove", "--holder", "slow", "--ttl", "200ms", "--actor", "slow")
	old, _ := short["lease"].(string)
	at, _ := short["expires_at"].(string)
	end, err := time.Parse(time.RFC3339Nano, at)
	if err != nil {
		t.Fatalf("claim's expires_at %q: %v", at, err)
	}
	time.Sleep(time.Until(end) + 50*time.Millisecond)
	ok("claim", sub, "--role", "prove", "--holder", "quick", "--actor", "quick")
	h = refused("lease_held", append(prove, "--lease", old)...)
	wants(h, "your lease (as slow", "expired at", "quick holds "+sub+" now")

	// Each call site below once gave only its code's generic line.
	// refresh without a token says where a token comes from.
	h = refused("usage", "refresh", sub, "--actor", "quick")
	wants(h, "--lease TOKEN or $PROOFLOOP_LEASE", "`proofloop claim "+sub+"`", "next --claim")
	h = refused("usage", "release", sub, "--actor", "quick")
	wants(h, "--lease TOKEN or $PROOFLOOP_LEASE", "`proofloop claim "+sub+"`", "--force")
	// A field that is not there names the nearest.
	h = refused("not_found", "show", b, "--field", "stauts")
	wants(h, "did you mean --field status?", "proof_revision")
	// A proof revision out of the kept range names the range.
	h = refused("not_found", "show", sub, "--proof-revision", "9")
	wants(h, sub+" has no proof yet", "`proofloop show "+sub+"`")
	h = refused("not_found", "show", b, "--proof-revision", "9")
	wants(h, "only revision 1 is kept", "`proofloop show "+b+" --proof-revision 1`")
	h = refused("not_found", "show", b, "--diff", "1..5")
	wants(h, "only revision 1 is kept", "`proofloop show "+b+" --proof-revision 1`")
	// An unknown role names the nearest and lists them; none says it is needed.
	for _, cmd := range []string{"next", "prime"} {
		h = refused("invalid_input", cmd, "--role", "chek")
		wants(h, "did you mean check?", "solve, prove, check, fix")
	}
	h = refused("usage", "claim", a, "--holder", "x")
	wants(h, "add --role ROLE", "solve, prove, check, fix")
	// config set reads a negative value as a value, refused by its range.
	h = refused("invalid_input", "config", "set", "max_rounds", "-1", "--actor", "ops")
	wants(h, "give max_rounds a value from 1 to 1000")
	// With require_lease, a released token says it was released, a token
	// of no lease says so, and none says to claim first.
	ok("config", "set", "require_lease", "true", "--actor", "ops")
	lease := ok("claim", "prob_odd", "--role", "solve", "--holder", "sol", "--actor", "sol")["lease"].(string)
	ok("release", "prob_odd", "--lease", lease, "--actor", "sol")
	wrap := []string{"prob-wrapup-statement", "--problem-path", "prob_odd", "--claim", "c", "--purpose", "p", "--actor", "sol"}
	h = refused("usage", append(wrap, "--lease", lease)...)
	wants(h, "the lease token you gave was released at", "claim it again", "`proofloop claim prob_odd --role solve --holder NAME`")
	h = refused("usage", append(wrap, "--lease", "0123")...)
	wants(h, "not the last lease of prob_odd")
	h = refused("usage", wrap...)
	wants(h, "claim it first")
	// person_only: a person's setting, under a lease.
	h = refused("person_only", "config", "set", "require_lease", "false", "--lease", lease)
	wants(h, "a person changes it outside an agent's turn")
	ok("config", "set", "require_lease", "false", "--actor", "ops")

	// timeout: debate wait ran out.
	ok("debate", "start", "--protocol", "dialectic", "--topic", "T")
	ok("debate", "join", "deb_t", "--participant-name", "a", "--actor", "a")
	ok("debate", "join", "deb_t", "--participant-name", "b", "--actor", "b")
	h = refused("timeout", "debate", "wait", "deb_t", "--participant-id", "p2", "--timeout", "50ms")
	wants(h, "wait again")

	// lock_timeout: another holds the store's lock (on the root folder).
	dir, err := os.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(dir.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PROOFLOOP_LOCK_TIMEOUT", "50ms")
	cmd := exec.Command(cliBin(t), "--root", root, "--json", "new-problem", "--name", "busy", "--objective", "o")
	cmd.Env = append(os.Environ(), "PROOFLOOP_ROOT=", "PROOFLOOP_ACTOR=", "PROOFLOOP_LEASE=")
	out, _ := cmd.Output()
	syscall.Flock(int(dir.Fd()), syscall.LOCK_UN)
	dir.Close()
	if code := cmd.ProcessState.ExitCode(); code != 5 || !strings.Contains(string(out), `"code":"lock_timeout"`) || !strings.Contains(string(out), `"hint":"retry later`) {
		t.Errorf("new-problem while the lock is held: exit %d %s; want 5, lock_timeout, a hint to retry later", code, out)
	}
	seen["lock_timeout"] = true

	// store_damaged: doctor says what is wrong.
	if err := os.WriteFile(filepath.Join(root, "statement", c+".json"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	refused("store_damaged", "show", c)

	// The codes that no call above can meet: run's outcomes have their own
	// tests (run_exit_codes_test.go), internal is a bug, not a refusal, and
	// store_unwritable needs a read-only mount or another user
	// (loop/readonly_test.go walks it on both stores).
	notHere := []store.Code{store.CodeInternal, "stuck", "max_turns", "budget_spent", "interrupted", store.CodeStoreUnwritable}
	for _, e := range skills.ExitCodes {
		if !seen[string(e.Code)] && !slices.Contains(notHere, e.Code) {
			t.Errorf("no refusal with code %s was walked", e.Code)
		}
		if skills.CodeHint(e.Code) == "" {
			t.Errorf("code %s has no line in the refusal table", e.Code)
		}
	}
}
