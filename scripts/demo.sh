#!/usr/bin/env bash
# make demo: a short scripted session through the CLI on a fresh copy of the
# example in contents/. Every step is a real skill call; the store, its
# history and `proofloop doctor` are shown at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
export PROOFLOOP_ROOT=.demo/contents
rm -rf .demo && mkdir -p .demo && cp -r contents .demo/
pl() { echo "+ proofloop $*" >&2; bin/proofloop "$@"; }

echo "== solve: wrap the problem into a statement and set up a subgoal"
pl prob-wrapup-statement --actor solve-1 --problem-path prob_odd_squares \
  --claim 'For every integer n >= 1, 1 + 3 + ... + (2n-1) = n^2.' \
  --premises 'n is an integer with n >= 1' --purpose 'It is the objective, stated as a claim.'
pl prob-setup-subgoal --actor solve-1 --parent-problem-path prob_odd_squares \
  --subproblem-objective 'Check the identity for n = 1, 2, 3.' --rationale 'Small cases guide the induction.'

echo "== prove: split into base case and step, prove both"
pl state-setup-substatement --actor prove-1 --parent-statement-path stmt_odd_squares_wrap \
  --sub-statements '[{"claim":"The identity holds for n = 1.","premises":[]},{"claim":"If 1 + ... + (2n-1) = n^2 then 1 + ... + (2n+1) = (n+1)^2.","premises":["n >= 1"]}]' \
  --rationale 'Induction: base case and inductive step.'
pl state-complete-proof --actor prove-1 --statement-path stmt_odd_squares_wrap_sub1 --strategy direct \
  --proof-text 'For n = 1 the left side is the single term 1. The right side is $1^2 = 1$. Hence both sides agree.'
pl state-complete-proof --actor prove-1 --statement-path stmt_odd_squares_wrap_sub2 --strategy direct \
  --proof-text 'Assume $1 + \dots + (2n-1) = n^2$. Adding the next odd number gives $n^2 + 2n + 1$. This is $(n+1)^2$.'

echo "== check: confirm the base case, reject a step of the inductive step"
pl check-confirm-proof --actor check-1 --statement-path stmt_odd_squares_wrap_sub1 --verification-summary 'Three sentences, all direct.'
pl show stmt_odd_squares_wrap_sub2 --sentences
pl check-reject-proof --actor check-1 --statement-path stmt_odd_squares_wrap_sub2 --sentence-number 3 \
  --sentence-text 'This is $(n+1)^2$.' --error-type unjustified_leap \
  --explanation 'The expansion of (n+1)^2 is used without being shown.' --suggested-fix 'Expand the square.'

echo "== fix: patch the sentence the checker cited"
pl fix-patch-proof --actor fix-1 --statement-path stmt_odd_squares_wrap_sub2 --issue-number 1 --sentence-range 3 \
  --replacement-text 'Since $(n+1)^2 = n^2 + 2n + 1$ by expanding the square, this is $(n+1)^2$.' \
  --change-description 'Expand the square.'
pl check-confirm-proof --actor check-2 --statement-path stmt_odd_squares_wrap_sub2 --verification-summary 'The patched step expands the square.'

echo "== prove and check the wrap-up statement, then solve the problem"
pl state-complete-proof --actor prove-1 --statement-path stmt_odd_squares_wrap --strategy induction \
  --proof-text 'The base case is stmt_odd_squares_wrap_sub1. The inductive step is stmt_odd_squares_wrap_sub2. By induction on n the identity holds for every n >= 1.'
pl check-confirm-proof --actor check-1 --statement-path stmt_odd_squares_wrap
pl prob-finish-up --actor solve-1 --problem-path prob_odd_squares --key-statement-id stmt_odd_squares_wrap \
  --resolution 'The wrap-up statement is the objective.'

echo "== the audit trail of stmt_odd_squares_wrap_sub2"
pl show stmt_odd_squares_wrap_sub2
echo "== events"
cut -c1-160 "$PROOFLOOP_ROOT/events.jsonl"
echo "== doctor"
pl doctor
