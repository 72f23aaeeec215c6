#!/bin/sh
# orphan.sh STATE CODE [setsid|killreaper]: a misbehaving agent. It starts a
# background child that outlives it (with setsid: in a session and process
# group of its own, out of reach of a kill of the agent's group; with
# killreaper, so too, and then it kills the reaper run put above it), then
# exits CODE without touching the store. The child
# holds STATE/fifo open for writing (a test that reads the FIFO sees EOF
# only once every holder is dead), writes its pid to STATE/child.pid and,
# once STATE/go exists, writes to the store. The orchestrator must kill it
# when the turn ends.
state=$1 code=$2
if [ "$code" = child ]; then
  exec 3>"$state/fifo"
  echo $$ > "$state/child.pid.tmp" && mv "$state/child.pid.tmp" "$state/child.pid"
  while [ ! -e "$state/go" ]; do sleep 0.05; done
  proofloop new-problem --name late --objective "Written by an agent's child after its turn ended."
  exit 0
fi
if [ "$3" = setsid ] || [ "$3" = killreaper ]; then
  setsid sh "$0" "$state" child &
else
  sh "$0" "$state" child &
fi
while [ ! -e "$state/child.pid" ]; do sleep 0.05; done
if [ "$3" = killreaper ]; then
  p=$$
  while [ "$p" -gt 1 ] && [ "$(cat /proc/$p/comm)" != proofloop ]; do p=$(cut -d' ' -f4 /proc/$p/stat); done
  kill -9 "$p"
fi
echo "left a child behind on $PROOFLOOP_ID" >&2
exit "$code"
