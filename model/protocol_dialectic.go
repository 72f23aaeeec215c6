package model

import (
	"fmt"
	"slices"
	"strings"
)

// Dialectic outcomes and roles (seed 001, the /debate plugin).
const (
	DialecticConsensus    = "consensus"
	DialecticPartial      = "partial"
	DialecticDisagreement = "disagreement"
	DialecticInvalidated  = "invalidated"
	RoleMain              = "main"
	RolePartner           = "partner"
)

// Sides are the roles whose positions a disagreement conclusion gives.
var Sides = []string{RoleMain, RolePartner}

// Conclusions lists the outcomes a main participant's conclusion may give.
var Conclusions = []string{DialecticConsensus, DialecticPartial, DialecticDisagreement}

// Dialectic is the /debate plugin: main and partner exchange Markdown in
// rounds, a user may interject at any time, the partner's suggestions wait
// for a person's consent, and main closes it with a conclusion. A round is
// one main turn and the partner turn that answers it.
var Dialectic = Protocol{
	Name:        "dialectic",
	Seed:        "001 (the /debate plugin)",
	Summary:     "main and partner exchange Markdown turns in rounds; a user may add a turn at any time; the partner's suggestions stay pending until a person decides them; main closes the debate with a conclusion. Past the soft limit a summary is advised.",
	Roles:       []string{RoleMain, RolePartner},
	Limit:       Limit{N: 10, Unit: "rounds", Soft: true},
	Outcomes:    []string{DialecticConsensus, DialecticPartial, DialecticDisagreement, DialecticInvalidated},
	Invalidated: DialecticInvalidated,
	Fields: []Field{
		{Name: "body", Type: "string (Markdown)", Required: true, Rule: "non-empty"},
		{Name: "suggestions", Type: "[{text}]", Roles: []string{RolePartner}, Rule: "partner only; each stays pending until `proofloop decide <debate> --suggestion N --accept|--reject`"},
		{Name: "conclusion", Type: "{outcome, text, agreed[], insights[], positions[{role, text}], open_points[], left_open[]}", Roles: []string{RoleMain}, Enum: Conclusions, Rule: "main only; closes the debate with its outcome and a structured summary: " + SummaryRule},
	},
	validate: validateDialectic,
	next:     nextDialectic,
	terminal: terminalDialectic,
	Layout:   renderDialectic,
	Help:     "dialectic (main then partner, a user may interject; soft limit 10 rounds)",
	CloseRules: map[string]string{
		DialecticConsensus:    "the main participant closes a dialectic debate with a conclusion turn",
		DialecticPartial:      "the main participant closes a dialectic debate with a conclusion turn",
		DialecticDisagreement: "the main participant closes a dialectic debate with a conclusion turn",
	},
	UserTurns: true,
	closing: func(d *Debate) bool {
		return len(d.Turns) > 0 && d.Turns[len(d.Turns)-1].Conclusion != nil
	},
	TurnCommands: map[string][]Command{
		RolePartner: {{dialecticTurn + " --suggestion TEXT", "write your turn; each --suggestion waits for a person's consent"}},
		RoleMain: {
			{dialecticTurn, "write your turn (Markdown; @FILE reads a file)"},
			{dialecticTurn + " --conclusion " + strings.Join(Conclusions, "|") + " --conclusion-text TEXT --agreed TEXT --insight TEXT --position ROLE=TEXT --open-point TEXT", "close the debate with its outcome, conclusion and the summary the outcome asks for: " + SummaryRule},
		},
	},
	MoreCommands: map[string][]Command{
		RoleMain: {
			{"proofloop decide ID --suggestion N --accept|--reject", "a person's consent to suggestion N (ask the user; never decide for them)"},
			{partnerJoin, "how the partner joins: choose T by the topic (a specialist agent type that fits it, else " + PartnerAgent + "); if T fails to start, start general-purpose with --fallback-from T --fallback-reason WHY"},
		},
		RolePartner: {{partnerJoin, "join as the agent type main chose (recorded in the transcript); after a fallback, add --fallback-from T --fallback-reason WHY"}},
	},
	Doc:      dialecticDoc,
	RoleDocs: []Doc{partnerDoc},
}

// partnerJoin is how the partner joins: seed 001 has main pick the
// partner's agent type by the topic and record a fallback with its reason.
const partnerJoin = "proofloop debate join ID --participant-name NAME --agent-type T"

func validateDialectic(_ *Protocol, d *Debate, _, _ string, t *DebateTurn, _ []byte) error {
	// Which role writes which field is checked from Fields before this.
	if err := need("body", t.Body); err != nil {
		return err
	}
	for i, s := range t.Suggestions {
		if err := need(fmt.Sprintf("suggestions[%d].text", i), s.Text); err != nil {
			return err
		}
	}
	if c := t.Conclusion; c != nil {
		if err := firstErr(enum("conclusion.outcome", c.Outcome, Conclusions), need("conclusion.text", c.Text), checkSummary(c)); err != nil {
			return err
		}
		return checkLeftOpen(d, c)
	}
	return nil
}

