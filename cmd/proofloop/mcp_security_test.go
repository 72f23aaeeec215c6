package main

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPDebateTextIsLiteral (S1): every text a debate tool takes is the
// text itself over MCP; with @FILE the server read its own files into the
// debate (topic, a turn's body and suggestion, a close's summary). And no
// tool's schema offers @FILE.
func TestMCPDebateTextIsLiteral(t *testing.T) {
	root := newRoot(t)
	secret := filepath.Join(t.TempDir(), "secret.md")
	os.WriteFile(secret, []byte("SECRET"), 0o644)
	at := "@" + secret
	cs := connect(t, root, nil)
	must := func(tool string, args map[string]any) map[string]any {
		t.Helper()
		res, obj := call(t, cs, tool, args)
		if res.IsError {
			t.Fatalf("%s %v: %v", tool, args, obj)
		}
		return obj
	}
	id := must("debate_start", map[string]any{"protocol": "dialectic", "topic": at})["id"].(string)
	must("debate_join", map[string]any{"id": id, "participant_name": "alice", "actor": "alice"})
	must("debate_join", map[string]any{"id": id, "participant_name": "bob", "actor": "bob"})
	must("debate_turn", map[string]any{"id": id, "participant_id": "p1", "body": at, "actor": "alice"})
	must("debate_turn", map[string]any{"id": id, "participant_id": "p2", "body": "@-", "suggestion": []string{at}, "actor": "bob"})
	must("debate_close", map[string]any{"id": id, "outcome": "invalidated", "summary": at, "actor": "alice"})
	d := must("debate_show", map[string]any{"id": id})["debate"].(map[string]any)
	raw, _ := json.Marshal(d)
	if strings.Contains(string(raw), "SECRET") {
		t.Fatalf("the debate holds the server file's content: %s", raw)
	}
	turns := asSlice(d["turns"])
	outcome, _ := d["outcome"].(map[string]any)
	for what, got := range map[string]any{
		"topic":      d["topic"],
		"body 1":     turns[0].(map[string]any)["body"],
		"suggestion": asSlice(turns[1].(map[string]any)["suggestions"])[0].(map[string]any)["text"],
		"summary":    outcome["summary"],
	} {
		if got != at {
			t.Errorf("%s = %v; want the literal %q", what, got, at)
		}
	}
	if body := turns[1].(map[string]any)["body"]; body != "@-" {
		t.Errorf("body 2 = %v; want the literal @-", body)
	}
	// A skill's text too.
	must("new_problem", map[string]any{"name": "lit", "objective": "Show it."})
	must("prob_wrapup_statement", map[string]any{"problem_path": "prob_lit", "claim": at, "purpose": at})
	must("state_complete_proof", map[string]any{"statement_path": "stmt_lit_wrap", "proof_text": at, "strategy": "direct"})
	_, shown := call(t, cs, "show", map[string]any{"ids": []string{"stmt_lit_wrap"}})
	doc, _ := shown["document"].(map[string]any)
	for _, k := range []string{"claim", "purpose", "proof"} {
		if doc[k] != at {
			t.Errorf("statement %s = %v; want the literal %q", k, doc[k], at)
		}
	}
	res, err := cs.ListTools(testCtx(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res)
	if strings.Contains(string(b), "@FILE") {
		t.Errorf("a tool schema offers @FILE; over MCP every text is literal")
	}
}

// TestMCPSourceInsideProject (S2): a socratic debate's source must resolve
// inside the project folder (the folder holding the root), symlinks
// followed; outside, it is refused with invalid_input and nothing is
// written.
func TestMCPSourceInsideProject(t *testing.T) {
	root := newRoot(t)
	project := filepath.Dir(root)
	outside := filepath.Join(t.TempDir(), "design.md")
	os.WriteFile(outside, []byte("The cache is never stale.\n"), 0o644)
	os.WriteFile(filepath.Join(project, "notes.md"), []byte("The cache is never stale.\n"), 0o644)
	if err := os.Symlink(outside, filepath.Join(project, "link.md")); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, root, nil)
	for _, src := range []string{outside, filepath.Join(project, "link.md"), "link.md", "../" + filepath.Base(filepath.Dir(outside)) + "/design.md", "/etc/passwd", "/no/such/file.md"} {
		before := snapshot(t, root)
		res, obj := call(t, cs, "debate_start", map[string]any{"protocol": "socratic", "topic": "Cache", "source": src})
		e, _ := obj["error"].(map[string]any)
		if !res.IsError || errorCode(obj) != "invalid_input" || !strings.Contains(e["message"].(string), "outside the project folder") {
			t.Errorf("debate_start with source %s = %v; want invalid_input, outside the project folder", src, obj)
		}
		if after := snapshot(t, root); !sameFiles(before, after) {
			t.Errorf("the refusal of source %s changed the store", src)
		}
	}
	// The join that starts a duel names its source too: it once read any
	// file (deb_secret, the first heading of /tmp/x/secret.md).
	os.WriteFile(outside, []byte("# Secret plans\n\nThe cache is never stale.\n"), 0o644)
	for _, src := range []string{outside, filepath.Join(project, "link.md"), "link.md", "../" + filepath.Base(filepath.Dir(outside)) + "/design.md", "/etc/passwd"} {
		before := snapshot(t, root)
		res, obj := call(t, cs, "debate_join", map[string]any{"protocol": "socratic", "source": src, "participant_name": "eve", "actor": "eve"})
		e, _ := obj["error"].(map[string]any)
		if msg, _ := e["message"].(string); !res.IsError || errorCode(obj) != "invalid_input" || !strings.Contains(msg, "outside the project folder") {
			t.Errorf("debate_join with source %s = %v; want invalid_input, outside the project folder", src, obj)
		}
		if raw, _ := json.Marshal(obj); strings.Contains(string(raw), "Secret") {
			t.Errorf("debate_join with source %s tells the file's heading: %s", src, raw)
		}
		if after := snapshot(t, root); !sameFiles(before, after) {
			t.Errorf("the join's refusal of source %s changed the store", src)
		}
	}
	res, obj := call(t, cs, "debate_start", map[string]any{"protocol": "socratic", "topic": "Cache", "source": "notes.md"})
	if res.IsError {
		t.Fatalf("debate_start with a source inside the project: %v", obj)
	}
	_, shown := call(t, cs, "debate_show", map[string]any{"id": obj["id"]})
	src, _ := shown["debate"].(map[string]any)["source"].(map[string]any)
	if want, _ := filepath.EvalSymlinks(filepath.Join(project, "notes.md")); src["path"] != want {
		t.Errorf("source = %v; want the file inside the project, %s", src, want)
	}
	// A join by the same source, relative to the project folder, finds
	// that duel.
	res, joined := call(t, cs, "debate_join", map[string]any{"protocol": "socratic", "source": "notes.md", "topic": "Cache", "participant_name": "ann", "actor": "ann"})
	if res.IsError || joined["id"] != obj["id"] {
		t.Errorf("debate_join with source notes.md = %v; want a seat in %v", joined, obj["id"])
	}
	// The CLI is a person's: it reads any file they name.
	if code, _, stderr := mcpCLI(t, root, "debate", "start", "--protocol", "socratic", "--topic", "Cache 2", "--source", outside); code != 0 {
		t.Errorf("CLI debate start --source outside the project: exit %d, %s; want it accepted", code, stderr)
	}
}

