package formal

import (
	"fmt"
	"strings"
	"testing"
)

const okStatement = "Require Import Arith.\nFixpoint sum_odd (n : nat) : nat := match n with 0 => 0 | S k => sum_odd k + (2 * k + 1) end.\n" +
	"Theorem odd_squares : forall n : nat, sum_odd n = n * n.\nAdmitted.\n"

func TestCheckStatement(t *testing.T) {
	tests := []struct {
		name, src string
		theorem   string // "" when refused
		refusal   string // a part of the refusal
	}{
		{"plain", okStatement, "odd_squares", ""},
		{"proof then admitted", "Lemma l : True.\nProof.\nAdmitted.", "l", ""},
		{"a comment naming Load", "(* Load \"/etc/passwd\". Axiom x. *)\nTheorem t : True. Admitted.", "t", ""},
		{"a string in a comment closes nothing", "(* \"*)\" Load *)\nTheorem t : True. Admitted.", "t", ""},
		{"nested comments", "(* (* inner *) Drop. *)\nTheorem t : True. Admitted.", "t", ""},
		{"a string naming Load", "Definition s := \"Load \"\"x\"\".\".\nTheorem t : True. Admitted.", "t", ""},
		{"qualified names", "Definition f := Nat.add.\nTheorem t : Nat.add 1 1 = 2. Admitted.", "t", ""},
		{"an attribute", "#[local] Definition f := 1.\nTheorem t : f = 1. Admitted.", "t", ""},
		{"no theorem", "Definition f := 1.", "", "declares no theorem"},
		{"two theorems", "Theorem a : True. Admitted.\nLemma b : True. Admitted.", "", "second theorem, b"},
		{"already proved", "Theorem t : True.\nProof. exact I. Qed.", "", "not ended by Admitted"},
		{"an axiom besides", "Axiom x : False.\nTheorem t : False. Admitted.", "", `"Axiom"`},
		{"a second admitted", "Definition d : nat. Admitted.\nTheorem t : True. Admitted.", "", `"Admitted"`},
		{"Load", "Load \"/etc/passwd\".\nTheorem t : True. Admitted.", "", `"Load" reads or writes files`},
		{"an open comment", "(* Theorem t : True. Admitted.", "", "never closed"},
		{"an open string", "Definition s := \"abc.\nTheorem t : True. Admitted.", "", "never closed"},
		{"no final period", "Theorem t : True. Admitted", "", "middle of a sentence"},
		{"the engine's names", "Module proofloop_proof.\nTheorem t : True. Admitted.\nEnd proofloop_proof.", "", "are the engine's"},
	}
	for _, tt := range tests {
		got, err := CheckStatement(tt.src)
		switch {
		case tt.refusal == "" && (err != nil || got != tt.theorem):
			t.Errorf("%s: CheckStatement = %q, %v; want %q", tt.name, got, err, tt.theorem)
		case tt.refusal != "" && (err == nil || !strings.Contains(err.Error(), tt.refusal)):
			t.Errorf("%s: CheckStatement = %q, %v; want a refusal with %q", tt.name, got, err, tt.refusal)
		}
	}
}

