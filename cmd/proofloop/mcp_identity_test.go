package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestMCPLeaseBindsActor: over MCP as on the command line, a lease acts as
// the actor who claimed it. A claim through the server (declared actor
// mcp-server) binds that actor; a call with the lease and another `actor`
// argument is refused (usage, nothing written), and one without acts as
// the lease's actor.
func TestMCPLeaseBindsActor(t *testing.T) {
	root := newRoot(t)
	for _, args := range [][]string{
		{"new-problem", "--name", "id", "--objective", "Show 1 = 1.", "--actor", "sol"},
		{"prob-wrapup-statement", "--problem-path", "prob_id", "--claim", "1 = 1.", "--purpose", "It is the objective.", "--actor", "sol"},
	} {
		if code, _, stderr := mcpCLI(t, root, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
	}
	events := func() string {
		_, ev, _ := mcpCLI(t, root, "events", "--id", "stmt_id_wrap")
		b, _ := json.Marshal(ev)
		return string(b)
	}
	cs := connect(t, root, nil)
	_, cl := call(t, cs, "claim", map[string]any{"id": "stmt_id_wrap", "role": "prove", "holder": "w1"})
	lease, _ := cl["lease"].(string)
	if cl["actor"] != "mcp-server" || lease == "" {
		t.Fatalf("claim: %v; want a lease whose actor is the server's declared actor, mcp-server", cl)
	}
	proof := func(extra map[string]any) map[string]any {
		args := map[string]any{"statement_path": "stmt_id_wrap", "strategy": "direct", "proof_text": "It is so. Hence it holds.", "lease": lease}
		for k, v := range extra {
			args[k] = v
		}
		_, obj := call(t, cs, "state_complete_proof", args)
		return obj
	}
	if obj := proof(map[string]any{"actor": "impostor"}); errorCode(obj) != "usage" || !strings.Contains(obj["error"].(map[string]any)["message"].(string), "claimed by mcp-server") {
		t.Fatalf("with another actor: %v; want a usage refusal naming mcp-server", obj)
	}
	if log := events(); strings.Contains(log, "state-complete-proof") {
		t.Fatalf("events after the refusal: %s; want no proof written", log)
	}
	if obj := proof(nil); obj["ok"] != true {
		t.Fatalf("with the lease alone: %v; want ok", obj)
	}
	if log := events(); !strings.Contains(log, `"path":"/proof_author","value":"mcp-server"`) {
		t.Errorf("events %s; want the proof by mcp-server", log)
	}
}
