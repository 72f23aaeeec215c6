#!/usr/bin/env bash
# make demo: `proofloop run` drives a fresh copy of the example project to
# solved with the scripted agents inside the binary (`proofloop example-agent
# ROLE`, the scripts of examples/agents/), through every one of
# the eleven skills and a decision; then the demo prints the final tree, the
# audit trail of one statement, and doctor's check.
#
# The copy comes from the binary (`proofloop init --example`), into a
# scratch root under .demo/ (git-ignored) that is removed first, so the demo
# shows the same story every time and never reads or changes a tracked
# file. To show more, add a `step` and its commands at the end.
#
# Then a second problem, prob_gauss, shows the escalation ladder: with one
# round at level revise, the checker rejects the prover's pairing proof
# twice (the fixer revises it in between), the statement climbs to replan,
# the prover reads the dead end in prime, is refused the same proof and
# decomposes with a lesson, and the proof succeeds; the export of the solved
# problem ends with its effort summary.
#
# After the proofs, the demo starts one debate of each protocol the binary
# has (`proofloop transitions --protocols`: socratic and review on
# examples/debates/inductive_step.md, whose quotes the socratic engine
# checks, agora, dialectic, panel, and any protocol added later) and a
# second `proofloop run` drives them with the scripted debate agents that
# config.json names for the debate roles (example agents participant,
# reviewer, responder, agora for both positions, researcher for agora's
# research stage, main, partner, proponent, opponent, judge; main asks the
# decide agent to consent to the partner's suggestion). Each agent reads the debate's document to know what to
# write. The demo then prints every debate's outcome and the path of its
# Markdown transcript under the root.
#
# make demo-pg runs this same script with $PROOFLOOP_STORE naming a
# database of a throwaway PostgreSQL cluster: the store lives there, the
# root holds only the run logs, and the transcripts come from an export.
set -euo pipefail
cd "$(dirname "$0")/.."
root=.demo/contents
export PROOFLOOP_ROOT=$root
pl() { bin/proofloop "$@"; }
step() { printf '\n== %s\n' "$*"; }

rm -rf .demo
step "a fresh copy of the example project, in the scratch root $root"
pl init --example "$root"

step "proofloop run (agents: proofloop example-agent ROLE, see $root/config.json)"
pl run -j 2 --max-turns 60 --turn-timeout 1m

step "the final tree"
pl status

step "the audit trail of stmt_odd_squares_wrap_sub2"
pl events --id stmt_odd_squares_wrap_sub2
pl show stmt_odd_squares_wrap_sub2 --sentences

step "the finished proof of prob_odd_squares as one document (export --format md; --format tex -o proof.tex for LaTeX)"
pl export --format md --problem prob_odd_squares

step "a statement that keeps failing climbs the ladder (prob_gauss; config escalation: one round at revise)"
pl config set escalation '[{"level": "revise", "rounds": 1}, {"level": "replan", "rounds": 2}, {"level": "rewrite", "rounds": 2}]' --actor demo
pl new-problem --name gauss --objective 'For every integer n >= 1, 1 + 2 + ... + n = n(n+1)/2.' --actor demo
pl run -j 2 --max-turns 30 --turn-timeout 1m --problem prob_gauss
pl status prob_gauss
pl events --id stmt_gauss_wrap

step "the prover's turns on stmt_gauss_wrap: the dead end read first in prime, the same proof refused, the re-plan"
cat "$root"/runs/*/*-prove-stmt_gauss_wrap.log

step "its dead end, and what the solved problem took (export's effort summary)"
pl show stmt_gauss_wrap --field dead_ends
pl export --format md --problem prob_gauss | sed -n '/^## Appendix: effort$/,$p'

src=examples/debates/inductive_step.md
step "one debate of each protocol (proofloop transitions --protocols; source: $src)"
start() { pl --json debate start "$@" | sed -n 's/^{.*"id":"\([^"]*\)".*/\1/p'; }
# The list comes from the binary, so a new protocol is in the demo with no
# edit here; a protocol whose start needs flags of its own gets them below.
# Each row starts with its name, seed and start flags.
rows=$(pl --json transitions --protocols | grep -o '{"name":"[a-z_]*","seed":"[^"]*","start_flags":"[^"]*"')
protocols=$(sed 's/{"name":"\([a-z_]*\)".*/\1/' <<<"$rows")
if [ -z "$protocols" ]; then
  echo "demo: proofloop transitions --protocols --json named no protocol" >&2
  exit 1
fi
debates=()
for p in $protocols; do
  case $p in
  socratic) args=(--topic 'Is the inductive step complete?' --source "$src") ;;
  review) args=(--topic 'Review the inductive step' --subject "$src" --source "$src") ;;
  agora) args=(--topic 'How to prove the identity' \
    --position 'induction=Prove it by induction on n' --position 'pairing=Prove it by pairing terms') ;;
  dialectic) args=(--topic 'Cite a lemma or rewrite the step?') ;;
  *) args=(--topic 'The inductive step is complete') ;;
  esac
  # A protocol whose start takes --research N opens with a research stage
  # (the example's researcher agent writes it), under methodology
  # fact-based when it has one, so every later turn cites the pool.
  flags=$(grep "^{\"name\":\"$p\"," <<<"$rows" | sed 's/.*"start_flags":"\([^"]*\)"$/\1/')
  case $flags in *'--research N'*) args+=(--research 2) ;; esac
  case $flags in *fact-based*) args+=(--methodology fact-based) ;; esac
  id=$(start --protocol "$p" "${args[@]}")
  if [ -z "$id" ]; then
    echo "demo: could not start a $p debate" >&2
    exit 1
  fi
  debates+=("$id")
done
pl debate list

step "proofloop run drives the debates (agents for the debate roles, see $root/config.json)"
pl run -j 2 --max-turns 60 --turn-timeout 1m

step "each debate's outcome and transcript"
files=$root
if [ -n "${PROOFLOOP_STORE:-}" ]; then
  # On PostgreSQL (make demo-pg) the transcripts are rows of the database:
  # export writes the store, transcripts included, as a file store.
  files=.demo/export
  pl export --to "$files"
fi
printf '%-10s %-20s %-38s %s\n' protocol outcome debate transcript
for id in "${debates[@]}"; do
  printf '%-10s %-20s %-38s %s\n' "$(pl show "$id" --field protocol)" "$(pl show "$id" --field outcome.outcome)" \
    "$id" "$files/$(pl show "$id" --field artifact)"
done

step "doctor"
pl doctor
