#!/bin/sh
# The scripted panel proponent: it argues for the claim, and in the next
# round answers the judge's question.
. "$(dirname "$0")/debate_lib.sh"
if [ "$turns" = 0 ]; then
  turn --body 'The step "which equals (n+1)^2" is complete: it is the expansion n^2 + 2n + 1, true for every n.'
fi
turn --body 'The lemma (n+1)^2 = n^2 + 2n + 1 is proved in the example tree; citing it closes the step.'