// TestMCPDuplicateKeys (W6): tool arguments with a key given twice are
// refused (invalid_input, nothing written), as the CLI's strict JSON
// refuses them, not settled by the last one.
func TestMCPDuplicateKeys(t *testing.T) {
	root := newRoot(t)
	cs := connect(t, root, nil)
	call(t, cs, "new_problem", map[string]any{"name": "dup", "objective": "Show it."})
	for tool, args := range map[string]string{
		"new_problem":           `{"name":"dup2","objective":"x","actor":"alice","actor":"mallory"}`,
		"prob_wrapup_statement": `{"problem_path":"prob_dup","claim":"c","claim":"d","purpose":"p"}`,
		"state_setup_substatement": `{"parent_statement_path":"stmt_dup_wrap","rationale":"r",` +
			`"sub_statements":[{"claim":"a","claim":"b"}]}`,
	} {
		before := snapshot(t, root)
		res, err := cs.CallTool(testCtx(t), &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
		if err != nil {
			t.Fatalf("%s: protocol error %v; want a tool result", tool, err)
		}
		obj, _ := res.StructuredContent.(map[string]any)
		e, _ := obj["error"].(map[string]any)
		if !res.IsError || errorCode(obj) != "invalid_input" || !strings.Contains(e["message"].(string), "given twice") {
			t.Errorf("%s %s = %v; want invalid_input naming the key given twice", tool, args, obj)
		}
		if after := snapshot(t, root); !sameFiles(before, after) {
			t.Errorf("%s with a duplicate key changed the store", tool)
		}
	}
}

// TestMCPArtifactInsideProject: debate_start's artifact must resolve inside
// the project folder, symlinks followed; outside, it is refused
// (invalid_input, exit 2) and nothing is written, there or in the store; inside, the transcript
// is rendered there too.
func TestMCPArtifactInsideProject(t *testing.T) {
	root := newRoot(t)
	project := filepath.Dir(root)
	outsideDir := t.TempDir()
	if err := os.Symlink(outsideDir, filepath.Join(project, "out")); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, root, nil)
	for _, p := range []string{filepath.Join(outsideDir, "r.md"), "out/r.md", "../r.md", "/tmp/r.md"} {
		before := snapshot(t, root)
		res, obj := call(t, cs, "debate_start", map[string]any{"protocol": "review", "topic": "Lock", "subject": "lock.go", "artifact": p})
		e, _ := obj["error"].(map[string]any)
		if msg, _ := e["message"].(string); !res.IsError || errorCode(obj) != "invalid_input" || !strings.Contains(msg, "outside the project folder") {
			t.Errorf("debate_start with artifact %s = %v; want invalid_input, outside the project folder", p, obj)
		}
		if after := snapshot(t, root); !sameFiles(before, after) {
			t.Errorf("the refusal of artifact %s changed the store", p)
		}
	}
	if m, _ := filepath.Glob(filepath.Join(outsideDir, "*")); len(m) != 0 {
		t.Errorf("refused artifacts were written outside the project: %v", m)
	}
	res, obj := call(t, cs, "debate_start", map[string]any{"protocol": "review", "topic": "Lock", "subject": "lock.go", "artifact": "review.md"})
	if res.IsError {
		t.Fatalf("debate_start with an artifact inside the project: %v", obj)
	}
	if b, err := os.ReadFile(filepath.Join(project, "review.md")); err != nil || !strings.Contains(string(b), "# Code Debate: lock.go") {
		t.Errorf("review.md = %q, %v; want the transcript", b, err)
	}
}

