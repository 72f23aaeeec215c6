package model

import (
	"fmt"
	"strings"
)

// Panel roles and verdicts: a proponent and an opponent argue a claim
// before a judge, whose verdict closes the panel (issue 24's fifth
// protocol, added as one value with everything readers need).
const (
	RoleProponent    = "proponent"
	RoleOpponent     = "opponent"
	RoleJudge        = "judge"
	PanelUpheld      = "upheld"
	PanelOverturned  = "overturned"
	PanelSplit       = "split"
	PanelInvalidated = "invalidated"
)

// PanelVerdicts lists the verdicts a judge may give.
var PanelVerdicts = []string{PanelUpheld, PanelOverturned, PanelSplit}

// panelTurn is the command of a panel turn: Markdown, not JSON.
const panelTurn = "proofloop debate turn ID --participant-id P --body TEXT"

// Panel is a hearing: each round the proponent argues for the claim, the
// opponent against it, and the judge either asks the questions the next
// round must answer or gives the verdict, which closes it. In the last
// round the judge must give it.
var Panel = Protocol{
	Name:        "panel",
	Seed:        "issue 24 (proponent, opponent, judge)",
	Summary:     "a proponent argues for the topic's claim and an opponent against it, then a judge asks questions for the next round or gives the verdict (upheld, overturned or split), which closes the panel; in the last round the judge must give it.",
	Roles:       []string{RoleProponent, RoleOpponent, RoleJudge},
	Limit:       Limit{N: 3, Unit: "rounds"},
	Outcomes:    []string{PanelUpheld, PanelOverturned, PanelSplit, PanelInvalidated},
	Invalidated: PanelInvalidated,
	Fields: []Field{
		{Name: "body", Type: "string (Markdown)", Required: true, Rule: "non-empty: an argument, or the judge's questions or reasons"},
		{Name: "conclusion", Type: "{outcome, text}", Roles: []string{RoleJudge}, Enum: PanelVerdicts, Rule: "judge only; the verdict and its reasons close the panel; required in the last round"},
	},
	validate: validatePanel,
	next:     nextPanel,
	terminal: terminalPanel,
	Title:    "Panel",
	Layout:   renderPanel,
	Help:     "panel (proponent, opponent, then judge, 3 rounds; the judge's verdict closes it)",
	CloseRules: map[string]string{
		PanelUpheld:     "the judge closes the panel with a verdict turn",
		PanelOverturned: "the judge closes the panel with a verdict turn",
		PanelSplit:      "the judge closes the panel with a verdict turn",
	},
	TurnCommands: map[string][]Command{
		RoleProponent: {{Run: panelTurn, What: "argue for the claim (Markdown; @FILE reads a file)"}},
		RoleOpponent:  {{Run: panelTurn, What: "argue against it (Markdown; @FILE reads a file)"}},
		RoleJudge: {
			{Run: panelTurn, What: "ask the questions the next round must answer"},
			{Run: panelTurn + " --conclusion " + strings.Join(PanelVerdicts, "|") + " --conclusion-text TEXT", What: "give the verdict, which closes the panel"},
		},
	},
	Doc: panelDoc,
}

// panelRound is the round the next turn belongs to, counting from 1.
func panelRound(d *Debate) int { return len(d.Turns)/3 + 1 }

func validatePanel(p *Protocol, d *Debate, _, role string, t *DebateTurn, _ []byte) error {
	// Which role writes which field is checked from Fields before this; the
	// verdicts are the conclusion field's values (PanelVerdicts here), so that
	// a protocol built on these rules may give its judge verdicts of its own.
	if err := need("body", t.Body); err != nil {
		return err
	}
	if c := t.Conclusion; c != nil {
		summary := len(c.Agreed) > 0 || len(c.Insights) > 0 || len(c.Positions) > 0 || len(c.OpenPoints) > 0 || len(c.LeftOpen) > 0
		return firstErr(enum("conclusion.outcome", c.Outcome, p.field("conclusion").Enum), need("conclusion.text", c.Text),
			forbid("conclusion", summary, "a verdict is its outcome and text: agreed, insights, positions, open_points and left_open are a dialectic conclusion's"))
	}
	if role == RoleJudge && panelRound(d) >= d.MaxTurns {
		return &TurnError{Field: "conclusion", Rule: fmt.Sprintf("round %d is the last (limit %d): the judge must give the verdict now", panelRound(d), d.MaxTurns)}
	}
	return nil
}

