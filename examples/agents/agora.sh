#!/bin/sh
# The scripted agora positions (one script for both roles): the first to
# write proposes its position; a position that sees another's proposal
# approves it (never its own); after an approval of its proposal, the
# proposer stays (no-change), which the engine closes as consensus. Each
# turn carries evidence on the position it argues for: the pool item the
# researcher wrote on it when the debate had a research stage, else where
# to read up on it, so methodology fact-based accepts every turn.
. "$(dirname "$0")/debate_lib.sh"
role=$PROOFLOOP_ROLE
proposer=$(proofloop show "$id" --field 'turns.#(signal=="propose").role' 2>/dev/null || true)
# evidence ROLE prints the evidence key of a turn arguing for ROLE's position.
evidence() {
  text=$(field "positions.#(role==\"$1\").text")
  src=$(proofloop show "$id" --field "evidence_pool.#(content%\"Position $1: *\").id" 2>/dev/null || true)
  printf '%s\n' "\"evidence\": [{\"source\": \"$(jstr "${src:-$(readup "$text")}")\", \"content\": \"$(jstr "$1: $text")\", \"confidence\": 0.8}]"
}
case $proposer in
'') turn "{\"signal\": \"propose\", \"message\": \"Prove the identity by induction on n, citing a lemma for (n+1)^2.\", \"confidence\": 0.8, $(evidence "$role")}" ;;
"$role") turn "{\"signal\": \"no-change\", \"message\": \"My proposal stands as approved.\", \"confidence\": 0.8, $(evidence "$role")}" ;;
*) turn "{\"signal\": \"approve\", \"message\": \"Induction with the lemma is shorter to check than pairing terms.\", \"confidence\": 0.7, \"target\": \"proposal-$proposer\", $(evidence "$proposer")}" ;;
esac
