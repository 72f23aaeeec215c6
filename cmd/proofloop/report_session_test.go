package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// plantedProof is a proof an agent could write to attack an auditor's
// browser: a script, an image that would call out, a link, and math that
// must still render. The report must show all of it as text, run none of
// it, and load nothing.
const plantedProof = "Step 1: Let $x_1 < y^2$ and consider $$\\sum_{i=1}^n i = \\frac{n(n+1)}{2}$$ as usual. " +
	"Step 2: Hence <script>document.title='pwned';window.pwned=1</script> holds. " +
	"Step 3: See <img src=\"http://127.0.0.1:9/x.png\" onerror=\"window.pwned=2\"> and [the source](http://127.0.0.1:9/a) for \\(a+b\\)."

// session makes a store by running, in-process, every `exec proofloop`
// line of the e2e_solved story (all eleven skills and decide), then a
// second problem whose proof is plantedProof, rejected at its script
// sentence and at its math sentence. It returns the contents root.
func session(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	root := filepath.Join(dir, "contents")
	for _, k := range []string{"PROOFLOOP_ROOT", "PROOFLOOP_ACTOR", "PROOFLOOP_LEASE", "PROOFLOOP_LOCK_TIMEOUT"} {
		t.Setenv(k, "")
	}
	t.Setenv("PROOFLOOP_ROOT", root)
	ar, err := txtar.ParseFile("testdata/script/e2e_solved.txtar")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ar.Files {
		if err := os.WriteFile(filepath.Join(dir, f.Name), f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil { // @subs.json is relative to the story's folder
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	n := 0
	for _, line := range strings.Split(string(ar.Comment), "\n") {
		if rest, ok := strings.CutPrefix(line, "exec proofloop "); ok {
			plRun(t, words(rest)...)
			n++
		}
	}
	if n < 25 {
		t.Fatalf("e2e_solved.txtar has %d `exec proofloop` lines; want at least 25 (the story changed?)", n)
	}
	plRun(t, "new-problem", "--name", "planted", "--objective", "Show that <b>bold</b> objectives stay text.", "--actor", "sol")
	plRun(t, "prob-wrapup-statement", "--problem-path", "prob_planted", "--claim", "For $n \\ge 1$, $\\sum_{i=1}^n i = n(n+1)/2$.", "--purpose", "<script>window.pwned=3</script>", "--actor", "sol")
	plRun(t, "state-complete-proof", "--statement-path", "stmt_planted_wrap", "--proof-text", plantedProof, "--strategy", "direct", "--actor", "pro")
	plRun(t, "check-reject-proof", "--statement-path", "stmt_planted_wrap", "--sentence-number", "2", "--sentence-text", "<script>document.title='pwned'", "--error-type", "gap", "--explanation", "A script is no argument. <script>window.pwned=4</script>", "--actor", "chk")
	plRun(t, "check-reject-proof", "--statement-path", "stmt_planted_wrap", "--sentence-number", "1", "--sentence-text", "Let $x_1 < y^2$", "--error-type", "unjustified_leap", "--explanation", "Why is $x_1 < y^2$?", "--actor", "chk")
	// A debate, whose turns carry a script and a formula too.
	plRun(t, "debate", "start", "--protocol", "agora", "--topic", "Cache policy <b>now</b>", "--position", "lru=Use LRU", "--position", "lfu=Use LFU")
	plRun(t, "debate", "join", "deb_cache_policy_b_now_b", "--participant-name", "ann", "--actor", "ann")
	plRun(t, "debate", "join", "deb_cache_policy_b_now_b", "--participant-name", "ben", "--actor", "ben")
	for i, turn := range []string{
		`{"signal": "propose", "message": "LRU fits: misses grow like $O(\\log n)$. <script>window.pwned=5</script>", "confidence": 0.8}`,
		`{"signal": "approve", "message": "Fine.", "confidence": 0.7, "target": "proposal-lru"}`,
		`{"signal": "no-change", "message": "I stay.", "confidence": 0.6}`,
	} {
		name := filepath.Join(dir, "turn.json")
		if err := os.WriteFile(name, []byte(turn), 0o644); err != nil {
			t.Fatal(err)
		}
		plRun(t, "debate", "turn", "deb_cache_policy_b_now_b", "--participant-id", []string{"p1", "p2", "p1"}[i], "--actor", []string{"ann", "ben", "ann"}[i], "--input", name)
	}
	return root
}

// formalSession adds to session's store a problem whose statement has a
// formal track, by a checker of the result contract (no Coq needed): a
// formalization rejected, formalized again, confirmed, proved and checked
// under formal.policy suffices; its texts carry a script too.
func formalSession(t testing.TB) {
	toy := contractChecker(t, `{"ok": true, "axioms": []}`)
	plRun(t, "config", "set", "formal.checkers.toy", `{"command": "sh `+toy+`", "extension": "toy"}`)
	plRun(t, "config", "set", "formal.policy", "suffices")
	plRun(t, "new-problem", "--name", "formal", "--objective", "A formally verified claim.", "--actor", "sol")
	plRun(t, "prob-wrapup-statement", "--problem-path", "prob_formal", "--claim", "True holds.", "--purpose", "The objective.", "--actor", "sol")
	formalize := func(source string, more ...string) {
		plRun(t, append([]string{"state-formalize", "--statement-path", "stmt_formal_wrap", "--system", "toy", "--theorem", "t", "--source", source,
			"--formal-statement", "theorem t : True -- <script>window.pwned=6</script>", "--actor", "pro"}, more...)...)
	}
	formalize("prove")
	plRun(t, "check-reject-formalization", "--statement-path", "stmt_formal_wrap", "--explanation", "Say it again.", "--actor", "chk")
	formalize("fix", "--issue-number", "1")
	plRun(t, "check-confirm-formalization", "--statement-path", "stmt_formal_wrap", "--actor", "chk")
	plRun(t, "state-complete-formal-proof", "--statement-path", "stmt_formal_wrap", "--source", "prove", "--formal-proof", "theorem t : True := trivial", "--actor", "pro")
	plRun(t, "check-formal", "--statement-path", "stmt_formal_wrap", "--actor", "chk")
	plRun(t, "prob-finish-up", "--problem-path", "prob_formal", "--key-statement-id", "stmt_formal_wrap", "--resolution", "It is the objective.", "--actor", "sol")
}

// plRun runs the CLI in-process and fails the test unless it exits 0.
func plRun(t testing.TB, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(args, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("proofloop %s: exit %d\n%s%s", strings.Join(args, " "), code, out.String(), errb.String())
	}
	return out.String()
}

// words splits a testscript command line: words separated by spaces, with
// '...' quoting (no escapes inside, as in testscript).
func words(s string) []string {
	var out []string
	var cur strings.Builder
	in, any := false, false
	for _, r := range s {
		switch {
		case r == '\'':
			in, any = !in, true
		case r == ' ' && !in:
			if any {
				out = append(out, cur.String())
			}
			cur.Reset()
			any = false
		default:
			cur.WriteRune(r)
			any = true
		}
	}
	if any {
		out = append(out, cur.String())
	}
	return out
}
