//go:build !lean

package main

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// socraticTurns are the four turns of testdata/script/debate_socratic.txtar,
// which end in ACCEPTED_CONSENSUS.
var socraticTurns = []string{
	`{"stance": "OPEN_TO_DEBATE", "position": "P differs from NP.", "counterpoints": [{"addresses": "source", "claim": "The question presumes a model of computation.", "support": [{"text": "The source admits it", "quote": "Nobody knows."}]}], "agreements": ["The question is open."], "novel_argument": {"text": "Relativization barriers block simple proofs.", "support": [{"text": "Principle: a barrier rules out a kind of proof."}]}, "unresolved": [{"text": "Which barrier matters most?", "blocking": true}]}`,
	`{"stance": "CONVERGING", "position": "Probably P differs from NP, but it is unproved.", "counterpoints": [{"addresses": "turn-1", "claim": "Barriers say what fails, not what is true.", "support": [{"text": "Principle: Baker-Gill-Solovay gives oracles both ways."}]}], "agreements": ["Relativization is a real barrier."], "novel_argument": {"text": "Natural proofs are a second barrier.", "support": [{"text": "Principle: a barrier rules out a kind of proof."}]}, "unresolved": [{"text": "Whether GCT avoids both.", "blocking": false}]}`,
	`{"stance": "ACCEPTING_CONSENSUS", "position": "P differs from NP is the likely truth and is unproved.", "counterpoints": [{"addresses": "turn-2", "claim": "Natural proofs apply to circuit lower bounds.", "support": [{"text": "Principle: Razborov-Rudich 1997."}]}], "agreements": ["It is unproved."], "novel_argument": {"text": "Algebrization is a third barrier.", "support": [{"text": "Principle: a barrier rules out a kind of proof."}]}, "unresolved": [{"text": "Whether GCT avoids all three.", "blocking": false}], "stance_revision_support": [{"text": "Turn 2 showed that barriers do not decide the question.", "turn": "turn-2"}]}`,
	`{"stance": "ACCEPTING_CONSENSUS", "position": "P differs from NP is the likely truth and is unproved.", "counterpoints": [{"addresses": "turn-3", "claim": "Natural proofs apply to circuit lower bounds.", "support": [{"text": "Principle: Razborov-Rudich 1997."}]}], "agreements": ["It is unproved."], "novel_argument": {"text": "Aaronson and Wigderson named algebrization.", "support": [{"text": "Principle: a barrier rules out a kind of proof."}]}, "unresolved": [{"text": "Whether GCT avoids all three.", "blocking": false}], "stance_revision_support": [{"text": "Turn 2 showed that barriers do not decide the question.", "turn": "turn-2"}]}`,
}

// callRaw calls a tool with arguments given as raw JSON, so a test can
// send what a map cannot hold (a key given twice).
func callRaw(t *testing.T, cs *mcp.ClientSession, name, args string) (*mcp.CallToolResult, map[string]any) {
	t.Helper()
	res, err := cs.CallTool(testCtx(t), &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("tools/call %s: protocol error %v; want a tool result", name, err)
	}
	obj, _ := res.StructuredContent.(map[string]any)
	return res, obj
}