// TestMCPPathFlagsInsideProject: every flag of every tool whose value is a
// path on the server (FILE, PATH or DIR in its usage) is checked to lie
// inside the project folder before the command runs, so a tool whose
// command forgets its own check is still covered. The list is derived:
// the test fails if it finds none of the paths it knows.
func TestMCPPathFlagsInsideProject(t *testing.T) {
	root := newRoot(t)
	outside := filepath.Join(t.TempDir(), "x.md")
	os.WriteFile(outside, []byte("# X\n"), 0o644)
	cs := connect(t, root, nil)
	var seen []string
	for _, tool := range mcpTools((&app{}).rootCommand(), "") {
		for _, name := range slices.Sorted(maps.Keys(tool.flags)) {
			if !pathFlag(tool.flags[name]) {
				continue
			}
			seen = append(seen, tool.tool.Name+"."+name)
			before := snapshot(t, root)
			res, obj := call(t, cs, tool.tool.Name, map[string]any{name: outside})
			e, _ := obj["error"].(map[string]any)
			if msg, _ := e["message"].(string); !res.IsError || errorCode(obj) != "invalid_input" || !strings.Contains(msg, "outside the project folder") {
				t.Errorf("%s with %s outside the project = %v; want invalid_input, outside the project folder", tool.tool.Name, name, obj)
			}
			if after := snapshot(t, root); !sameFiles(before, after) {
				t.Errorf("%s with %s outside the project changed the store", tool.tool.Name, name)
			}
		}
	}
	for _, want := range []string{"debate_start.source", "debate_start.artifact", "debate_join.source", "debate_join.artifact"} {
		if !slices.Contains(seen, want) {
			t.Errorf("path parameters found = %v; want %s among them", seen, want)
		}
	}
}
