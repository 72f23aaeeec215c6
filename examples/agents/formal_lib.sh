# The formal track of the example (sourced by prove.sh and fix.sh; a library, as its name ends in lib): the
# odd-squares statement in Coq, and its formal proof. The proof names its
# lemma odd_sum_squares where the lemma is odd_sum_square, so the kernel
# refuses it once; the fixer reads the name from the quoted error and
# puts the lemma's. Coq is optional: without coqc, or under formal.policy
# off, the track is skipped (make demo says so), and the statement is
# proved on the agents' word.
# wants_formal: the project asks for a kernel (formal.policy is not off)
# and Coq is installed.
wants_formal() { command -v coqc >/dev/null 2>&1 && [ "$(proofloop config get formal.policy)" != off ]; }
stage() { proofloop show "$id" --field formal.stage 2>/dev/null || echo none; }
formal_defs='Require Import Arith.
(* 1 + 3 + ... + (2n-1): the sum of the first n odd numbers. *)
Fixpoint odd_sum (n : nat) : nat :=
  match n with 0 => 0 | S k => odd_sum k + (2 * k + 1) end.'
formal_statement="$formal_defs
Theorem odd_squares : forall n : nat, 1 <= n -> odd_sum n = n * n.
Admitted."
formal_proof="$formal_defs
Lemma odd_sum_square : forall n : nat, odd_sum n = n * n.
Proof.
  induction n as [|k IH]; simpl odd_sum.
  - reflexivity.
  - rewrite IH. ring.
Qed.
Theorem odd_squares : forall n : nat, 1 <= n -> odd_sum n = n * n.
Proof. intros n _. apply odd_sum_squares. Qed."
