#!/bin/sh
# The scripted panel judge: after the first round it asks the question the
# second must settle; after the second it gives the verdict, which closes
# the panel.
. "$(dirname "$0")/debate_lib.sh"
if [ "$turns" = 2 ]; then
  turn --body 'Is the expansion proved anywhere the step can cite?'
fi
turn --body 'The opponent conceded once the lemma was cited.' \
  --conclusion upheld --conclusion-text 'The step is complete when it cites the lemma for (n+1)^2.'
