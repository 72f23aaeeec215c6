#!/bin/sh
# The scripted agora researcher: the research stage of `debate start
# --research N` is its N turns of evidence only, which become the pool
# (pool-1, pool-2, ...) the positions cite. It reads the debate: its source
# file if it has one (cited by its path in the project), its topic and each
# position ROLE=TEXT, and names for each where to read up on it (an https
# URL), so
# every item is verifiable under methodology fact-based. The items are
# dealt out over the N turns (item j in turn j mod N + 1; a turn left
# without one repeats an item), the same for every run.
. "$(dirname "$0")/debate_lib.sh"
item() { printf '%s\n' "{\"source\": \"$(jstr "$1")\", \"content\": \"$(jstr "$2")\", \"confidence\": $3}"; }
items=$(
  # The engine keeps the source's absolute path; a project file is cited
  # by its path from the project folder, where run starts the agent.
  src=$(field source.path 2>/dev/null || true)
  case $src in
  "$PWD"/*) item "${src#"$PWD"/}" "The debate's source: the text the positions argue about." 0.9 ;;
  esac
  topic=$(field topic)
  item "$(readup "$topic")" "Background reading on the question: $topic" 0.6
  i=0
  while [ "$i" -lt "$(count positions)" ]; do
    role=$(field "positions.$i.role")
    text=$(field "positions.$i.text")
    item "$(readup "$text")" "Position $role: $text (background reading)" 0.6
    i=$((i + 1))
  done
)
n=$(field research)
mine=$(printf '%s\n' "$items" | awk -v k="$turns" -v n="$n" '(NR - 1) % n == k { print }')
if [ -z "$mine" ]; then
  mine=$(printf '%s\n' "$items" | awk -v k="$turns" '{ all[NR] = $0 } END { print all[k % NR + 1] }')
fi
turn "{\"evidence\": [$(printf '%s\n' "$mine" | paste -sd, -)]}"
