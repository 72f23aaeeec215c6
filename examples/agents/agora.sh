#!/bin/sh
# The scripted agora positions (one script for both roles): the first to
# write proposes its position; a position that sees another's proposal
# approves it (never its own); after an approval of its proposal, the
# proposer stays (no-change), which the engine closes as consensus.
. "$(dirname "$0")/debate_lib.sh"
role=$PROOFLOOP_ROLE
proposer=$(proofloop show "$id" --field 'turns.#(signal=="propose").role' 2>/dev/null || true)
case $proposer in
'') turn '{"signal": "propose", "message": "Prove the identity by induction on n, citing a lemma for (n+1)^2.", "confidence": 0.8}' ;;
"$role") turn '{"signal": "no-change", "message": "My proposal stands as approved.", "confidence": 0.8}' ;;
*) turn "{\"signal\": \"approve\", \"message\": \"Induction with the lemma is shorter to check than pairing terms.\", \"confidence\": 0.7, \"target\": \"proposal-$proposer\"}" ;;
esac
