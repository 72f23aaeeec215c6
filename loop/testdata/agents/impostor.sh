#!/bin/sh
# impostor.sh: a misbehaving prover that tries to act as another agent of
# the run under its own lease, by flag and by environment. Both must be
# refused (exit 2); it then exits with the second refusal's code.
proofloop state-complete-proof --statement-path "$PROOFLOOP_ID" --strategy direct \
  --proof-text 'It is clear. Hence it holds.' --actor check-1
echo "as check-1 by flag: exit $?"
PROOFLOOP_ACTOR=check-1 proofloop state-complete-proof --statement-path "$PROOFLOOP_ID" --strategy direct \
  --proof-text 'It is clear. Hence it holds.'
code=$?
echo "as check-1 by environment: exit $code"
exit $code
