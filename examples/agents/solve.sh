#!/bin/sh
# The scripted solver: set up a subgoal once, wrap the problem into a
# statement, and finish the problem once a wrap-up statement is true.
. "$(dirname "$0")/lib.sh"
for w in $(field progresses | tr -d '[]"' | tr ',' ' '); do
  if [ "$(proofloop show "$w" --field status)" = true ]; then
    say "finishing with $w"
    exec proofloop prob-finish-up --problem-path "$id" --key-statement-id "$w" \
      --resolution "The objective is exactly what $w states, and $w is proved."
  fi
done
case $id in
prob_odd_squares)
  if [ "$(count preliminaries)" = 0 ]; then
    say "setting up a subgoal"
    proofloop prob-setup-subgoal --parent-problem-path "$id" \
      --subproblem-objective 'Check the identity by hand for n = 1, 2, 3.' \
      --subproblem-hypothesis 'n is 1, 2 or 3' --rationale 'Small cases show the pattern the induction will prove.'
  fi
  say "wrapping up"
  proofloop prob-wrapup-statement --problem-path "$id" \
    --claim 'For every integer n >= 1, 1 + 3 + ... + (2n-1) = n^2.' \
    --premises 'n is an integer with n >= 1' --purpose 'It is the objective, stated as a claim to prove.' ;;
prob_odd_squares_sub1)
  say "wrapping up"
  proofloop prob-wrapup-statement --problem-path "$id" \
    --claim 'For n = 1, 2, 3 the sums 1, 1+3 and 1+3+5 are 1, 4 and 9.' \
    --purpose 'It is the subgoal, stated as a claim.' ;;
prob_gauss)
  say "wrapping up"
  proofloop prob-wrapup-statement --problem-path "$id" \
    --claim 'For every integer n >= 1, 1 + 2 + ... + n = n(n+1)/2.' \
    --premises 'n is an integer with n >= 1' --purpose 'It is the objective, stated as a claim to prove.' ;;
*) say "no script for this problem"; exit 3 ;;
esac