func nextPanel(d *Debate, st TurnState) TurnState {
	if st.Role == RoleJudge && panelRound(d) >= d.MaxTurns {
		st.Require = "conclusion"
	}
	return st
}

func terminalPanel(d *Debate) Assessment {
	if n := len(d.Turns); n > 0 {
		if c := d.Turns[n-1].Conclusion; c != nil {
			return Assessment{Closed: true, Outcome: c.Outcome, Reason: "the judge gave the verdict"}
		}
	}
	return Assessment{}
}

// renderPanel writes the turns in rounds, each speaker under its role, and
// the judge's verdict where it was given.
func renderPanel(b *strings.Builder, d *Debate) {
	for i := range d.Turns {
		t := &d.Turns[i]
		if i%3 == 0 {
			fmt.Fprintf(b, "## Round %d\n\n", i/3+1)
		}
		fmt.Fprintf(b, "### %s — %s (turn %d)\n\n%s\n\n", strings.ToUpper(t.Role[:1])+t.Role[1:], Writer(d, t), t.TurnNumber, Block(t.Body))
		if c := t.Conclusion; c != nil {
			fmt.Fprintf(b, "**Verdict: %s**\n\n%s\n\n", c.Outcome, Block(c.Text))
		}
	}
}

// panelDoc is the panel's agent file, one agent for all three seats.
var panelDoc = Doc{
	Path: ".claude/agents/agent-panel.md", Name: "agent-panel", Agent: true,
	Description: "Proponent, opponent or judge of a proofloop `panel`.",
	Guide: "The seats go in join order: proponent, opponent, judge; `debate join` tells you yours (`role`). Join once (`debate join ID --participant-name NAME --harness claude-code`), then until `debate wait ID --participant-id P --json` says `whose_turn.closed`: read the turns (`debate show ID --transcript`) and write yours.\n\n" +
		"- Proponent and opponent: argue for and against the topic's claim; answer the judge's questions and the other side's latest argument, and concede what it shows.\n" +
		"- Judge: weigh both sides; ask the questions the next round must settle, or give the verdict (`upheld`, `overturned` or `split`) with its reasons. In the last round `whose_turn.require` is `conclusion`: give it then.",
	Example: panelExample,
}

// panelExample is the worked example of the panel file; a test runs it.
var panelExample = Example{
	ID:      "deb_the_cache_is_needed",
	Outcome: PanelUpheld,
	Steps: append(exampleOpening("deb_the_cache_is_needed", "the seats in join order: proponent, opponent, judge", "--protocol panel --topic 'The cache is needed'", "pia", "oto", "jude"), []ExampleStep{
		{Args: "debate turn deb_the_cache_is_needed --participant-id p1 --actor pia --body 'Every page load reads the index twice; the cache halves it.'"},
		{Args: "debate turn deb_the_cache_is_needed --participant-id p2 --actor oto --body 'The index is small; the cache adds invalidation bugs.'"},
		{Note: "the judge asks a question for round 2", Args: "debate turn deb_the_cache_is_needed --participant-id p3 --actor jude --body 'How large is the index at 3,000 statements?'"},
		{Args: "debate turn deb_the_cache_is_needed --participant-id p1 --actor pia --body 'About 2 MB, read on every request.'"},
		{Args: "debate turn deb_the_cache_is_needed --participant-id p2 --actor oto --body 'Granted: 2 MB per request is too much.'"},
		{Note: "the verdict closes the panel", Args: "debate turn deb_the_cache_is_needed --participant-id p3 --actor jude --body 'The opponent conceded the cost.' --conclusion upheld --conclusion-text 'The cache stays; invalidate it on every commit.'"},
		{Args: "debate list"},
	}...),
}
