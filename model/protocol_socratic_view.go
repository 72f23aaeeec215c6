package model

import (
	"fmt"
	"strings"
)

// The socratic protocol as readers see it: its transcript layout, its generated
// file and worked example.

// renderSocratic writes a turn in seed 000's §TURN_MARKDOWN, which puts a
// rule before every turn: the header's own closes it before the first.
func renderSocratic(b *strings.Builder, d *Debate, t *DebateTurn) {
	if t != &d.Turns[0] {
		b.WriteString("---\n\n")
	}
	fmt.Fprintf(b, "## Turn %d — %s — %s\n\n", t.TurnNumber, Writer(d, t), t.Stance)
	fmt.Fprintf(b, "**Position**\n\n%s\n\n", Block(t.Position))
	b.WriteString("**Counterpoints**\n\n")
	for _, c := range t.Counterpoints {
		fmt.Fprintf(b, "- Addresses: %s\n  Claim: %s\n", addresses(c.Addresses), OneLine(c.Claim))
		if len(c.Support) > 0 {
			b.WriteString("  Support:\n")
			for _, s := range c.Support {
				fmt.Fprintf(b, "  - %s\n", SupportText(s))
			}
		}
	}
	b.WriteString("\n**Agreements**\n\n")
	for _, a := range t.Agreements {
		fmt.Fprintf(b, "- %s\n", OneLine(a))
	}
	b.WriteString("\n**Novel Argument**\n\n")
	if t.NovelArgument != nil {
		fmt.Fprintf(b, "%s\n", Block(t.NovelArgument.Text))
		if len(t.NovelArgument.Support) > 0 {
			b.WriteString("\nSupport:\n")
			for _, s := range t.NovelArgument.Support {
				fmt.Fprintf(b, "- %s\n", SupportText(s))
			}
		}
	}
	b.WriteString("\n**Unresolved Items**\n\n")
	for _, u := range t.Unresolved {
		kind := "non-blocking"
		if u.Blocking {
			kind = "blocking"
		}
		fmt.Fprintf(b, "- %s (%s)\n", OneLine(u.Text), kind)
	}
	b.WriteString("\n**Stance Revision Support**\n\n")
	if len(t.StanceRevisionSupport) == 0 {
		b.WriteString("- none\n")
	}
	for _, s := range t.StanceRevisionSupport {
		fmt.Fprintf(b, "- %s\n", SupportText(s))
	}
	if t.Verdict != "" {
		fmt.Fprintf(b, "\n**Verdict:** %s\n", t.Verdict)
	}
	b.WriteString("\n")
}

func addresses(a string) string {
	if n, ok := strings.CutPrefix(a, "turn-"); ok {
		return "Turn " + n
	}
	return map[string]string{"source": "Source", "topic": "Topic"}[a]
}

// socraticExample is the worked example of the socratic file; a test runs it.
var socraticExample = Example{
	ID:      "deb_is_p_np",
	Outcome: SocraticAcceptedConsensus,
	Steps: append(exampleOpening("deb_is_p_np", "alice starts the debate and joins; bob joins in his own session", "--protocol socratic --topic 'Is P = NP?'", "alice", "bob"), []ExampleStep{
		{Note: "turn 1 (alice, p1)", Args: exampleTurn("deb_is_p_np", "p1", "alice"), Input: `{"stance": "OPEN_TO_DEBATE", "position": "P differs from NP.", "counterpoints": [{"addresses": "topic", "claim": "The question presumes a model of computation.", "support": [{"text": "Principle: a complexity class is defined over a machine model."}]}], "agreements": ["The question is open."], "novel_argument": {"text": "Relativization barriers block simple proofs.", "support": [{"text": "Baker, Gill and Solovay (1975)", "url": "https://doi.org/10.1137/0204037"}]}, "unresolved": [{"text": "Which barrier matters most?", "blocking": true}]}`},
		{Note: "bob waits for his turn (it is his now, so it returns at once), then writes turn 2", Args: exampleWait("deb_is_p_np", "p2")},
		{Args: exampleTurn("deb_is_p_np", "p2", "bob"), Input: `{"stance": "ACCEPTING_CONSENSUS", "position": "P differs from NP is likely and unproved.", "counterpoints": [{"addresses": "turn-1", "claim": "Barriers say what fails, not what is true.", "support": [{"text": "Baker-Gill-Solovay gives oracles both ways.", "turn": "turn-1"}]}], "agreements": ["Relativization is a real barrier."], "novel_argument": {"text": "Natural proofs are a second barrier.", "support": [{"text": "Razborov and Rudich (1997)", "url": "https://doi.org/10.1006/jcss.1997.1494"}]}, "unresolved": [{"text": "Whether GCT avoids both.", "blocking": false}]}`},
		{Note: "alice changes her stance, so she gives stance_revision_support; both latest turns now accept consensus with no blocking item", Args: exampleWait("deb_is_p_np", "p1")},
		{Args: exampleTurn("deb_is_p_np", "p1", "alice"), Input: `{"stance": "ACCEPTING_CONSENSUS", "position": "P differs from NP is likely and unproved.", "counterpoints": [{"addresses": "turn-2", "claim": "Natural proofs apply to circuit lower bounds.", "support": [{"text": "Natural proofs, as turn 2 says", "turn": "turn-2"}]}], "agreements": ["It is unproved."], "novel_argument": {"text": "Algebrization is a third barrier.", "support": [{"text": "Principle: a barrier says which proofs fail, not what is true."}]}, "unresolved": [{"text": "Whether GCT avoids all three.", "blocking": false}], "stance_revision_support": [{"text": "Turn 2 showed that barriers do not decide the question.", "turn": "turn-2"}]}`},
		{Args: "debate list"},
	}...),
}

// socraticDoc is the socratic participant's agent file.
var socraticDoc = Doc{
	Path: ".claude/agents/agent-socratic.md", Name: "agent-socratic", Agent: true,
	Description: "A participant of a proofloop `socratic` debate.",
	Guide: "The goal is the truth of the topic, not winning: concede what the other side shows, say exactly what still blocks agreement, and change your stance when the evidence does, with the support that changed it.\n\n" +
		"1. Find the debate: `proofloop next --role participant` lists the socratic debates waiting on a participant, unless you were given an id.\n" +
		"2. Join once (`debate join ID --participant-name NAME --harness claude-code`) and note your `participant_id`; the same name gives it back later.\n" +
		"3. Until `debate wait ID --participant-id P --json` says `whose_turn.closed`: read the turns (`debate show ID --transcript`) and the source, then send your turn as one JSON object on standard input with a quoted heredoc (`<<'EOF'`).\n" +
		"4. When it is closed, say in a line or two how it ended and stop.\n\n" +
		"Every turn stays on the topic: its position answers the topic, and it engages the source or an earlier turn (a counterpoint that addresses it, or support that quotes or cites it); revise an off-topic draft before you send it. A counterpoint's `addresses` is `turn-N`, `source` or `topic`. Each support item is one of: a `quote` of the source, word for word; an earlier `turn` (`turn-N`); a `url`; or a `text` that starts `Principle:`. Keep an `unresolved` item, `\"blocking\": false` when it does not stop consensus. Write `" + StanceAccepting + "` only when nothing you list blocks the other side's position, never because the peer is confident or first; `" + StanceDissenting + "` with a blocking item when you do not accept it. If the peer never joins, take the timeout path `prime` gives.",
	Example: socraticExample,
}
