#!/bin/sh
# The scripted socratic participants (both use this script): is the
# inductive step of examples/debates/inductive_step.md complete? The first
# says no, the second converges, and both accept a consensus (cite a lemma
# for the square), so the engine closes it ACCEPTED_CONSENSUS after turn 4.
# Every support item is one of seed 000's forms (a quote of the source, an
# earlier turn, a URL, a principle), and every quote is in the debate's
# source, as the engine checks.
. "$(dirname "$0")/debate_lib.sh"
case $turns in
0) turn '{"stance": "OPEN_TO_DEBATE", "position": "The step is incomplete: it uses (n+1)^2 = n^2 + 2n + 1 without showing it.",
  "counterpoints": [{"addresses": "topic", "claim": "The last equality is asserted, not derived.", "support": [{"text": "The proof ends with", "quote": "which equals (n+1)^2."}]}],
  "agreements": ["The first equality follows from the hypothesis."],
  "novel_argument": {"text": "A checker that accepts unshown identities accepts wrong ones too.", "support": [{"text": "Principle: a check that skips a step cannot tell a true step from a false one."}]},
  "unresolved": [{"text": "Whether a checker may accept an unproved algebraic identity.", "blocking": true}]}' ;;
1) turn '{"stance": "CONVERGING", "position": "The identity is routine, but the step should say where it comes from.",
  "counterpoints": [{"addresses": "turn-1", "claim": "The expansion is one line of algebra, not a gap in the argument.", "support": [{"text": "The sum is already written as", "quote": "n^2 + 2n + 1"}]}],
  "agreements": ["The hypothesis is used correctly."],
  "novel_argument": {"text": "A proved lemma for the square makes the step checkable sentence by sentence.", "support": [{"text": "Turn 1 asks for the identity to be shown", "turn": "turn-1"}]},
  "unresolved": [{"text": "Whether the lemma is worth its own statement.", "blocking": false}]}' ;;
2) turn '{"stance": "ACCEPTING_CONSENSUS", "position": "The step is complete once it cites a proved lemma for (n+1)^2.",
  "counterpoints": [{"addresses": "turn-2", "claim": "Routine algebra is still a step to check.", "support": [{"text": "The step rests on", "quote": "Adding the next odd number 2n+1 to both sides"}]}],
  "agreements": ["Citing a lemma settles it."],
  "novel_argument": {"text": "The lemma is reusable for every later square.", "support": [{"text": "Principle: a proved lemma is cited, never re-derived."}]},
  "unresolved": [{"text": "Whether the lemma is worth its own statement.", "blocking": false}],
  "stance_revision_support": [{"text": "Turn 2 showed the gap is one citation, not a flaw in the induction.", "turn": "turn-2"}]}' ;;
*) turn '{"stance": "ACCEPTING_CONSENSUS", "position": "The step is complete once it cites a proved lemma for (n+1)^2.",
  "counterpoints": [{"addresses": "turn-3", "claim": "A separate statement costs one short proof.", "support": [{"text": "The square to expand is", "quote": "(n+1)^2"}]}],
  "agreements": ["Cite the lemma for the expansion."],
  "novel_argument": {"text": "The fixer of the example does exactly this.", "support": [{"text": "Turn 3 proposes the citation", "turn": "turn-3"}]},
  "unresolved": [{"text": "Whether the lemma is worth its own statement.", "blocking": false}],
  "stance_revision_support": [{"text": "Turn 3 accepted that routine algebra is still a step to check.", "turn": "turn-3"}]}' ;;
esac
