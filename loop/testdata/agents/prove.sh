#!/bin/sh
# prove.sh: writes a fixed proof of its statement.
proofloop state-complete-proof --statement-path "$PROOFLOOP_ID" --strategy induction \
  --proof-text "Step 1: For n = 1 both sides are 1. Step 2: Adding 2n+1 to n^2 gives (n+1)^2. Hence the claim holds for every n >= 1."
