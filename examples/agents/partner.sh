#!/bin/sh
# The scripted dialectic partner: it answers, and makes one suggestion,
# only the first time (the debate's suggestions say whether it did).
. "$(dirname "$0")/debate_lib.sh"
if [ "$(count suggestions)" = 0 ]; then
  turn --body 'Cite a lemma: the induction is right, only one equality is unshown.' \
    --suggestion 'Add the lemma n^2 + 2n + 1 = (n+1)^2 as a sub-statement and cite it.'
fi
turn --body 'Nothing to add.'