// SummaryRule says what each dialectic conclusion carries (seed 001: a
// consensus presents the agreed points and key insights; a disagreement
// each side's position and the points left open).
const SummaryRule = "consensus: agreed points and key insights (agreed[], insights[]); disagreement: each side's position (positions [{role: main, text}, {role: partner, text}]) and the open points (open_points[]); partial: agreed points and open points"

// checkSummary wants the summary of c's outcome, each item non-empty: a
// structured summary, not only a paragraph.
func checkSummary(c *Conclusion) error {
	items := func(field string, xs []string) error {
		if len(xs) == 0 {
			what := map[string]string{"agreed": "agreed points", "insights": "key insights", "open_points": "open points"}[field]
			return &TurnError{Field: "conclusion." + field, Rule: fmt.Sprintf("a %s conclusion lists its %s; %s", c.Outcome, what, SummaryRule)}
		}
		for i, x := range xs {
			if err := need(fmt.Sprintf("conclusion.%s[%d]", field, i), x); err != nil {
				return err
			}
		}
		return nil
	}
	if len(c.Positions) > 0 && c.Outcome != DialecticDisagreement {
		if err := checkSides(c.Positions); err != nil {
			return err
		}
	}
	switch c.Outcome {
	case DialecticConsensus:
		return firstErr(items("agreed", c.Agreed), items("insights", c.Insights),
			forbid("conclusion.open_points", len(c.OpenPoints) > 0, "a consensus leaves no point open; conclude partial instead"))
	case DialecticDisagreement:
		return firstErr(checkSides(c.Positions), items("open_points", c.OpenPoints))
	case DialecticPartial:
		return firstErr(items("agreed", c.Agreed), items("open_points", c.OpenPoints))
	}
	return nil
}

// checkSides wants one position for main and one for partner, each with text.
func checkSides(ps []Position) error {
	seen := map[string]bool{}
	for i, p := range ps {
		f := fmt.Sprintf("conclusion.positions[%d]", i)
		switch {
		case !slices.Contains(Sides, p.Role):
			return &TurnError{Field: f + ".role", Rule: fmt.Sprintf("%q is not a side; use one of %v", p.Role, Sides)}
		case seen[p.Role]:
			return &TurnError{Field: f + ".role", Rule: fmt.Sprintf("%s's position is given twice", p.Role)}
		}
		seen[p.Role] = true
		if err := need(f+".text", p.Text); err != nil {
			return err
		}
	}
	if len(seen) < len(Sides) {
		return &TurnError{Field: "conclusion.positions", Rule: "a disagreement conclusion gives each side's position, main's and partner's; " + SummaryRule}
	}
	return nil
}

// checkLeftOpen refuses a conclusion while a suggestion is pending, unless
// the conclusion names it as left open (issue 25 item 11): main may not
// close over the user's consent.
func checkLeftOpen(d *Debate, c *Conclusion) error {
	pending := map[int]bool{}
	for _, s := range d.Suggestions {
		if s.State == SuggestionPending {
			pending[s.Number] = true
		}
	}
	for i, n := range c.LeftOpen {
		if !pending[n] {
			return &TurnError{Field: fmt.Sprintf("conclusion.left_open[%d]", i), Rule: fmt.Sprintf("suggestion %d is not pending", n)}
		}
	}
	for _, s := range d.Suggestions {
		if pending[s.Number] && !slices.Contains(c.LeftOpen, s.Number) {
			return &TurnError{Field: "conclusion", Rule: fmt.Sprintf("suggestion %d is pending", s.Number),
				Hint: fmt.Sprintf("nothing was written; decide it first (`proofloop decide %s --suggestion %d --accept|--reject`), or name it in conclusion.left_open", d.ID, s.Number)}
		}
	}
	return nil
}

// DialecticRounds is the number of completed rounds: pairs of main and
// partner turns (user interjections do not count).
func DialecticRounds(d *Debate) int {
	n := 0
	for _, t := range d.Turns {
		if takesTurn(t) {
			n++
		}
	}
	return n / 2
}

func nextDialectic(d *Debate, st TurnState) TurnState {
	if r := DialecticRounds(d); r >= d.MaxTurns {
		st.Advice = fmt.Sprintf("%d rounds passed the soft limit of %d: advise a summary; main may close with a conclusion", r, d.MaxTurns)
	}
	return st
}

func terminalDialectic(d *Debate) Assessment {
	a := Assessment{SoftLimitReached: DialecticRounds(d) >= d.MaxTurns}
	if n := len(d.Turns); n > 0 {
		if c := d.Turns[n-1].Conclusion; c != nil {
			a.Closed, a.Outcome, a.Reason = true, c.Outcome, "main concluded the debate"
		}
	}
	return a
}
