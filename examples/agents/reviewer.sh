#!/bin/sh
# The scripted reviewer of examples/debates/inductive_step.md: it raises two
# points (quoting the file), follows up on every point the latest replies
# did not agree to, and writes the consensus once all are agreed.
. "$(dirname "$0")/debate_lib.sh"
if [ "$turns" = 0 ]; then
  turn '{"points": [
    {"point": 1, "text": "\"which equals (n+1)^2\" uses the expansion of the square without showing it."},
    {"point": 2, "text": "The claim \"if 1 + 3 + ... + (2n-1) = n^2\" never says n >= 1."}]}'
fi
open=$(last 'replies.#(verdict!="agreed")#.point' | tr -d '[]')
if [ -n "$open" ]; then
  fu=$(echo "$open" | tr ',' '\n' | sed 's/.*/{"point": &, "text": "The sum 1 + ... + (2n-1) is empty for n = 0, so the range matters."}/' | paste -sd, -)
  turn "{\"follow_ups\": [$fu]}"
fi
turn '{"consensus": {"agreed": [1, 2], "action_items": ["cite a lemma for (n+1)^2 = n^2 + 2n + 1", "add the premise n >= 1"], "disagreements": []}}'
