# Shared by the scripted agents: `proofloop run` sets PROOFLOOP_ROOT, _ROLE,
# _ID, _LEASE and _ACTOR, and puts its own binary first on PATH, so every
# skill call below acts with this turn's lease and actor.
set -eu
id=$PROOFLOOP_ID
field() { proofloop show "$id" --field "$1"; }
status=$(field status)
say() { echo "[$PROOFLOOP_ACTOR] $id ($status): $*"; }
# count prints the length of a list field, 0 when the field is absent.
count() { proofloop show "$id" --field "$1.#" 2>/dev/null || echo 0; }
