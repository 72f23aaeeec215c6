// Package protocoltest holds a protocol that only tests add
// (model.AddProtocol): a sixth protocol that reuses the role names of an
// existing one, as a contributor's new protocol may (issue 39).
package protocoltest

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/schemas"
)

// Tribunal's verdicts: none of them is one of panel's, so a panel judge's
// verdict (upheld) is refused in a tribunal.
const (
	Sustained = "sustained"
	Dismissed = "dismissed"
)

// Verdicts lists the verdicts a tribunal's judge may give.
var Verdicts = []string{Sustained, Dismissed}

// Env is the variable under which a test binary that stands in for
// proofloop adds Tribunal (cmd/proofloop's TestMain), so that every
// process of a story, run's agents included, knows it.
const Env = "PROOFLOOP_TEST_TRIBUNAL"

// Add adds Tribunal to the protocols and to the debate schema's lists (its
// name beside panel's, its verdicts beside upheld) and returns the undo.
func Add() (undo func()) {
	undoProtocol := model.AddProtocol(Tribunal())
	undoSchema := schemas.Widen(schemas.Debate, widen)
	return func() { undoSchema(); undoProtocol() }
}

// widen adds tribunal to each enum of the debate schema that lists panel,
// and its verdicts to each that lists upheld.
func widen(src []byte) []byte {
	var s any
	if err := json.Unmarshal(src, &s); err != nil {
		panic("protocoltest: the debate schema does not parse: " + err.Error())
	}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if enum, ok := v["enum"].([]any); ok {
				if slices.Contains(enum, any("panel")) {
					v["enum"] = append(enum, "tribunal")
				}
				if slices.Contains(enum, any(model.PanelUpheld)) {
					v["enum"] = append(enum, Sustained, Dismissed)
				}
			}
			for _, c := range v {
				walk(c)
			}
		case []any:
			for _, c := range v {
				walk(c)
			}
		}
	}
	walk(s)
	out, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return out
}

// Tribunal is panel's rules under another name, with the same roles
// (proponent, opponent, judge) and verdicts of its own: the protocol of
// issue 39 that reuses panel's judge. Its judge's agent is
// agents.tribunal.judge; the plain agents.judge, panel's, would give a
// verdict it refuses.
func Tribunal() *model.Protocol {
	p := model.Panel // the rules (unexported) come with the copy
	p.Name, p.Seed, p.Title = "tribunal", "issue 39 (a protocol that reuses panel's roles)", "Tribunal"
	p.Summary = "a proponent and an opponent argue the topic's claim before a judge, whose verdict (sustained or dismissed) closes the tribunal."
	p.Help = "tribunal (proponent, opponent, then judge; the judge's verdict closes it)"
	p.Outcomes = append(slices.Clone(Verdicts), model.PanelInvalidated)
	p.Fields = slices.Clone(p.Fields)
	for i := range p.Fields {
		if p.Fields[i].Name == "conclusion" {
			p.Fields[i].Enum = Verdicts
		}
	}
	p.CloseRules = map[string]string{}
	for _, v := range Verdicts {
		p.CloseRules[v] = "the judge closes the tribunal with a verdict turn"
	}
	turn := "proofloop debate turn ID --participant-id P --body TEXT"
	p.TurnCommands = map[string][]model.Command{
		model.RoleProponent: {{Run: turn, What: "argue for the claim"}},
		model.RoleOpponent:  {{Run: turn, What: "argue against it"}},
		model.RoleJudge:     {{Run: turn + " --conclusion " + strings.Join(Verdicts, "|") + " --conclusion-text TEXT", What: "give the verdict, which closes the tribunal"}},
	}
	p.Doc = model.Doc{Path: ".claude/agents/agent-tribunal.md", Name: "agent-tribunal", Agent: true,
		Description: "Proponent, opponent or judge of a proofloop `tribunal`.", Guide: "Seats in join order: proponent, opponent, judge.",
		Example: Example}
	return &p
}

// Example is the tribunal's example debate: the judge sustains the claim
// in the first round.
var Example = model.Example{
	ID:      "deb_the_cache_is_needed",
	Outcome: Sustained,
	Steps: []model.ExampleStep{
		{Args: "init"},
		{Args: "debate start --protocol tribunal --topic 'The cache is needed'"},
		{Args: "debate join deb_the_cache_is_needed --participant-name pia --actor pia"},
		{Args: "debate join deb_the_cache_is_needed --participant-name oto --actor oto"},
		{Args: "debate join deb_the_cache_is_needed --participant-name jude --actor jude"},
		{Args: "debate turn deb_the_cache_is_needed --participant-id p1 --actor pia --body 'Every page load reads the index twice.'"},
		{Args: "debate turn deb_the_cache_is_needed --participant-id p2 --actor oto --body 'The index is small.'"},
		{Note: "the verdict closes the tribunal", Args: "debate turn deb_the_cache_is_needed --participant-id p3 --actor jude --body 'Twice is too often.' --conclusion sustained --conclusion-text 'The cache stays.'"},
	},
}
