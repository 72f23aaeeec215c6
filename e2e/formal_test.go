package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// The formal track through the real binary and the real coqc (Debian's
// coq): what the kernel accepts and refuses, each refusal with its quoted
// reason and the statement left short of true, and what makes a statement
// true under each formal.policy. The cases run in parallel, each on a root
// of its own; each compiles a small file, so together they stay within
// the seconds issue 32 allows make test.

const (
	plusStatement = "(* n + 0 = n *)\nTheorem plus_zero : forall n : nat, n + 0 = n.\nAdmitted.\n"
	plusProof     = "Theorem plus_zero : forall n : nat, n + 0 = n.\nProof. intros n. rewrite <- plus_n_O. reflexivity. Qed.\n"
	// The same theorem, proved another way, through a helper lemma.
	plusProof2 = "Lemma step : forall k : nat, k + 0 = k -> S k + 0 = S k.\nProof. intros k H. simpl. rewrite H. reflexivity. Qed.\n" +
		"Theorem plus_zero : forall n : nat, n + 0 = n.\nProof. induction n as [|k IH]. - reflexivity. - apply step. exact IH. Qed.\n"
)

// formalRoot is a store (the file store, or PostgreSQL when dsn is set)
// with one statement, formalized by ann and confirmed by bob.
type formalRoot struct {
	t         *testing.T
	root, dsn string
}

func needCoq(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("coqc"); err != nil {
		t.Skipf("\n%s\nSKIPPED: NO COQC FOUND. The kernel checks of the formal track did not run.\n"+
			"Install Coq with `apt-get install -y coq` (make test tries).\n%s", strings.Repeat("!", 70), strings.Repeat("!", 70))
	}
}

func newFormalRoot(t *testing.T, dsn, statement string) *formalRoot {
	t.Helper()
	needCoq(t)
	f := &formalRoot{t: t, root: filepath.Join(t.TempDir(), "contents"), dsn: dsn}
	f.must("sol", "init")
	f.must("sol", "new-problem", "--name", "plus", "--objective", "Adding zero changes nothing.")
	f.must("sol", "prob-wrapup-statement", "--problem-path", "prob_plus", "--claim", "For every natural number n, n + 0 = n.", "--purpose", "The objective.")
	f.must("ann", "state-formalize", "--statement-path", "stmt_plus_wrap", "--system", "coq", "--source", "prove", "--formal-statement", statement)
	f.must("bob", "check-confirm-formalization", "--statement-path", "stmt_plus_wrap")
	return f
}

// run runs one command as actor with --json and returns its exit code and
// its one JSON object.
func (f *formalRoot) run(actor string, args ...string) (int, gjson.Result) {
	f.t.Helper()
	cmd := exec.Command(bin, append([]string{"--json", "--root", f.root, "--actor", actor}, args...)...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	if f.dsn != "" {
		cmd.Env = append(cmd.Env, "PROOFLOOP_STORE="+f.dsn)
	}
	var out bytes.Buffer
	cmd.Stdout = &out
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		f.t.Fatal(err)
	}
	return code, gjson.Parse(out.String())
}

func (f *formalRoot) must(actor string, args ...string) gjson.Result {
	f.t.Helper()
	code, out := f.run(actor, args...)
	if code != 0 {
		f.t.Fatalf("proofloop %s: exit %d: %s", strings.Join(args, " "), code, out.Raw)
	}
	return out
}

func (f *formalRoot) show(path string) string {
	f.t.Helper()
	return f.must("x", "show", "stmt_plus_wrap", "--field", path).Get("value").String()
}

// submit gives the formal proof as ann, the prover (or the fixer, naming
// the open issue).
func (f *formalRoot) submit(proof string, issue int) (int, gjson.Result) {
	args := []string{"state-complete-formal-proof", "--statement-path", "stmt_plus_wrap", "--formal-proof", proof, "--source", "prove"}
	if issue > 0 {
		args = append(args[:len(args)-1], "fix", "--issue-number", strconv.Itoa(issue))
	}
	return f.run("ann", args...)
}

