#!/bin/sh
# idle.sh: a misbehaving agent that reads the item and changes nothing,
# then exits 0 as if it had done its turn.
proofloop show "$PROOFLOOP_ID" --field status
echo "thinking about $PROOFLOOP_ID as $PROOFLOOP_ACTOR; doing nothing"
