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
			renderSummary(b, d, c)
		}
	}
}

// renderSummary writes main's conclusion as the transcript's ## Conclusion
// section (seed 001: the record ends with a Conclusion section), its
// summary structured as the outcome asks; the engine's outcome lines
// follow it (Protocol.closing).
func renderSummary(b *strings.Builder, d *Debate, c *Conclusion) {
	fmt.Fprintf(b, "---\n\n## Conclusion\n\n%s\n\n", Block(c.Text))
	list := func(title string, xs []string) {
		if len(xs) == 0 {
			return
		}
		fmt.Fprintf(b, "**%s**\n\n", title)
		for _, x := range xs {
			fmt.Fprintf(b, "- %s\n", OneLine(x))
		}
		b.WriteString("\n")
	}
	list("Agreed points", c.Agreed)
	list("Key insights", c.Insights)
	if len(c.Positions) > 0 {
		b.WriteString("**Positions**\n\n")
		for _, p := range c.Positions {
			who := p.Role
			for _, q := range d.Participants {
				if q.Role == p.Role {
					who += " (" + OneLine(q.Name) + ")"
					break
				}
			}
			fmt.Fprintf(b, "- %s: %s\n", who, OneLine(p.Text))
		}
		b.WriteString("\n")
	}
	list("Open points", c.OpenPoints)
	if len(c.LeftOpen) > 0 {
		fmt.Fprintf(b, "**Left open:** %s\n\n", Numbered("suggestion", c.LeftOpen))
	}
}

// consent says how a suggestion stands: seed 001 notes "user agreed" in
// the record when the user consented; a decision under a lease is its
// holder's, and says so.
func consent(s Suggestion) string {
	by, at := Deref(s.DecidedBy, "unknown"), Deref(s.DecidedAt, "unknown time")
	switch {
	case s.State == SuggestionPending:
		return "pending"
	case s.ByUser && s.State == SuggestionAccepted:
		return fmt.Sprintf("user agreed (recorded by %s at %s)", by, at)
	case s.ByUser:
		return fmt.Sprintf("user declined (recorded by %s at %s)", by, at)
	}
	return fmt.Sprintf("%s by %s at %s", s.State, by, at)
}

// dialecticExample is the worked example of the dialectic file; a test runs it.
var dialecticExample = Example{
	ID:      "deb_should_we_split_the_store_package",
	Outcome: DialecticConsensus,
	Steps: append(exampleOpening("deb_should_we_split_the_store_package", "you (main) start and join; the partner joins in its own session", "--protocol dialectic --topic 'Should we split the store package'", "claude", "codex"), []ExampleStep{
		{Args: "debate turn deb_should_we_split_the_store_package --participant-id p1 --actor claude --body 'The store has grown to 4000 lines; the index could be its own package.'"},
		{Note: "the partner's turn, with a suggestion that waits for consent", Args: exampleWait("deb_should_we_split_the_store_package", "p2")},
		{Args: "debate turn deb_should_we_split_the_store_package --participant-id p2 --actor codex --body 'Split the index out, keep the journal.' --suggestion 'Move index*.go to store/index'"},
		{Note: "the user accepts the suggestion", Args: "decide deb_should_we_split_the_store_package --suggestion 1 --accept"},
		{Note: "main concludes, which closes the debate", Args: "debate turn deb_should_we_split_the_store_package --participant-id p1 --actor claude --body 'Agreed.' --conclusion consensus --conclusion-text 'Split the index into store/index; keep the journal.' --agreed 'The index becomes store/index.' --agreed 'The journal stays in store.' --insight 'The index changes for reasons of its own.'"},
		{Args: "debate transcript deb_should_we_split_the_store_package"},
		{Args: "debate list"},
	}...),
}

// dialecticDoc is the /debate skill, main's file.
var dialecticDoc = Doc{
	Path: ".claude/skills/debate/SKILL.md", Name: "debate",
	Description: "/debate TOPIC: argue it out with a partner agent.",
	Guide: "You are `" + RoleMain + "`: start and join the debate, then start the partner with the id and concrete context (the files, key code or the diff, the decision to make). Tell it to run `proofloop prime --role " + RolePartner + "` first and, if the context is not enough, to find it itself and report what it found.\n\n" +
		"Choose the partner's agent type by the topic: a specialist that fits it, else `" + PartnerAgent + "`; it joins with `--agent-type T`. If T fails to start, start `general-purpose`, joining with `--fallback-from T --fallback-reason WHY` too.\n\n" +
		"Ask the user with the host's question tool (AskUserQuestion in Claude Code); record each answer as a user turn (`--participant-id " + ParticipantUser + "`).\n\n" +
		"1. Before starting, confirm topic, focus and your initial leaning.\n" +
		"2. Write your turn, wait for the partner's, read it, and answer: agree where it is right, push back where it is not.\n" +
		"3. After each round, offer: continue, add a view, steer, summarise, or let you decide. At a key disagreement, ask for the user's input.\n" +
		"4. Apply no partner suggestion before the user consents (`proofloop decide` records \"user agreed\"). If one was applied without consent, stop at once and tell the user what changed.\n" +
		"5. When you agree or agree to disagree, ask whether to keep the record: keep, conclude with a `--conclusion` turn: the agreed points and key insights of a consensus, each side's position and the open points of a disagreement; delete, `proofloop debate close ID --discard` instead.",
	Example: dialecticExample,
}

// PartnerAgent is the partner's agent file, the agent type main starts
// when no specialist fits the topic.
const PartnerAgent = "agent-dialectic-partner"

// partnerDoc is the partner's agent file: seed 001's dialectic-partner,
// its purpose, role, quality bar and mechanics, and no debating tutorial.
var partnerDoc = Doc{
	Path: ".claude/agents/" + PartnerAgent + ".md", Name: PartnerAgent, Agent: true, Role: RolePartner,
	Description: "The partner of a proofloop `/debate`: questions main's view.",
	Guide: "Your goal is the better answer, not proving main wrong: question the assumptions main's view rests on, bring edge cases and counterexamples, explore alternatives, and stay constructive, never hostile. Concede what main gets right.\n\n" +
		"1. Join with the name and agent type main gave you (`debate join ID --participant-name NAME --agent-type T`), then `debate wait ID --participant-id P` for your turn.\n" +
		"2. Work from the concrete context main gave you: files, code, diff, the decision to make. If the context is not enough, find it yourself (read the files, run `git diff`) and report what you found in your turn; never argue in the abstract.\n" +
		"3. Read the record (`debate show ID --transcript`) and answer the user's turns too.\n" +
		"4. Propose a change as `--suggestion TEXT`: it waits for the user's consent. Never apply it yourself, and never conclude: main does.\n" +
		"5. Until `whose_turn.closed`, wait and answer again; then stop.",
	Example: dialecticExample,
}
