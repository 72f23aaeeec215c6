#!/usr/bin/env bash
# make demo: `proofloop run` drives the example problem of contents/ (a fresh
# copy under .demo/) to solved with the scripted agents of examples/agents/,
# through every one of the eleven skills and a decision. It then prints the
# final tree and the audit trail of one statement.
set -euo pipefail
cd "$(dirname "$0")/.."
export PROOFLOOP_ROOT=.demo/contents
rm -rf .demo && mkdir -p .demo && cp -r contents .demo/
pl() { bin/proofloop "$@"; }

echo "== proofloop run (agents: examples/agents/*.sh, see $PROOFLOOP_ROOT/config.json)"
pl run -j 2 --max-turns 60 --turn-timeout 1m
echo
echo "== the final tree"
pl status
echo
echo "== the audit trail of stmt_odd_squares_wrap_sub2"
pl events --id stmt_odd_squares_wrap_sub2
pl show stmt_odd_squares_wrap_sub2 --sentences
echo
echo "== doctor"
pl doctor
