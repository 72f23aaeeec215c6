#!/bin/sh
# The scripted responder: it agrees to point 1 at once, only partly to
# point 2, and agrees to every point the reviewer follows up on.
. "$(dirname "$0")/debate_lib.sh"
if [ "$(last 'points.#')" = 2 ]; then
  turn '{"replies": [
    {"point": 1, "verdict": "agreed", "reasoning": "The expansion should cite a proved lemma."},
    {"point": 2, "verdict": "partially_agreed", "reasoning": "The premise is implicit in the problem, but not in the claim."}]}'
fi
replies=$(last 'follow_ups.#.point' | tr -d '[]' | tr ',' '\n' |
  sed 's/.*/{"point": &, "verdict": "agreed", "reasoning": "Right: the claim gets the premise n >= 1."}/' | paste -sd, -)
turn "{\"replies\": [$replies]}"
