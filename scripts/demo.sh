#!/usr/bin/env bash
# make demo: `proofloop run` drives a fresh copy of the example project to
# solved with the scripted agents of examples/agents/, through every one of
# the eleven skills and a decision; then the demo prints the final tree, the
# audit trail of one statement, and doctor's check.
#
# The copy comes from the binary (`proofloop init --example`), into a
# scratch root under .demo/ (git-ignored) that is removed first, so the demo
# shows the same story every time and never reads or changes a tracked
# file. To show more, add a `step` and its commands at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
root=.demo/contents
export PROOFLOOP_ROOT=$root
pl() { bin/proofloop "$@"; }
step() { printf '\n== %s\n' "$*"; }

rm -rf .demo
step "a fresh copy of the example project, in the scratch root $root"
pl init --example "$root"

step "proofloop run (agents: examples/agents/*.sh, see $root/config.json)"
pl run -j 2 --max-turns 60 --turn-timeout 1m

step "the final tree"
pl status

step "the audit trail of stmt_odd_squares_wrap_sub2"
pl events --id stmt_odd_squares_wrap_sub2
pl show stmt_odd_squares_wrap_sub2 --sentences

step "doctor"
pl doctor
