package main

import (
	"fmt"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPServersRaceNext runs 16 `proofloop mcp` processes on one store of
// 16 problems: each claims with next at the same moment, and each gets a
// different problem; each then acts on its problem with the lease it got.
func TestMCPServersRaceNext(t *testing.T) {
	const n = 16
	root := newRoot(t)
	// A generous lock wait: the test is about distinct claims, not speed.
	if code, _, stderr := mcpCLI(t, root, "config", "set", "lock_timeout", "10m"); code != 0 {
		t.Fatalf("config set: exit %d: %s", code, stderr)
	}
	for i := range n {
		if code, _, stderr := mcpCLI(t, root, "new-problem", "--name", fmt.Sprintf("p%02d", i), "--objective", "Show it."); code != 0 {
			t.Fatalf("new-problem: exit %d: %s", code, stderr)
		}
	}
	sessions := make([]*mcp.ClientSession, n)
	for i := range n {
		sessions[i] = connect(t, root, nil)
	}
	var wg sync.WaitGroup
	type got struct{ id, lease string }
	claimed := make([]got, n)
	start := make(chan struct{})
	for i, cs := range sessions {
		wg.Go(func() {
			<-start
			res, err := cs.CallTool(testCtx(t), &mcp.CallToolParams{Name: "next", Arguments: map[string]any{
				"claim": true, "role": "solve", "holder": fmt.Sprintf("w%02d", i), "actor": fmt.Sprintf("w%02d", i)}})
			if err != nil || res.IsError {
				t.Errorf("server %d next: %v %v", i, err, res)
				return
			}
			item, _ := res.StructuredContent.(map[string]any)["item"].(map[string]any)
			id, _ := item["id"].(string)
			lease, _ := item["lease"].(string)
			claimed[i] = got{id, lease}
		})
	}
	close(start)
	wg.Wait()
	seen := map[string]int{}
	for i, c := range claimed {
		if c.id == "" || c.lease == "" {
			t.Errorf("server %d claimed nothing; want one of the %d free problems", i, n)
			continue
		}
		if j, dup := seen[c.id]; dup {
			t.Errorf("servers %d and %d both claimed %s", j, i, c.id)
		}
		seen[c.id] = i
	}
	if t.Failed() {
		return
	}
	for i, cs := range sessions {
		wg.Go(func() {
			res, err := cs.CallTool(testCtx(t), &mcp.CallToolParams{Name: "prob_wrapup_statement", Arguments: map[string]any{
				"problem_path": claimed[i].id, "claim": "It holds.", "purpose": "It is the objective.",
				"lease": claimed[i].lease, "actor": fmt.Sprintf("w%02d", i)}})
			if err != nil || res.IsError {
				t.Errorf("server %d wrap-up on %s with its lease: %v %v", i, claimed[i].id, err, res)
			}
		})
	}
	wg.Wait()
	code, out, stderr := mcpCLI(t, root, "events")
	if code != 0 {
		t.Fatalf("events: exit %d: %s", code, stderr)
	}
	if got, want := len(asSlice(out["events"])), 3*n+1; got != want {
		t.Errorf("events.jsonl has %d events; want %d (new-problem, claim and wrap-up for each, and config set)", got, want)
	}
}