// TestMCPSocraticTurnsAsJSON: a socratic duel, whose turns are JSON objects
// (debate turn --input on the CLI), is played over MCP to its outcome with
// debate_turn's input argument, the object itself. Refusals read it as
// --input is read (a bad field, a string, a key given twice, deep nesting:
// invalid_input, nothing written), and their hints name the argument, not
// a file.
func TestMCPSocraticTurnsAsJSON(t *testing.T) {
	root := newRoot(t)
	os.WriteFile(filepath.Join(filepath.Dir(root), "pnp.md"), []byte("# Is P = NP?\n\nNobody knows.\n"), 0o644)
	cs := connect(t, root, nil)
	tools, err := cs.ListTools(testCtx(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		b, _ := json.Marshal(tool.InputSchema)
		var schema struct {
			Properties map[string]struct {
				Type        string `json:"type"`
				Description string `json:"description"`
			} `json:"properties"`
		}
		json.Unmarshal(b, &schema)
		in, ok := schema.Properties["input"]
		if tool.Name == "debate_turn" && (!ok || in.Type != "object" || strings.Contains(in.Description, "FILE")) {
			t.Errorf("debate_turn's input = %+v; want an object parameter that names no file", in)
		}
	}
	res, obj := call(t, cs, "debate_join", map[string]any{"protocol": "socratic", "source": "pnp.md", "participant_name": "alice", "actor": "alice"})
	if res.IsError {
		t.Fatalf("debate_join alice: %v", obj)
	}
	id := obj["id"].(string)
	if res, obj := call(t, cs, "debate_join", map[string]any{"protocol": "socratic", "source": "pnp.md", "participant_name": "bob", "actor": "bob"}); res.IsError || obj["id"] != id {
		t.Fatalf("debate_join bob = %v; want a seat in %s", obj, id)
	}
	var turn1 map[string]any
	json.Unmarshal([]byte(socraticTurns[0]), &turn1)

	// Refusals, each with nothing written. (A key given twice is refused
	// for the whole line, as a JSON-RPC error: TestMCPDuplicateKeys.)
	bad := map[string]any{}
	for k, v := range turn1 {
		bad[k] = v
	}
	bad["stance"] = "MAYBE"
	deep := strings.Repeat("[", 200) + strings.Repeat("]", 200)
	for what, args := range map[string]string{
		"a bad stance":     mustJSON(t, map[string]any{"id": id, "participant_id": "p1", "actor": "alice", "input": bad}),
		"a body":           mustJSON(t, map[string]any{"id": id, "participant_id": "p1", "actor": "alice", "body": "I think P differs from NP."}),
		"a string":         mustJSON(t, map[string]any{"id": id, "participant_id": "p1", "actor": "alice", "input": socraticTurns[0]}),
		"an unknown key":   mustJSON(t, map[string]any{"id": id, "participant_id": "p1", "actor": "alice", "input": map[string]any{"stnace": "OPEN_TO_DEBATE"}}),
		"deep nesting":     `{"id":"` + id + `","participant_id":"p1","actor":"alice","input":{"position":` + deep + `}}`,
		"input and a body": mustJSON(t, map[string]any{"id": id, "participant_id": "p1", "actor": "alice", "input": turn1, "body": "x"}),
	} {
		before := snapshot(t, root)
		res, obj := callRaw(t, cs, "debate_turn", args)
		e, _ := obj["error"].(map[string]any)
		msg, _ := e["message"].(string)
		hint, _ := e["hint"].(string)
		if !res.IsError || (errorCode(obj) != "invalid_input" && errorCode(obj) != "usage") {
			t.Errorf("debate_turn with %s = %v; want invalid_input", what, obj)
		}
		if strings.Contains(msg+hint, "FILE") || strings.Contains(msg+hint, "--input") {
			t.Errorf("debate_turn with %s: %q (hint %q) names the CLI's --input FILE; want the argument input", what, msg, hint)
		}
		if after := snapshot(t, root); !maps.Equal(before, after) {
			t.Errorf("debate_turn with %s changed the store", what)
		}
	}
	// The bad field's refusal names the field and the argument to send
	// the turn in.
	_, obj = call(t, cs, "debate_turn", map[string]any{"id": id, "participant_id": "p1", "actor": "alice", "input": bad})
	e, _ := obj["error"].(map[string]any)
	if msg, _ := e["message"].(string); !strings.Contains(msg, "stance") {
		t.Errorf("a bad stance's message = %q; want it to name stance", msg)
	}
	if hint, _ := e["hint"].(string); !strings.Contains(hint, "a JSON object (the argument input)") {
		t.Errorf("a bad stance's hint = %q; want it to name the argument input", hint)
	}
	_, obj = call(t, cs, "debate_turn", map[string]any{"id": id, "participant_id": "p1", "actor": "alice", "body": "prose"})
	e, _ = obj["error"].(map[string]any)
	if msg, _ := e["message"].(string); !strings.Contains(msg, "send it with the argument input") {
		t.Errorf("a socratic body's message = %q; want it to say send it with the argument input", msg)
	}

	// The duel, turn by turn, to ACCEPTED_CONSENSUS.
	who := []string{"alice", "bob"}
	for i, raw := range socraticTurns {
		var turn map[string]any
		json.Unmarshal([]byte(raw), &turn)
		res, obj := call(t, cs, "debate_turn", map[string]any{"id": id, "participant_id": []string{"p1", "p2"}[i%2], "actor": who[i%2], "input": turn})
		if res.IsError {
			t.Fatalf("turn %d: %v", i+1, obj)
		}
	}
	_, shown := call(t, cs, "debate_show", map[string]any{"id": id})
	d, _ := shown["debate"].(map[string]any)
	outcome, _ := d["outcome"].(map[string]any)
	if d["status"] != "completed" || outcome["outcome"] != "ACCEPTED_CONSENSUS" {
		t.Errorf("after four turns over MCP: status %v, outcome %v; want completed, ACCEPTED_CONSENSUS", d["status"], outcome)
	}
	if turns := asSlice(d["turns"]); len(turns) != 4 || turns[0].(map[string]any)["stance"] != "OPEN_TO_DEBATE" {
		t.Errorf("turns = %v; want the four sent", turns)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
