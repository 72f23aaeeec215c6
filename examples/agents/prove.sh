#!/bin/sh
# The scripted prover: decompose the main claim, prove the easy parts,
# refute a false lemma and ask for a modification of an ill-posed one.
. "$(dirname "$0")/lib.sh"
complete() { say "submitting a proof"; proofloop state-complete-proof --statement-path "$id" --strategy "$1" --proof-text "$2"; }
case $id in
stmt_odd_squares_wrap)
  if [ "$status" = pending ]; then
    say "decomposing"
    proofloop state-setup-substatement --parent-statement-path "$id" --rationale 'Induction needs a base case and a step; a tempting shortcut is checked too.' \
      --sub-statements '[{"claim":"1 = 1^2, so the identity holds for n = 1.","premises":[]},
        {"claim":"If 1 + 3 + ... + (2n-1) = n^2, then 1 + 3 + ... + (2n+1) = (n+1)^2.","premises":[]},
        {"claim":"Every odd number 2n+1 with n >= 1 is prime, so the terms are primes.","premises":["n >= 1"]}]'
  else
    complete induction 'Step 1: The base case n = 1 is stmt_odd_squares_wrap_sub1. Step 2: The inductive step from n to n+1 is stmt_odd_squares_wrap_sub2. Hence by induction on n the identity holds for every n >= 1.'
  fi ;;
stmt_odd_squares_wrap_sub1)
  complete direct 'For n = 1 the sum has the single term 1. Its value is 1, which equals $1^2$.' ;;
stmt_odd_squares_wrap_sub2)
  if [ "$(count modification_history)" = 0 ]; then
    say "the step needs n >= 1: proposing a modification"
    proofloop state-propose-modification --statement-path "$id" --source prove --modification-type add_condition \
      --suggested-premises 'n is an integer with n >= 1' \
      --rationale 'The sum 1 + ... + (2n-1) only makes sense for n >= 1.'
  else
    complete direct 'Assume $1 + 3 + \dots + (2n-1) = n^2$. Adding the next odd number $2n+1$ to both sides gives $1 + \dots + (2n+1) = n^2 + 2n + 1$, which equals $(n+1)^2$.'
  fi ;;
stmt_odd_squares_wrap_sub3)
  say "found a counterexample"
  proofloop state-mark-false --statement-path "$id" --source prove --counterexample 'For n = 4, 2n+1 = 9 = 3 * 3 is not prime.' ;;
stmt_odd_squares_wrap_sub2_fix1)
  complete direct 'Expanding the square, $(n+1)^2 = (n+1)(n+1) = n^2 + n + n + 1$. Collecting terms gives $n^2 + 2n + 1$.' ;;
stmt_odd_squares_sub1_wrap)
  complete case_analysis 'Case 1: for n = 1 the sum is 1 = 1^2. Case 2: for n = 2 the sum is 1 + 3 = 4 = 2^2. Case 3: for n = 3 the sum is 1 + 3 + 5 = 9 = 3^2.' ;;
stmt_gauss_wrap)
  # The climb (make demo's second problem): a pairing proof the checker
  # rejects twice, revised by the fixer in between, spends level revise; at
  # replan the prover reads its dead end in prime, finds the same proof
  # refused, and decomposes, writing the lesson.
  pairing='Step 1: Pair the first term with the last, the second with the next to last, and so on. Step 2: Each pair sums to n+1, and there are n/2 pairs. Hence the sum is n(n+1)/2.'
  if [ "$status" = awaiting_substatements ]; then
    complete induction 'Step 1: The base case n = 1 is stmt_gauss_wrap_sub1. Step 2: The step from n to n+1 is stmt_gauss_wrap_sub2. Hence by induction on n the identity holds for every n >= 1.'
  elif [ "$(count dead_ends)" = 0 ]; then
    complete direct "$pairing"
  else
    say "reading the dead ends first"
    proofloop prime --role prove --id "$id" | sed -n '/^Dead ends/,/^Claim:/p' | sed '$d'
    say "submitting the pairing proof once more"
    proofloop state-complete-proof --statement-path "$id" --strategy direct --proof-text "$pairing" || say "refused: it repeats a dead end"
    say "re-planning: induction, a base case and a step"
    proofloop state-setup-substatement --parent-statement-path "$id" --rationale 'Induction needs no parity case: a base case and a step.' \
      --lesson 'Pairing the terms leaves a middle term for odd n; induct instead, which needs no parity case.' \
      --sub-statements '[{"claim":"For n = 1, 1 = 1(1+1)/2.","premises":[]},
        {"claim":"If 1 + 2 + ... + n = n(n+1)/2, then 1 + 2 + ... + (n+1) = (n+1)(n+2)/2.","premises":["n >= 1"]}]'
  fi ;;
stmt_gauss_wrap_sub1)
  complete direct 'For n = 1 the sum is the single term 1, and 1(1+1)/2 = 1.' ;;
stmt_gauss_wrap_sub2)
  complete direct 'Adding n+1 to both sides of 1 + 2 + ... + n = n(n+1)/2 gives n(n+1)/2 + (n+1), which is (n+1)(n+2)/2.' ;;
*) say "no script for this statement"; exit 3 ;;
esac
