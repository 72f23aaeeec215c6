#!/bin/sh
# The scripted panel opponent: it argues against the claim, and concedes
# once the proponent cites the lemma.
. "$(dirname "$0")/debate_lib.sh"
if [ "$turns" = 1 ]; then
  turn --body 'The expansion is used but never shown: a reader has to take it on trust.'
fi
turn --body 'Granted: with the lemma cited, nothing is taken on trust.'
