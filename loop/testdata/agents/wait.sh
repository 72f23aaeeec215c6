#!/bin/sh
# wait.sh STATE: an agent that holds its turn until the test lets it go.
# It creates STATE/started, waits for STATE/go (at most 120 s, so that a
# broken test cannot leave it behind for long) and exits 0, changing
# nothing.
state=$1
: > "$state/started"
i=0
while [ ! -e "$state/go" ] && [ $i -lt 2400 ]; do sleep 0.05; i=$((i+1)); done
echo "let go on $PROOFLOOP_ID"