// TestFormalKernelAcceptsAndRefuses: two proofs of one theorem pass; each
// way of not proving it is refused with its own quoted reason, before any
// run (nothing written) or by the kernel (an issue on the formal proof),
// and the statement never becomes true.
func TestFormalKernelAcceptsAndRefuses(t *testing.T) {
	needCoq(t)
	t.Run("accepted", func(t *testing.T) {
		for name, proof := range map[string]string{"a proof": plusProof, "another proof of it": plusProof2} {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				f := newFormalRoot(t, "", plusStatement)
				f.must("ann", "config", "set", "formal.policy", "suffices")
				if code, out := f.submit(proof, 0); code != 0 {
					t.Fatalf("submit: exit %d %s", code, out.Raw)
				}
				out := f.must("bob", "check-formal", "--statement-path", "stmt_plus_wrap")
				if out.Get("verdict.ok").Bool() != true || out.Get("status").String() != "true" {
					t.Errorf("check-formal = %s; want a pass that makes it true under suffices", out.Raw)
				}
			})
		}
	})
	// Refused before any run: exit 2, the line quoted, nothing written.
	for _, tc := range []struct{ name, proof, reason string }{
		{"Admitted", "Theorem plus_zero : forall n : nat, n + 0 = n.\nAdmitted.\n", `line 2: "Admitted" leaves the proof unfinished`},
		{"admit", "Theorem plus_zero : forall n : nat, n + 0 = n.\nProof. admit. Qed.\n", `line 2: "admit" leaves the proof unfinished`},
		{"a new Axiom", "Axiom ax : forall n : nat, n + 0 = n.\nTheorem plus_zero : forall n : nat, n + 0 = n.\nProof. exact ax. Qed.\n", `line 1: "Axiom"`},
		{"an admitted helper lemma", "Lemma h : forall n : nat, n + 0 = n.\nAdmitted.\nTheorem plus_zero : forall n : nat, n + 0 = n.\nProof. exact h. Qed.\n", `line 2: "Admitted"`},
		{"Load", "Load \"/etc/passwd\".\n" + plusProof, `line 1: "Load" reads or writes files`},
		{"Redirect", plusProof + "Redirect \"../leak\" Print plus_zero.\n", `line 3: "Redirect" reads or writes files`},
		{"Extraction to a file", plusProof + "Extraction \"/tmp/leak.ml\" plus_zero.\n", `line 3: "Extraction" reads or writes files`},
		{"Cd", "Cd \"/\".\n" + plusProof, `line 1: "Cd" reads or writes files`},
	} {
		t.Run("refused before any run/"+tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFormalRoot(t, "", plusStatement)
			before := f.must("x", "show", "stmt_plus_wrap").Get("document").Raw
			code, out := f.submit(tc.proof, 0)
			if code != 2 || !strings.Contains(out.Get("error.message").String(), tc.reason) {
				t.Errorf("submit: exit %d %s; want 2 quoting %q", code, out.Raw, tc.reason)
			}
			if after := f.must("x", "show", "stmt_plus_wrap").Get("document").Raw; after != before {
				t.Errorf("a refused proof changed the statement:\n%s\n%s", before, after)
			}
		})
	}
	// Refused by the kernel: an issue on the formal proof quoting it; the
	// statement has a gap and is not true, under suffices too.
	for _, tc := range []struct{ name, statement, proof, reason string }{
		{"does not compile", plusStatement, "Theorem plus_zero : forall n : nat, n + 0 = n.\nProof. intros n. rewrite <- plus_n_O_wrong. reflexivity. Qed.\n",
			"the formal proof does not compile: The reference plus_n_O_wrong was not found"},
		{"another statement under the same name", plusStatement, "Theorem plus_zero : forall n : nat, n + 0 = n + 0.\nProof. reflexivity. Qed.\n",
			"the formal proof's plus_zero does not have the formal statement's type (same name, another statement)"},
		{"a weakened statement", plusStatement, "Theorem plus_zero : forall n : nat, n > 0 -> n + 0 = n.\nProof. intros n _. rewrite <- plus_n_O. reflexivity. Qed.\n",
			"does not have the formal statement's type"},
		{"a definition redefined", "Definition double (n : nat) := n + n.\nTheorem plus_zero : forall n : nat, double n = 2 * n.\nAdmitted.\n",
			"Definition double (n : nat) := 2 * n.\nTheorem plus_zero : forall n : nat, double n = 2 * n.\nProof. reflexivity. Qed.\n",
			"does not have the formal statement's type"},
		{"a classical axiom not permitted", plusStatement, "Require Import Classical.\nTheorem plus_zero : forall n : nat, n + 0 = n.\nProof. intros n. destruct (classic (n = n)); rewrite <- plus_n_O; reflexivity. Qed.\n",
			"it rests on axioms formal.axioms does not permit: Classical_Prop.classic"},
		{"a loop", plusStatement, "Theorem plus_zero : forall n : nat, n + 0 = n.\nProof. repeat (assert True by exact I). Qed.\n",
			"the checker did not finish within formal.timeout (2s): its process group was killed"},
	} {
		t.Run("refused by the kernel/"+tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFormalRoot(t, "", tc.statement)
			f.must("ann", "config", "set", "formal.policy", "suffices")
			if tc.name == "a loop" {
				f.must("ann", "config", "set", "formal.timeout", "2s")
			}
			if code, out := f.submit(tc.proof, 0); code != 0 {
				t.Fatalf("submit: exit %d %s", code, out.Raw)
			}
			out := f.must("bob", "check-formal", "--statement-path", "stmt_plus_wrap")
			if out.Get("verdict.ok").Bool() || out.Get("status").String() != "has_gap" || !strings.Contains(out.Get("verdict.reason").String(), tc.reason) {
				t.Fatalf("check-formal = %s; want a refusal, has_gap, because %q", out.Raw, tc.reason)
			}
			issue := f.must("x", "show", "stmt_plus_wrap", "--field", "validate.issues.0").Get("value")
			if issue.Get("target").String() != "formal_proof" || !strings.HasPrefix(issue.Get("actor").String(), "kernel:coq-") ||
				!strings.Contains(issue.Get("explanation").String(), tc.reason) {
				t.Errorf("the kernel's issue = %s; want one on the formal proof, by the kernel, quoting %q", issue.Raw, tc.reason)
			}
			if tc.name != "a classical axiom not permitted" {
				return
			}
			// Permitted by a person, the same proof passes.
			f.must("ops", "config", "set", "formal.axioms", `["Classical_Prop.classic"]`)
			if code, out := f.submit(tc.proof, 1); code != 0 {
				t.Fatalf("resubmit: exit %d %s", code, out.Raw)
			}
			out = f.must("bob", "check-formal", "--statement-path", "stmt_plus_wrap")
			if !out.Get("verdict.ok").Bool() || out.Get("status").String() != "true" || out.Get("verdict.axioms.0").String() != "Classical_Prop.classic" {
				t.Errorf("check-formal with the axiom permitted = %s; want a pass resting on it", out.Raw)
			}
		})
	}
}

