#!/bin/sh
# The scripted decision maker: it accepts proposed modifications and grants
# one more round to a statement that spent its budget.
. "$(dirname "$0")/lib.sh"
if [ "$status" = needs_modification ]; then
  say "accepting the modification"
  exec proofloop decide "$id" --accept --reason 'The added condition is the intended range of n.'
fi
say "extending the budget by one round"
exec proofloop decide "$id" --extend 1
