#!/bin/sh
# crash.sh STATE REAL: a misbehaving agent. Its first call fails with exit
# 1 without touching the store; later calls run the real agent REAL.
state=$1 real=$2
if [ ! -e "$state/crashed" ]; then
  : > "$state/crashed"
  echo "crashing on $PROOFLOOP_ID as $PROOFLOOP_ACTOR" >&2
  exit 1
fi
exec sh "$real"
