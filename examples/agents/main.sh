#!/bin/sh
# The scripted dialectic main: it opens the question, and on its next turn
# concludes. A partner's suggestion needs a person's consent first, and
# `run` gives a debate's turn to its writer only, so main asks the decide
# agent (`proofloop example-agent decide`, as the actor "decide") before it
# concludes, as the seed's main agent asks its user. The consent is not
# main's, so it is not given under main's lease (which would make it main's).
. "$(dirname "$0")/debate_lib.sh"
suggestions() { proofloop show "$id" --field "suggestions.#(state==\"$1\")#.text" 2>/dev/null | tr -d '[]'; }
if [ "$turns" = 0 ]; then
  turn --body 'Should the example fix the inductive step by citing a lemma, or by rewriting it?'
fi
if [ -n "$(suggestions pending)" ]; then
  say "a suggestion waits for consent: asking the decide agent"
  PROOFLOOP_LEASE= PROOFLOOP_ROLE=decide PROOFLOOP_ACTOR=decide proofloop example-agent decide
fi
accepted=$(suggestions accepted | tr -d '"')
turn --body "We go with the partner's view.${accepted:+ Accepted: $accepted}" \
  --conclusion consensus --conclusion-text 'Cite a proved lemma for (n+1)^2 in sentence 2.' \
  --agreed 'Sentence 2 needs a reason for (n+1)^2 = n^2 + 2n + 1.' \
  --insight 'A cited lemma keeps the proof checkable sentence by sentence.'
