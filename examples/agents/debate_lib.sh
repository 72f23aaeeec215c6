# Shared by the scripted debate agents. `proofloop run` names the debate
# (PROOFLOOP_ID) and either the participant who writes next
# (PROOFLOOP_PARTICIPANT_ID) or the role a new participant joins as
# (PROOFLOOP_JOIN_ROLE, PROOFLOOP_PARTICIPANT_NAME). A join is the whole
# turn. Everything else an agent decides from the debate document itself
# (`turns`, `last`), never from files of its own, so it stays right under
# run -j and after a restart.
. "$(dirname "$0")/lib.sh"
if [ -n "${PROOFLOOP_JOIN_ROLE:-}" ]; then
  say "joining as $PROOFLOOP_JOIN_ROLE"
  exec proofloop debate join "$id" --participant-name "$PROOFLOOP_PARTICIPANT_NAME"
fi
me=$PROOFLOOP_PARTICIPANT_ID
turns=$(count turns)
# last prints a field of the latest turn, e.g. `last role`.
last() { proofloop show "$id" --field "turns.@reverse.0.$1" 2>/dev/null || true; }
# turn writes this participant's turn, from a JSON document or from flags
# (--body ...), and ends the agent.
turn() {
  say "writing turn $((turns + 1))"
  case $1 in
  '{'*) exec proofloop debate turn "$id" --participant-id "$me" --input - <<EOF
$1
EOF
    ;;
  *) exec proofloop debate turn "$id" --participant-id "$me" "$@" ;;
  esac
}
# jstr prints its argument escaped for the inside of a JSON string (data is
# printed with printf, never echo, which reads backslashes in some shells).
jstr() { printf %s "$1" | sed 's/\\/\\\\/g; s/"/\\"/g' | tr '\n\t' '  '; }
# readup prints where a reader can read up on a text: a search URL, a
# source that methodology fact-based accepts (an http(s) URL with a host).
readup() { printf '%s\n' "https://en.wikipedia.org/w/index.php?search=$(printf %s "$1" | tr -cs 'A-Za-z0-9' '+' | sed 's/^+//; s/+$//')"; }
