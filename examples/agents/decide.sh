#!/bin/sh
# The scripted decision maker: it accepts proposed modifications, grants
# one more round to a statement that spent its budget, and accepts a
# dialectic partner's pending suggestions (main.sh asks for them).
. "$(dirname "$0")/lib.sh"
if [ "${PROOFLOOP_KIND:-}" = debate ]; then
  for n in $(field 'suggestions.#(state=="pending")#.number' | tr -d '[]' | tr ',' ' '); do
    say "accepting suggestion $n"
    proofloop decide "$id" --suggestion "$n" --accept
  done
  exit 0
fi
if [ "$status" = needs_modification ]; then
  say "accepting the modification"
  exec proofloop decide "$id" --accept --reason 'The added condition is the intended range of n.'
fi
say "extending the budget by one round"
exec proofloop decide "$id" --extend 1
