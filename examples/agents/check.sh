#!/bin/sh
# The scripted checker: it rejects the first proof of the inductive step at
# the sentence that uses an unproved identity, and confirms everything else.
. "$(dirname "$0")/lib.sh"
if [ "$id" = stmt_odd_squares_wrap_sub2 ] && [ "$(count validate.issues)" = 0 ]; then
  say "rejecting sentence 2"
  exec proofloop check-reject-proof --statement-path "$id" --sentence-number 2 \
    --sentence-text 'which equals $(n+1)^2$' --error-type unjustified_leap \
    --explanation 'The identity n^2 + 2n + 1 = (n+1)^2 is used without being shown.' \
    --suggested-fix 'Prove the expansion of (n+1)^2, or cite a lemma that does.'
fi
# The climb: it rejects the pairing proof twice at level revise, then
# confirms what comes after.
if [ "$id" = stmt_gauss_wrap ] && [ "$(count dead_ends)" = 0 ]; then
  if [ "$(count validate.issues)" = 0 ]; then
    say "rejecting sentence 2: no pairing for odd n"
    exec proofloop check-reject-proof --statement-path "$id" --sentence-number 2 --sentence-text 'there are n/2 pairs' \
      --error-type scope_error --explanation 'For odd n the middle term has no partner, so there are not n/2 pairs.'
  fi
  say "rejecting sentence 2 again: half a pair"
  exec proofloop check-reject-proof --statement-path "$id" --sentence-number 2 --sentence-text 'counts as half a pair' \
    --error-type unjustified_leap --explanation 'Why a middle term is worth half a pair of sum n+1 is not shown.'
fi
say "confirming"
exec proofloop check-confirm-proof --statement-path "$id" --verification-summary 'Checked sentence by sentence; every step follows.'
