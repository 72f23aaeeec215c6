//go:build !lean

package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
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
		if after := snapshot(t, root); !maps.Equal(before, after) {
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
		if after := snapshot(t, root); !maps.Equal(before, after) {
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

// TestMCPDuplicateKeys (W6, N6): a JSON-RPC line with a key given twice
// in any object, the envelope included, is refused with a JSON-RPC -32600
// error naming the key, nothing written, and the server keeps serving: the
// SDK's decoder kept the last one, so a second "name" ran new_problem
// behind a status call and a second "arguments" acted as another actor.
func TestMCPDuplicateKeys(t *testing.T) {
	root := newRoot(t)
	s := startRaw(t, root)
	s.send(rawInit, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if m := s.next(2 * time.Minute); m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	call := func(id int, params string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`, id, params)
	}
	cases := []struct{ line, key string }{
		{call(2, `{"name":"status","name":"new_problem","arguments":{"name":"dup","objective":"x"}}`), `"name" within "/params"`},
		{call(3, `{"name":"new_problem","arguments":{"name":"dup","objective":"x","actor":"alice"},"arguments":{"name":"dup","objective":"x","actor":"mallory"}}`), `"arguments"`},
		{call(4, `{"name":"new_problem","arguments":{"name":"dup2","objective":"x","actor":"alice","actor":"mallory"}}`), `"actor" within "/params/arguments"`},
		{call(5, `{"name":"prob_wrapup_statement","arguments":{"problem_path":"prob_dup","claim":"c","claim":"d","purpose":"p"}}`), `"claim"`},
		{call(6, `{"name":"state_setup_substatement","arguments":{"parent_statement_path":"stmt_dup_wrap","rationale":"r","sub_statements":[{"claim":"a","claim":"b"}]}}`), `"claim" within "/params/arguments/sub_statements/0"`},
		{`{"jsonrpc":"2.0","id":7,"method":"tools/call","method":"tools/list","params":{"name":"status"}}`, `"method"`},
	}
	before := snapshot(t, root)
	for _, c := range cases {
		s.send(c.line)
		m := s.next(2 * time.Minute)
		e, _ := m["error"].(map[string]any)
		code, _ := e["code"].(float64)
		msg, _ := e["message"].(string)
		if code != -32600 || !strings.Contains(msg, "duplicate object member name "+c.key) || !strings.Contains(msg, "give each key once") {
			t.Errorf("%s\n= %v; want a -32600 error naming %s", c.line, m, c.key)
		}
		if id, _ := json.Marshal(m["id"]); !strings.Contains(c.line, `"id":`+string(id)+`,`) {
			t.Errorf("the error carries id %s; want the request's", id)
		}
	}
	if after := snapshot(t, root); !maps.Equal(before, after) {
		t.Errorf("a line with a duplicate key changed the store")
	}
	// The server goes on: the same call with each key once runs.
	s.send(call(8, `{"name":"new_problem","arguments":{"name":"dup","objective":"x","actor":"alice"}}`))
	if m := s.next(2 * time.Minute); m["result"] == nil || m["result"].(map[string]any)["isError"] == true {
		t.Errorf("new_problem after the refusals: %v; want a result", m)
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
		if after := snapshot(t, root); !maps.Equal(before, after) {
			t.Errorf("the refusal of artifact %s changed the store", p)
		}
	}
	if m, _ := filepath.Glob(filepath.Join(outsideDir, "*")); len(m) != 0 {
		t.Errorf("refused artifacts were written outside the project: %v", m)
	}
	res, obj := call(t, cs, "debate_start", map[string]any{"protocol": "review", "topic": "Lock", "subject": "lock.go", "artifact": "debates/review.md"})
	if res.IsError {
		t.Fatalf("debate_start with an artifact inside the project: %v", obj)
	}
	if b, err := os.ReadFile(filepath.Join(project, "debates", "review.md")); err != nil || !strings.Contains(string(b), "# Code Debate: lock.go") {
		t.Errorf("debates/review.md = %q, %v; want the transcript", b, err)
	}
}

// TestMCPArtifactOnlyUnderDebates (N3): over MCP a debate's artifact is a
// new file under the project's debates/ folder. An existing file that is
// no artifact of the debate (README.md, proofloop.json, a git hook, a file
// under debates/, another debate's artifact), a dot-folder or dot-file, a
// path elsewhere in the project and a debates/ linked elsewhere are each
// refused with invalid_input, and nothing changes: not the store, not the
// file, not its mode. A second session's join that finds the review gives
// the same artifact and is accepted.
func TestMCPArtifactOnlyUnderDebates(t *testing.T) {
	root := newRoot(t)
	project := filepath.Dir(root)
	for p, mode := range map[string]os.FileMode{"README.md": 0o644, "proofloop.json": 0o644, ".git/hooks/post-checkout": 0o755, "debates/notes.md": 0o644} {
		os.MkdirAll(filepath.Dir(filepath.Join(project, p)), 0o755)
		content := "KEEP " + p + "\n"
		if p == "proofloop.json" {
			content = "{}\n"
		}
		if err := os.WriteFile(filepath.Join(project, p), []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(project, ".git"), filepath.Join(project, "debates", "git")); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, root, nil)
	res, obj := call(t, cs, "debate_join", map[string]any{"protocol": "review", "subject": "lock.go", "participant_name": "ann", "actor": "ann", "artifact": "debates/review.md"})
	if res.IsError {
		t.Fatalf("debate_join that starts a review with artifact debates/review.md: %v", obj)
	}
	for _, p := range []string{"README.md", "proofloop.json", ".git/hooks/post-checkout", "debates/notes.md", "debates/review.md",
		"debates/.hidden.md", "debates/.cache/r.md", "debates/git/hooks/pre-commit", "notes/r.md", "r.md", "debates"} {
		before := snapshot(t, project)
		res, obj := call(t, cs, "debate_start", map[string]any{"protocol": "review", "topic": "Other " + p, "subject": "other.go", "artifact": p})
		if c := errorCode(obj); !res.IsError || c != "invalid_input" && c != "usage" {
			t.Errorf("debate_start with artifact %s = %v; want invalid_input (usage for a folder)", p, obj)
		}
		if after := snapshot(t, project); !maps.Equal(before, after) {
			t.Errorf("the refusal of artifact %s changed the project folder", p)
		}
	}
	if fi, err := os.Stat(filepath.Join(project, ".git/hooks/post-checkout")); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("the git hook: %v, %v; want it as it was, mode 0755", fi, err)
	}
	res, obj = call(t, cs, "debate_join", map[string]any{"protocol": "review", "subject": "lock.go", "participant_name": "ben", "actor": "ben", "artifact": "debates/review.md"})
	if res.IsError || obj["role"] != "responder" {
		t.Errorf("the second session's join with the review's own artifact: %v; want the responder's seat", obj)
	}
	// The CLI is a person's: any new or existing file of the project.
	if code, _, stderr := mcpCLI(t, root, "debate", "start", "--protocol", "review", "--subject", "cli.go", "--artifact", filepath.Join(project, "cli-review.md")); code != 0 {
		t.Errorf("CLI debate start --artifact in the project folder: exit %d, %s; want it accepted", code, stderr)
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
			if after := snapshot(t, root); !maps.Equal(before, after) {
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

// TestMCPTextRefused (N15): over MCP, an argument with a byte that is not
// UTF-8 (sent raw), NUL, a bidirectional control or a lone surrogate (sent
// as JSON escapes), in a skill's, a debate tool's or the actor's argument,
// is refused as the CLI refuses it: invalid_input (exit 2) with the byte
// offset, nothing written; so is a topic over its limit. The server goes on.
func TestMCPTextRefused(t *testing.T) {
	root := newRoot(t)
	if code, _, stderr := mcpCLI(t, root, "debate", "start", "--protocol", "dialectic", "--topic", "Keep"); code != 0 {
		t.Fatal(stderr)
	}
	mcpCLI(t, root, "debate", "join", "deb_keep", "--participant-name", "ann", "--actor", "ann")
	s := startRaw(t, root)
	s.send(rawInit, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	s.next(2 * time.Minute)
	call := func(id int, tool, args string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, tool, args)
	}
	cases := []struct{ line, want string }{
		{call(2, "new_problem", "{\"name\":\"u\",\"objective\":\"a\xffb\"}"), "a byte that is not UTF-8 at byte 26"},
		{call(3, "new_problem", "{\"name\":\"u\",\"objective\":\"ok\",\"actor\":\"x\xffy\"}"), "a byte that is not UTF-8 at byte 39"},
		{call(4, "prob_wrapup_statement", `{"problem_path":"prob_x","claim":"a\u0000b","purpose":"p"}`), "the control character U+0000 at byte 35"},
		{call(5, "debate_start", `{"protocol":"dialectic","topic":"a\u202eb"}`), "the bidirectional control U+202E at byte 34"},
		{call(6, "debate_start", `{"protocol":"dialectic","topic":"a\ud800"}`), "a lone surrogate"},
		{call(7, "debate_turn", `{"id":"deb_keep","participant_id":"p1","actor":"ann","body":"x\u001b[2J"}`), "the control character U+001B"},
		{call(8, "debate_turn", `{"id":"deb_keep","participant_id":"p1","actor":"ann","input":{"body":"y\u2066z"}}`), "the bidirectional control U+2066"},
		{call(9, "debate_start", `{"protocol":"dialectic","topic":"`+strings.Repeat("t", 10000)+`"}`), "the argument topic has 10000 characters, more than the 500 allowed"},
	}
	before := snapshot(t, root)
	for _, c := range cases {
		s.send(c.line)
		m := s.next(2 * time.Minute)
		r, _ := m["result"].(map[string]any)
		obj, _ := r["structuredContent"].(map[string]any)
		e, _ := obj["error"].(map[string]any)
		if msg, _ := e["message"].(string); r["isError"] != true || e["code"] != "invalid_input" || !strings.Contains(msg, c.want) {
			t.Errorf("%.120s\n= %v; want invalid_input with %q", c.line, m, c.want)
		}
	}
	if after := snapshot(t, root); !maps.Equal(before, after) {
		t.Errorf("a refused argument changed the store")
	}
	s.send(call(10, "new_problem", `{"name":"u","objective":"Zeige ∑ n²."}`))
	if m := s.next(2 * time.Minute); m["result"].(map[string]any)["isError"] == true {
		t.Errorf("new_problem with good text after the refusals: %v", m)
	}
}
