#!/bin/sh
# solve.sh: gives its problem a fixed wrap-up statement (the problem stays
# pending; its revision moves).
proofloop prob-wrapup-statement --problem-path "$PROOFLOOP_ID" \
  --claim "For every n >= 1, 1 + 3 + ... + (2n-1) = n^2." --purpose "It is the objective."