func TestCheckProof(t *testing.T) {
	const proof = "Require Import Lia.\nTheorem t : forall n, n + 0 = n.\nProof.\n  intros n. - lia.\nQed.\n"
	tests := []struct {
		name, src string
		refusal   string // "" when accepted
		line      int
	}{
		{"plain", proof, "", 0},
		{"a helper named like admit", "Lemma admit_free : True. Proof. exact I. Qed.\nTheorem t : True. Proof. exact admit_free. Qed.", "", 0},
		{"Lo(**)ad is two words, as Coq reads it", "Lo(**)ad \"/etc/passwd\".\nTheorem t : True. Proof. exact I. Qed.", "", 0},
		{"Admitted", "Theorem t : True.\nAdmitted.", `"Admitted" leaves the proof unfinished`, 2},
		{"admit", "Theorem t : True.\nProof. admit. Qed.", `"admit"`, 2},
		{"qualified admit", "Theorem t : True.\nProof. Coq.Init.Tactics.admit. Qed.", `"Coq.Init.Tactics.admit"`, 2},
		{"give_up", "Theorem t : True.\nProof. give_up. Qed.", `"give_up"`, 2},
		{"an axiom", "Axiom cheat : forall P : Prop, P.\nTheorem t : True. Proof. apply cheat. Qed.", `"Axiom"`, 1},
		{"a parameter", "Parameter p : True.\nTheorem t : True. exact p. Qed.", `"Parameter"`, 1},
		{"a conjecture", "Conjecture c : True.\nTheorem t : True. exact c. Qed.", `"Conjecture"`, 1},
		{"a hypothesis", "Section s.\nHypothesis h : True.\nTheorem t : True. exact h. Qed.\nEnd s.", `"Hypothesis"`, 2},
		{"an admitted helper", "Lemma h : False.\nAdmitted.\nTheorem t : True. Proof. exact I. Qed.", `"Admitted"`, 2},
		{"Load", "Load \"/etc/passwd\".\nTheorem t : True. Proof. exact I. Qed.", `"Load" reads or writes files`, 1},
		{"Redirect", "Theorem t : True. Proof. exact I. Qed.\nRedirect \"../x\" Print t.", `"Redirect"`, 2},
		{"Extraction to a file", "Theorem t : True. Proof. exact I. Qed.\nExtraction \"/tmp/x.ml\" t.", `"Extraction"`, 2},
		{"Cd", "Cd \"/\".\nTheorem t : True. Proof. exact I. Qed.", `"Cd"`, 1},
		{"Drop", "Drop.\nTheorem t : True. Proof. exact I. Qed.", `"Drop"`, 1},
		{"Declare ML Module", "Declare ML Module \"x\".\nTheorem t : True. Proof. exact I. Qed.", `"ML"`, 1},
		{"Add LoadPath", "Add LoadPath \"/home\" as H.\nTheorem t : True. Proof. exact I. Qed.", `"LoadPath"`, 1},
		{"Require of a path", "Require Import \"/etc/x\".\nTheorem t : True. Proof. exact I. Qed.", `names a file`, 1},
		{"Unset Guard Checking", "#[local] Unset Guard Checking.\nTheorem t : True. Proof. exact I. Qed.", "Unset Guard Checking", 1},
		{"bypass_check", "#[bypass_check(guard)] Fixpoint f (n : nat) : nat := f n.\nTheorem t : True. Proof. exact I. Qed.", `"bypass_check"`, 1},
		{"Reset", "Reset Initial.\nTheorem t : True. Proof. exact I. Qed.", `"Reset"`, 1},
		{"the engine's module", "End proofloop_proof.\nTheorem t : True. Proof. exact I. Qed.", "are the engine's", 1},
		{"another theorem", "Theorem u : True. Proof. exact I. Qed.", "declares no t", 1},
		{"an unfinished last sentence", "Theorem t : True. Proof. exact I. Qed", "middle of a sentence", 1},
	}
	for _, tt := range tests {
		err := CheckProof(tt.src, "t")
		switch {
		case tt.refusal == "" && err != nil:
			t.Errorf("%s: CheckProof = %v; want accepted", tt.name, err)
		case tt.refusal != "" && (err == nil || !strings.Contains(err.Error(), tt.refusal)):
			t.Errorf("%s: CheckProof = %v; want a refusal with %q", tt.name, err, tt.refusal)
		case tt.refusal != "" && !strings.HasPrefix(err.Error(), fmt.Sprintf("line %d:", tt.line)):
			t.Errorf("%s: CheckProof = %v; want it at line %d", tt.name, err, tt.line)
		}
	}
	// Set Universe Polymorphism changes no check of the kernel.
	if err := CheckProof("Set Universe Polymorphism.\nTheorem t : True. Proof. exact I. Qed.", "t"); err != nil {
		t.Errorf("Set Universe Polymorphism: CheckProof = %v; want accepted", err)
	}
}

// TestSentences: the splitter's sentences end where Coq's do.
func TestSentences(t *testing.T) {
	ss, err := sentences("Definition f := Nat.add.\n(* a. b. *) Lemma l : 1 = 1.\nProof. - reflexivity.\nQed.\nNotation \"x .. y\" := (x, y) (at level 0).")
	if err != nil {
		t.Fatal(err)
	}
	var heads []string
	for _, s := range ss {
		heads = append(heads, command(s))
	}
	if got, want := strings.Join(heads, " "), "Definition Lemma Proof reflexivity Qed Notation"; got != want {
		t.Errorf("sentence commands = %q; want %q", got, want)
	}
	if ss[1].line != 2 || ss[4].line != 4 {
		t.Errorf("sentence lines = %d, %d; want 2, 4", ss[1].line, ss[4].line)
	}
}