// TestFormalPolicies: what makes a statement true under each formal.policy
// (model.Truth), on both stores: off (the checkers' quorum alone), counts
// (the kernel's pass is one confirmation), required (a kernel pass besides
// the quorum), suffices (a kernel pass alone); and a rejected
// formalization keeps it from true under required and suffices until it is
// formalized again, confirmed and checked.
func TestFormalPolicies(t *testing.T)         { formalPolicies(t, false) }
func TestFormalPoliciesPostgres(t *testing.T) { formalPolicies(t, true) }

const writtenProof = "Step 1: Adding zero to n leaves n, by the definition of addition on the right. Hence n + 0 = n."

func formalPolicies(t *testing.T, pg bool) {
	needCoq(t)
	// Each case has a store of its own: a database of the shared cluster
	// on PostgreSQL.
	store := func(t *testing.T) string {
		if pg {
			return newPostgres(t)
		}
		return ""
	}
	status := func(out gjson.Result) string { return out.Get("status").String() }
	// written gives the statement a written proof by ann; kernel submits
	// the formal proof and runs the kernel (a pass).
	written := func(f *formalRoot) {
		f.must("ann", "state-complete-proof", "--statement-path", "stmt_plus_wrap", "--strategy", "direct", "--proof-text", writtenProof)
	}
	kernel := func(f *formalRoot) gjson.Result {
		if code, out := f.submit(plusProof, 0); code != 0 {
			t.Fatalf("submit: exit %d %s", code, out.Raw)
		}
		return f.must("bob", "check-formal", "--statement-path", "stmt_plus_wrap")
	}
	for _, tc := range []struct {
		policy string
		quorum string
		play   func(t *testing.T, f *formalRoot)
	}{
		{"off", "1", func(t *testing.T, f *formalRoot) {
			written(f)
			if out := kernel(f); status(out) != "awaiting_verification" {
				t.Errorf("a kernel pass under off = %s; want awaiting_verification", out.Raw)
			}
			if out := f.must("carol", "check-confirm-proof", "--statement-path", "stmt_plus_wrap"); status(out) != "true" {
				t.Errorf("a confirmation under off = %s; want true", out.Raw)
			}
		}},
		{"counts", "2", func(t *testing.T, f *formalRoot) {
			written(f)
			if out := kernel(f); status(out) != "awaiting_verification" {
				t.Errorf("a kernel pass, quorum 2 = %s; want awaiting_verification (1 of 2)", out.Raw)
			}
			out := f.must("carol", "check-confirm-proof", "--statement-path", "stmt_plus_wrap")
			if status(out) != "true" || out.Get("confirmations").Int() != 2 {
				t.Errorf("a confirmation after the kernel's pass = %s; want true with 2 confirmations", out.Raw)
			}
		}},
		{"required", "1", func(t *testing.T, f *formalRoot) {
			written(f)
			out := f.must("carol", "check-confirm-proof", "--statement-path", "stmt_plus_wrap")
			if status(out) != "awaiting_verification" {
				t.Errorf("a confirmation without a kernel pass under required = %s; want awaiting_verification", out.Raw)
			}
			if out := kernel(f); status(out) != "true" {
				t.Errorf("the kernel's pass after the quorum under required = %s; want true", out.Raw)
			}
		}},
		{"suffices", "1", func(t *testing.T, f *formalRoot) {
			if out := kernel(f); status(out) != "true" {
				t.Errorf("a kernel pass with no written proof under suffices = %s; want true", out.Raw)
			}
		}},
	} {
		t.Run(tc.policy, func(t *testing.T) {
			t.Parallel()
			f := newFormalRoot(t, store(t), plusStatement)
			f.must("ops", "config", "set", "formal.policy", tc.policy)
			f.must("ops", "config", "set", "verify_quorum", tc.quorum)
			tc.play(t, f)
			if got := f.must("x", "status").Get(`items.#(id=="stmt_plus_wrap").grade`).String(); got != "kernel_checked" {
				t.Errorf("the grade = %q; want kernel_checked", got)
			}
		})
	}
	for _, policy := range []string{"required", "suffices"} {
		t.Run("a rejected formalization under "+policy, func(t *testing.T) {
			t.Parallel()
			needCoq(t)
			f := &formalRoot{t: t, root: filepath.Join(t.TempDir(), "contents"), dsn: store(t)}
			f.must("sol", "init")
			f.must("ops", "config", "set", "formal.policy", policy)
			f.must("sol", "new-problem", "--name", "plus", "--objective", "Adding zero changes nothing.")
			f.must("sol", "prob-wrapup-statement", "--problem-path", "prob_plus", "--claim", "For every natural number n, n + 0 = n.", "--purpose", "The objective.")
			written(f)
			f.must("ann", "state-formalize", "--statement-path", "stmt_plus_wrap", "--system", "coq", "--source", "prove", "--formal-statement",
				"Theorem plus_zero : forall n : nat, n > 5 -> n + 0 = n.\nAdmitted.\n")
			f.must("bob", "check-reject-formalization", "--statement-path", "stmt_plus_wrap", "--explanation", "The claim has no n > 5.")
			// No way to true while it is rejected: no confirmation, no kernel.
			for _, args := range [][]string{{"check-confirm-proof", "--statement-path", "stmt_plus_wrap"}, {"check-formal", "--statement-path", "stmt_plus_wrap"}} {
				if code, out := f.run("carol", args...); code != 4 {
					t.Errorf("%s on a rejected formalization: exit %d %s; want 4", args[0], code, out.Raw)
				}
			}
			// Formalized again, confirmed, proved, checked: true.
			f.must("ann", "state-formalize", "--statement-path", "stmt_plus_wrap", "--system", "coq", "--source", "fix", "--issue-number", "1", "--formal-statement", plusStatement)
			f.must("bob", "check-confirm-formalization", "--statement-path", "stmt_plus_wrap")
			if policy == "required" {
				f.must("carol", "check-confirm-proof", "--statement-path", "stmt_plus_wrap")
			}
			if out := kernel(f); status(out) != "true" {
				t.Errorf("the kernel's pass on the confirmed formalization = %s; want true", out.Raw)
			}
		})
	}
}
