package model

import (
	"fmt"
	"strings"
)

// The agora protocol as readers see it: its transcript layout, its generated
// file and worked example.

// layoutAgora writes the evidence pool in its own section before the turns
// (the seed's EVIDENCE POOL, which every position reads), when the debate
// has a research stage.
func layoutAgora(b *strings.Builder, d *Debate) {
	if d.Research > 0 {
		fmt.Fprintf(b, "## Evidence pool\n\n")
		fmt.Fprintf(b, "%s (%d done); a later turn cites an item by its id.\n\n", Count(d.Research, "research turn"), researchTurns(d))
		for _, e := range PoolLines(d) {
			fmt.Fprintf(b, "- %s\n", e)
		}
		if len(d.EvidencePool) > 0 {
			b.WriteString("\n")
		}
	}
	for i := range d.Turns {
		renderAgora(b, d, &d.Turns[i])
	}
}

// PoolLines are d's evidence pool items for a reader, one line each.
func PoolLines(d *Debate) []string {
	var out []string
	for _, e := range d.EvidencePool {
		out = append(out, e.Line())
	}
	return out
}

// Line is the item for a reader: "pool-1 (turn 1): SOURCE: CONTENT
// (confidence 0.9)", the way the transcript, show and prime list it.
func (e PoolItem) Line() string {
	return fmt.Sprintf("%s (turn %d): %s: %s (confidence %s)", e.ID, e.TurnNumber, OneLine(e.Source), OneLine(e.Content), Num(e.Confidence))
}

func renderAgora(b *strings.Builder, d *Debate, t *DebateTurn) {
	if t.Role == RoleResearcher {
		// Its items are in the pool section, under their pool ids.
		fmt.Fprintf(b, "## Turn %d — %s — research\n\n- **Role:** %s\n- **Evidence:** %s\n\n", t.TurnNumber, Writer(d, t), t.Role, strings.Join(poolIDsOf(d, t.TurnNumber), ", "))
		return
	}
	fmt.Fprintf(b, "## Turn %d — %s — %s\n\n", t.TurnNumber, Writer(d, t), t.Signal)
	conf := "-"
	if t.Confidence != nil {
		conf = Num(*t.Confidence)
	}
	fmt.Fprintf(b, "- **Role:** %s\n- **Signal:** %s\n- **Confidence:** %s\n- **Target:** %s\n\n", t.Role, t.Signal, conf, Deref(t.Target, "none"))
	fmt.Fprintf(b, "%s\n\n", Block(t.Message))
	if len(t.Evidence) > 0 {
		b.WriteString("**Evidence**\n\n")
		for _, e := range t.Evidence {
			fmt.Fprintf(b, "- %s: %s (confidence %s)\n", OneLine(e.Source), OneLine(e.Content), Num(e.Confidence))
		}
		b.WriteString("\n")
	}
}

// poolIDsOf names the pool items research turn n added.
func poolIDsOf(d *Debate, n int) []string {
	var out []string
	for _, e := range d.EvidencePool {
		if e.TurnNumber == n {
			out = append(out, e.ID)
		}
	}
	return out
}

// agoraExample is the worked example of the agora file; a test runs it.
var agoraExample = Example{
	ID:      "deb_tabs_or_spaces",
	Outcome: AgoraConsensus,
	Steps: append(exampleOpening("deb_tabs_or_spaces", "one participant per position, in order: ann argues tabs, ben spaces", "--protocol agora --topic 'Tabs or spaces' --position 'tabs=Tabs are better' --position 'spaces=Spaces are better'", "ann", "ben"), []ExampleStep{
		{Args: exampleTurn("deb_tabs_or_spaces", "p1", "ann"), Input: `{"signal": "propose", "message": "Use tabs for indentation: each reader picks the width.", "confidence": 0.8, "target": null, "evidence": [{"source": "gofmt", "content": "gofmt indents with tabs.", "confidence": 0.9}]}`},
		{Note: "ben is convinced and approves the tabs proposal (never your own)", Args: exampleWait("deb_tabs_or_spaces", "p2")},
		{Args: exampleTurn("deb_tabs_or_spaces", "p2", "ben"), Input: `{"signal": "approve", "message": "Fine: the width argument holds.", "confidence": 0.7, "target": "proposal-tabs"}`},
		{Note: "ann keeps her position: every last signal is approve or no-change, so the engine closes it", Args: exampleWait("deb_tabs_or_spaces", "p1")},
		{Args: exampleTurn("deb_tabs_or_spaces", "p1", "ann"), Input: `{"signal": "no-change", "message": "I stay with tabs.", "confidence": 0.8}`},
		{Args: "debate list"},
	}...),
}

// agoraDoc is the agora participant's agent file.
var agoraDoc = Doc{
	Path: ".claude/agents/agent-agora.md", Name: "agent-agora", Agent: true,
	Description: "Argues a position of a proofloop `agora` debate, or mediates.",
	Guide: "Each `--position ROLE=TEXT` of the debate is a role: the first to join argues the first position, and so on; `debate join` says your `role`, and `debate show ID --json` its text (`debate.positions`). After " + fmt.Sprint(MediatorAfter) + " consecutive counters a `mediator` is asked for; its turns take no one's place, usually a proposal both sides can approve.\n\n" +
		"With `--research N` the first to join is the `researcher`: it writes the N research turns, `evidence` only, then stops. Each item enters the EVIDENCE POOL as `pool-N` (`debate show ID`, `prime --role ROLE`): use it, cite an item by its id as an evidence `source`, and fabricate nothing; under `fact-based` every source is a `pool-N` or verifiable (an http(s) URL, a DOI, a project file path). A file you cite (`path:LINE`) must exist in the project with that line; a URL is http(s).\n\n" +
		"Join (`debate join ID --participant-name NAME --harness claude-code`), then until `debate wait ID --participant-id P --json` says `whose_turn.closed`: `prime --role ROLE --id ID` gives your position, the topic and what the other side said last; read the turns and send your turn, the JSON object only, with a message of two to four sentences. When it is closed, say how it ended and stop.\n\n" +
		"A `counter` first acknowledges the opponent's strongest point, then says why your position still holds, with at least one piece of counter-evidence. Give an honest `confidence`: lower it when the other side shows evidence you cannot answer. Approve another role's proposal, never your own; `no-change` keeps your position; `defer` yields without approving.",
	Example: agoraExample,
}
