package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/skills"
)

// TestEveryProtocolEverywhere ranges over model.Protocols: each has a row
// in `transitions --protocols`, its line in `debate start --help`, its name
// in every help that lists protocols, and its generated file among
// gen-claude's. Its transcript layout and its worked
// example run in TestClaudeDebateExamples; model's TestProtocolsAreWhole
// checks that nothing of it is missing.
func TestEveryProtocolEverywhere(t *testing.T) {
	code, out, errOut := runCLI(t, "", "transitions", "--protocols", "--json")
	if code != 0 {
		t.Fatalf("transitions --protocols --json: exit %d: %s", code, errOut)
	}
	var res struct {
		Protocols []struct {
			Name string `json:"name"`
		} `json:"protocols"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	rows := map[string]bool{}
	for _, r := range res.Protocols {
		rows[r.Name] = true
	}
	_, help, _ := runCLI(t, "", "debate", "start", "--help")
	// The help that names protocols (debate's line, join, --max-turns, gen-claude)
	// names every one: written out by hand, it once missed panel.
	_, rootHelp, _ := runCLI(t, "", "--help")
	debateHelp := ""
	for _, line := range strings.Split(rootHelp, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "debate ") {
			debateHelp = line // debate's one line in the command list
		}
	}
	_, joinHelp, _ := runCLI(t, "", "debate", "join", "--help")
	_, genHelp, _ := runCLI(t, "", "gen-claude", "--help")
	maxTurns := ""
	for _, line := range strings.Split(help, "\n") {
		if strings.Contains(line, "--max-turns int") { // the flag's own line
			maxTurns += line
		}
	}
	files, err := skills.ClaudeFiles()
	if err != nil {
		t.Fatal(err)
	}
	generated := map[string]string{}
	for _, f := range files {
		generated[f.Path] = string(f.Data)
	}
	for _, p := range model.Protocols {
		if !rows[p.Name] {
			t.Errorf("transitions --protocols has no row for %s", p.Name)
		}
		if !strings.Contains(help, p.Help) {
			t.Errorf("debate start --help lacks %q", p.Help)
		}
		if !strings.Contains(debateHelp, p.Name) {
			t.Errorf("proofloop --help's debate line %q does not name %s", debateHelp, p.Name)
		}
		if !strings.Contains(joinHelp, p.Name+": ") {
			t.Errorf("debate join --help does not give %s's join order", p.Name)
		}
		if !strings.Contains(maxTurns, p.Name) {
			t.Errorf("debate start --help's --max-turns line %q does not name %s's unit", maxTurns, p.Name)
		}
		if !strings.Contains(strings.Join(strings.Fields(genHelp), " "), p.Doc.Name+" for "+p.Name) {
			t.Errorf("gen-claude --help does not name %s's generated file %s", p.Name, p.Doc.Name)
		}
		if f, ok := generated[p.Doc.Path]; !ok || !strings.Contains(f, "name: "+p.Doc.Name+"\n") {
			t.Errorf("gen-claude writes no %s for %s", p.Doc.Path, p.Name)
		}
	}
	if len(res.Protocols) != len(model.Protocols) {
		t.Errorf("transitions --protocols has %d rows; want %d", len(res.Protocols), len(model.Protocols))
	}
}
