#!/bin/sh
# hang.sh STATE REAL: a misbehaving agent. Its first call hangs (a child
# sleeps, the agent waits on it) after writing its pids to STATE; later
# calls run the real agent REAL. The orchestrator must kill the whole
# process group at the turn timeout or on SIGINT.
state=$1 real=$2
if [ ! -e "$state/hung" ]; then
  : > "$state/hung"
  echo "hanging on $PROOFLOOP_ID as $PROOFLOOP_ACTOR"
  sleep 300 &
  echo $$ > "$state/agent.pid"
  echo $! > "$state/sleep.pid.tmp" && mv "$state/sleep.pid.tmp" "$state/sleep.pid"
  wait
  exit 0
fi
exec sh "$real"
