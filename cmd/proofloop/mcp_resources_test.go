package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPPrompts checks one prompt per role, holding `prime --role R`.
func TestMCPPrompts(t *testing.T) {
	root := newRoot(t)
	if code, _, stderr := mcpCLI(t, root, "new-problem", "--name", "pr", "--objective", "Show it."); code != 0 {
		t.Fatalf("new-problem: exit %d: %s", code, stderr)
	}
	cs := connect(t, root, nil)
	res, err := cs.ListPrompts(testCtx(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range res.Prompts {
		names = append(names, p.Name)
	}
	slices.Sort(names)
	if want := []string{"check", "decide", "fix", "prove", "solve"}; !slices.Equal(names, want) {
		t.Errorf("prompts = %v; want %v", names, want)
	}
	got, err := cs.GetPrompt(testCtx(t), &mcp.GetPromptParams{Name: "solve"})
	if err != nil {
		t.Fatal(err)
	}
	text := got.Messages[0].Content.(*mcp.TextContent).Text
	for _, want := range []string{"You are the solve agent", "prob_pr", "prob-wrapup-statement"} {
		if !strings.Contains(text, want) {
			t.Errorf("the solve prompt lacks %q:\n%s", want, text)
		}
	}
}

// TestMCPResources reads the catalog, the transition table and a document,
// lists the documents a tool call created after the server started, and
// refuses an unknown document.
func TestMCPResources(t *testing.T) {
	root := newRoot(t)
	if code, _, stderr := mcpCLI(t, root, "new-problem", "--name", "rs", "--objective", "Show it."); code != 0 {
		t.Fatalf("new-problem: exit %d: %s", code, stderr)
	}
	cs := connect(t, root, nil)
	for _, uri := range []string{"proofloop://skills", "proofloop://transitions"} {
		r, err := cs.ReadResource(testCtx(t), &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			t.Fatalf("read %s: %v", uri, err)
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(r.Contents[0].Text), &v); err != nil || v["ok"] != true {
			t.Errorf("read %s = %.200s; want the --json object", uri, r.Contents[0].Text)
		}
	}
	call(t, cs, "prob_wrapup_statement", map[string]any{"problem_path": "prob_rs", "claim": "It holds.", "purpose": "It is the objective.", "actor": "sol"})
	res, err := cs.ListResources(testCtx(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range res.Resources {
		uris = append(uris, r.URI)
	}
	for _, want := range []string{"proofloop://skills", "proofloop://transitions", "proofloop://problem/prob_rs", "proofloop://statement/stmt_rs_wrap"} {
		if !slices.Contains(uris, want) {
			t.Errorf("resources/list = %v; want %s in it", uris, want)
		}
	}
	r, err := cs.ReadResource(testCtx(t), &mcp.ReadResourceParams{URI: "proofloop://statement/stmt_rs_wrap"})
	if err != nil {
		t.Fatal(err)
	}
	disk, err := os.ReadFile(filepath.Join(root, "statement", "stmt_rs_wrap.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got, want any
	json.Unmarshal([]byte(r.Contents[0].Text), &got)
	json.Unmarshal(disk, &want)
	if want == nil || !reflect.DeepEqual(got, want) {
		t.Errorf("resource stmt_rs_wrap = %s; want the document on disk %s", r.Contents[0].Text, disk)
	}
	for _, uri := range []string{"proofloop://statement/stmt_nope", "proofloop://problem/stmt_rs_wrap", "proofloop://statement/../config"} {
		if _, err := cs.ReadResource(testCtx(t), &mcp.ReadResourceParams{URI: uri}); err == nil {
			t.Errorf("read %s succeeded; want resource not found", uri)
		}
	}
}

// TestMCPWatch subscribes to a statement on a --watch server, changes it
// through the CLI (another process), and waits for resources/updated.
func TestMCPWatch(t *testing.T) {
	root := newRoot(t)
	for _, args := range [][]string{
		{"new-problem", "--name", "w", "--objective", "Show it."},
		{"prob-wrapup-statement", "--problem-path", "prob_w", "--claim", "It holds.", "--purpose", "p", "--actor", "sol"},
	} {
		if code, _, stderr := mcpCLI(t, root, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
	}
	updated := make(chan string, 16)
	cs := connect(t, root, &mcp.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
		updated <- req.Params.URI
	}}, "--watch")
	const uri = "proofloop://statement/stmt_w_wrap"
	if err := cs.Subscribe(testCtx(t), &mcp.SubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := mcpCLI(t, root, "state-complete-proof", "--statement-path", "stmt_w_wrap", "--proof-text", "Done.", "--strategy", "direct", "--actor", "pro"); code != 0 {
		t.Fatalf("state-complete-proof: exit %d: %s", code, stderr)
	}
	select {
	case got := <-updated:
		if got != uri {
			t.Errorf("resources/updated for %s; want %s", got, uri)
		}
	case <-time.After(2 * time.Minute): // hang protection only
		t.Fatal("no resources/updated notification after the statement changed")
	}
}
