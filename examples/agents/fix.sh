#!/bin/sh
# The scripted fixer: it answers the open issue with a gap-filling
# sub-statement, then, once that is proved, patches the cited sentence.
. "$(dirname "$0")/lib.sh"
issue=$(count validate.issues)
if [ "$id" = stmt_gauss_wrap ]; then
  say "patching sentence 2 under the same plan: the middle term"
  exec proofloop fix-patch-proof --statement-path "$id" --issue-number "$issue" --sentence-range 2 \
    --replacement-text 'Step 2: Each pair sums to n+1; for odd n the middle term counts as half a pair, so there are n/2 pairs in all.' \
    --change-description 'Count the middle term as half a pair.'
fi
if [ "$status" = has_gap ]; then
  say "filling the gap of issue $issue with a lemma"
  exec proofloop fix-create-substatement --statement-path "$id" --issue-number "$issue" \
    --sub-claim 'For every integer n, n^2 + 2n + 1 = (n+1)^2.' --gap-location 2 \
    --purpose 'Justifies the last equality of sentence 2.'
fi
say "patching sentence 2 with the proved lemma"
exec proofloop fix-patch-proof --statement-path "$id" --issue-number "$issue" --sentence-range 2 \
  --replacement-text 'Adding the next odd number $2n+1$ to both sides gives $1 + \dots + (2n+1) = n^2 + 2n + 1$, which equals $(n+1)^2$ by the lemma stmt_odd_squares_wrap_sub2_fix1.' \
  --change-description 'Cite the gap-filling lemma for the expansion of the square.'
