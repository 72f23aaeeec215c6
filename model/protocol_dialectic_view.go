package model

import (
	"fmt"
	"strings"
)

// The dialectic protocol as readers see it: its transcript layout, its generated
// file and worked example.

// dialecticTurn is the command of a dialectic turn: Markdown, not JSON.
const dialecticTurn = "proofloop debate turn ID --participant-id P --body TEXT"

// renderDialectic groups turns in rounds: a main turn opens a round, the
// partner's turn answers it, and user input is shown in the round it came in.
func renderDialectic(b *strings.Builder, d *Debate) {
	printed, taken := 0, 0
	for i := range d.Turns {
		t := &d.Turns[i]
		round := max(printed, 1) // user input belongs to the round it came in
		if t.Role != RoleUser {
			round = taken/2 + 1
			taken++
		}
		if round != printed {
			fmt.Fprintf(b, "## Round %d\n\n", round)
			printed = round
		}
		switch t.Role {
		case RoleUser:
			fmt.Fprintf(b, "### User input (turn %d)\n\n", t.TurnNumber)
		case RoleMain:
			fmt.Fprintf(b, "### View — %s (turn %d)\n\n", Writer(d, t), t.TurnNumber)
		default:
			fmt.Fprintf(b, "### Challenge — %s (turn %d)\n\n", Writer(d, t), t.TurnNumber)
		}
		fmt.Fprintf(b, "%s\n\n", Block(t.Body))
		if len(t.Suggestions) > 0 {
			b.WriteString("**Suggestions**\n\n")
			for _, s := range d.Suggestions {
				if s.TurnNumber == t.TurnNumber {
					fmt.Fprintf(b, "%d. %s — %s\n", s.Number, OneLine(s.Text), consent(s))
				}
			}
			b.WriteString("\n")
		}
		if c := t.Conclusion; c != nil {
			fmt.Fprintf(b, "**Conclusion (%s)**\n\n%s\n\n", c.Outcome, Block(c.Text))
			if len(c.LeftOpen) > 0 {
				fmt.Fprintf(b, "**Left open:** %s\n\n", Numbered("suggestion", c.LeftOpen))
			}
		}
	}
}

func consent(s Suggestion) string {
	if s.State == SuggestionPending {
		return "pending"
	}
	return fmt.Sprintf("%s by %s at %s", s.State, Deref(s.DecidedBy, "unknown"), Deref(s.DecidedAt, "unknown time"))
}

// dialecticExample is the worked example of the dialectic file; a test runs it.
var dialecticExample = Example{
	ID:      "deb_should_we_split_the_store_package",
	Outcome: DialecticConsensus,
	Steps: []ExampleStep{
		{Args: "init"},
		{Note: "you (main) start and join; the partner joins in its own session", Args: "debate start --protocol dialectic --topic 'Should we split the store package'"},
		{Args: "debate join deb_should_we_split_the_store_package --participant-name claude --actor claude"},
		{Args: "debate join deb_should_we_split_the_store_package --participant-name codex --actor codex"},
		{Args: "debate turn deb_should_we_split_the_store_package --participant-id p1 --actor claude --body 'The store has grown to 4000 lines; the index could be its own package.'"},
		{Note: "the partner's turn, with a suggestion that waits for consent", Args: exampleWait("deb_should_we_split_the_store_package", "p2")},
		{Args: "debate turn deb_should_we_split_the_store_package --participant-id p2 --actor codex --body 'Split the index out, keep the journal.' --suggestion 'Move index*.go to store/index'"},
		{Note: "the user accepts the suggestion", Args: "decide deb_should_we_split_the_store_package --suggestion 1 --accept"},
		{Note: "main concludes, which closes the debate", Args: "debate turn deb_should_we_split_the_store_package --participant-id p1 --actor claude --body 'Agreed.' --conclusion consensus --conclusion-text 'Split the index into store/index; keep the journal.'"},
		{Args: "debate transcript deb_should_we_split_the_store_package"},
		{Args: "debate list"},
	},
}

// dialecticDoc is the /debate skill.
var dialecticDoc = Doc{
	Path: ".claude/skills/debate/SKILL.md", Name: "debate",
	Description: "/debate TOPIC: argue a question out with a partner agent (proofloop `dialectic`).",
	Guide: "You are `" + RoleMain + "`: start the debate and join it, then start the partner (a subagent or another session) with the id and concrete context (files, diff, the decision to make); it joins as `" + RolePartner + "`.\n\n" +
		"Choose the partner's agent type by the topic: a specialist that fits it, else `general-purpose`; it joins with `--agent-type T`. If T fails to start, start `general-purpose`, joining with `--fallback-from T --fallback-reason WHY` too.\n\n" +
		"Ask the user with the host's question tool (AskUserQuestion in Claude Code); record each answer as their turn (`--participant-id " + ParticipantUser + "`), which takes no one's turn.\n\n" +
		"1. Before starting, confirm topic, focus and your initial leaning.\n" +
		"2. Write your turn, wait for the partner's, read it, and answer: agree where it is right, push back where it is not.\n" +
		"3. After each round, offer: continue, add a view, steer, summarise, or let you decide.\n" +
		"4. A partner suggestion stays pending until the user decides it (`proofloop decide`), never on your own.\n" +
		"5. When you agree or agree to disagree, ask whether to keep the record: keep, conclude with a `--conclusion` turn; delete, `proofloop debate close ID --discard` instead.\n\n" +
		"The partner questions main's reasoning, brings what it missed, proposes changes as suggestions, and does not conclude.",
	Example: dialecticExample,
}
