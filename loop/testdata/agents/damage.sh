#!/bin/sh
# damage.sh: a misbehaving agent that damages its statement's file (it no
# longer parses) and exits 0 as if it had done its turn.
printf '{"id": "%s", "status": ' "$PROOFLOOP_ID" > "$PROOFLOOP_ROOT/statement/$PROOFLOOP_ID.json"
echo "damaged $PROOFLOOP_ID"
