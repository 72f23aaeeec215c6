#!/bin/sh
# fifo.sh: a misbehaving agent. It replaces $PROOFLOOP_USAGE, and the
# turn's log under runs/, with FIFOs: a reader that opens either by name
# waits for a writer that never comes.
mkfifo "$PROOFLOOP_USAGE"
for log in "$PROOFLOOP_ROOT/runs/$PROOFLOOP_RUN_ID"/*-"$PROOFLOOP_ROLE-$PROOFLOOP_ID.log"; do
  rm -f "$log" && mkfifo "$log"
done
echo "left FIFOs behind on $PROOFLOOP_ID" >&2
