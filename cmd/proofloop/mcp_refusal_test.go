//go:build !lean

package main

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPRefusalsMatchCLI sends bad inputs as tool calls and the same ones
// as command lines: each gives isError with the CLI's error code, message
// and hint, and neither changes a file of the store.
func TestMCPRefusalsMatchCLI(t *testing.T) {
	root := newRoot(t)
	for _, s := range []step{
		{"new_problem", "sol", map[string]any{"name": "r", "objective": "Show r."}},
		{"prob_wrapup_statement", "sol", map[string]any{"problem_path": "prob_r", "claim": "r holds.", "purpose": "It is the objective."}},
		{"state_complete_proof", "pro", map[string]any{"statement_path": "stmt_r_wrap", "proof_text": "One. Two.", "strategy": "direct"}},
		{"new_problem", "sol", map[string]any{"name": "q", "objective": "Show q."}},
		{"prob_wrapup_statement", "sol", map[string]any{"problem_path": "prob_q", "claim": "q holds.", "purpose": "It is the objective."}},
	} {
		if code, _, stderr := mcpCLI(t, root, cliArgs(s)...); code != 0 {
			t.Fatalf("setup %v: exit %d: %s", cliArgs(s), code, stderr)
		}
	}
	if code, _, stderr := mcpCLI(t, root, "claim", "stmt_q_wrap", "--role", "prove", "--holder", "other", "--actor", "other"); code != 0 {
		t.Fatalf("claim: exit %d: %s", code, stderr)
	}
	cs := connect(t, root, nil)
	for _, tc := range []struct {
		name string
		call step
		code string
	}{
		{"wrong status", step{"state_complete_proof", "pro", map[string]any{"statement_path": "stmt_r_wrap", "proof_text": "Again.", "strategy": "direct"}}, "invalid_transition"},
		{"guard", step{"prob_finish_up", "sol", map[string]any{"problem_path": "prob_r", "key_statement_id": "stmt_r_wrap", "resolution": "Too early."}}, "guard_failed"},
		{"bad sentence", step{"check_reject_proof", "chk", map[string]any{"statement_path": "stmt_r_wrap", "sentence_number": 9, "sentence_text": "Nine.", "error_type": "gap", "explanation": "x"}}, "guard_failed"},
		{"bad enum", step{"check_reject_proof", "chk", map[string]any{"statement_path": "stmt_r_wrap", "sentence_number": 1, "sentence_text": "One.", "error_type": "typo", "explanation": "x"}}, "invalid_input"},
		{"unknown id", step{"check_confirm_proof", "chk", map[string]any{"statement_path": "stmt_nope"}}, "not_found"},
		{"path outside root", step{"check_confirm_proof", "chk", map[string]any{"statement_path": "../outside/stmt_r_wrap.json"}}, "invalid_input"},
		{"stale expect_revision", step{"check_confirm_proof", "chk", map[string]any{"statement_path": "stmt_r_wrap", "expect_revision": 1}}, "conflict"},
		{"lease held", step{"state_complete_proof", "pro", map[string]any{"statement_path": "stmt_q_wrap", "proof_text": "Mine.", "strategy": "direct"}}, "lease_held"},
		{"decide usage", step{"decide", "lead", map[string]any{"id": "stmt_r_wrap"}}, "usage"},
		{"claim without holder", step{"claim", "x", map[string]any{"id": "stmt_r_wrap", "role": "check"}}, "usage"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := snapshot(t, root)
			exit, cli, stderr := mcpCLI(t, root, cliArgs(tc.call)...)
			args := map[string]any{"actor": tc.call.actor}
			for k, v := range tc.call.args {
				args[k] = v
			}
			res, got := call(t, cs, tc.call.tool, args)
			if exit == 0 || errorCode(cli) != tc.code {
				t.Fatalf("CLI %v: exit %d, code %q; want a refusal with %s (%s)", cliArgs(tc.call), exit, errorCode(cli), tc.code, stderr)
			}
			if !res.IsError || got["ok"] != false {
				t.Errorf("tool %s: isError %v, ok %v; want a refusal", tc.call.tool, res.IsError, got["ok"])
			}
			if g, w := js(got["error"]), js(overMCP(cli["error"])); g != w {
				t.Errorf("tool error = %s; want the CLI's, naming tools: %s", g, w)
			}
			if g, w := got["command"], cli["command"]; g != w {
				t.Errorf("tool command = %v; want the CLI's %v", g, w)
			}
			if stderr != "" {
				t.Errorf("CLI --json refusal wrote to stderr %q; want the error on stdout only", stderr)
			}
			e, _ := cli["error"].(map[string]any)
			plain := fmt.Sprintf("proofloop %s: %s", cli["command"], e["message"])
			if h, _ := e["hint"].(string); h != "" {
				plain += "\nhint: " + h
			}
			if text, _ := res.Content[0].(*mcp.TextContent); len(res.Content) != 1 || text == nil || text.Text != "error "+tc.code+": "+oneLine(testHints.toolHint(plain)) {
				t.Errorf("tool text = %s; want the CLI's plain sentence on one line, naming tools: %q", js(res.Content), plain)
			}
			if after := snapshot(t, root); !maps.Equal(before, after) {
				t.Errorf("the refusal changed the store")
			}
		})
	}
	t.Run("unknown parameter", func(t *testing.T) {
		before := snapshot(t, root)
		for tool, args := range map[string]map[string]any{
			"check_confirm_proof": {"statement_path": "stmt_r_wrap", "bogus": 1},
			"release":             {"id": "stmt_r_wrap", "bogus": 1},
			"show":                {"ids": "stmt_r_wrap"}, // not a list
			"list":                {"kind": 3},
		} {
			res, got := call(t, cs, tool, args)
			if !res.IsError || errorCode(got) != "invalid_input" {
				t.Errorf("%s %v = %v; want isError with invalid_input", tool, args, got)
			}
		}
		_, got := call(t, cs, "claim", map[string]any{"id": "stmt_r_wrap", "role": "check", "holdr": "x"})
		if e, _ := got["error"].(map[string]any); !strings.HasPrefix(fmt.Sprint(e["hint"]), "did you mean holder?") {
			t.Errorf("claim with holdr: hint %v; want the nearest parameter, holder", e["hint"])
		}
		if after := snapshot(t, root); !maps.Equal(before, after) {
			t.Errorf("a refusal changed the store")
		}
	})
}

// TestMCPDamagedStore reads a malformed document through a tool and a
// resource: store_damaged, as the CLI says, not a protocol error for the
// tool.
func TestMCPDamagedStore(t *testing.T) {
	root := newRoot(t)
	if code, _, stderr := mcpCLI(t, root, "new-problem", "--name", "d", "--objective", "Show d."); code != 0 {
		t.Fatalf("new-problem: exit %d: %s", code, stderr)
	}
	if err := os.WriteFile(filepath.Join(root, "problem", "prob_d.json"), []byte(`{"id": "prob_d", "status": `), 0o644); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, root, nil)
	_, cli, _ := mcpCLI(t, root, "show", "prob_d")
	res, got := call(t, cs, "show", map[string]any{"ids": []string{"prob_d"}})
	if !res.IsError || errorCode(got) != "store_damaged" || js(got["error"]) != js(overMCP(cli["error"])) {
		t.Errorf("show of a malformed document = %v; want isError with the CLI's %v", got, cli["error"])
	}
	res, got = call(t, cs, "prob_wrapup_statement", map[string]any{"problem_path": "prob_d", "claim": "d.", "purpose": "p"})
	if !res.IsError || errorCode(got) != "store_damaged" {
		t.Errorf("a skill on a malformed document = %v; want isError with store_damaged", got)
	}
}

// testHints rewrites the CLI's hints as the server of every tool does.
var testHints = &mcpServer{tools: mcpTools((&app{}).rootCommand(), "")}

// overMCP is a CLI error object as a tool gives it: its message and hint
// name tools, not commands.
func overMCP(e any) any {
	m, _ := e.(map[string]any)
	out := map[string]any{}
	for k, v := range m {
		if s, ok := v.(string); ok && (k == "message" || k == "hint") {
			v = testHints.toolHint(s)
		}
		out[k] = v
	}
	return out
}

// TestMCPTextIsLiteral: a text argument that starts with @ is kept as
// written; the CLI's @FILE reading would let a client read the server's
// files into the store.
func TestMCPTextIsLiteral(t *testing.T) {
	root := newRoot(t)
	cs := connect(t, root, nil)
	secret := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(secret, []byte("SECRET"), 0o644)
	res, obj := call(t, cs, "new_problem", map[string]any{"name": "lit", "objective": "@" + secret, "hypothesis": []string{"@-", "@@x"}})
	if res.IsError {
		t.Fatalf("new_problem: %v", obj)
	}
	_, shown := call(t, cs, "show", map[string]any{"ids": []string{"prob_lit"}, "field": "objective"})
	if shown["value"] != "@"+secret {
		t.Errorf("objective = %v; want the literal %q", shown["value"], "@"+secret)
	}
	_, shown = call(t, cs, "show", map[string]any{"ids": []string{"prob_lit"}, "field": "hypothesis"})
	if js(shown["value"]) != `["@-","@@x"]` {
		t.Errorf("hypothesis = %v; want the literal texts", js(shown["value"]))
	}
}

// TestMCPHintsRead holds the hints of common slips over MCP to exact,
// readable sentences: an unknown argument names the nearest parameter
// (before any check of a parameter missing), a parameter missing says what
// to give, and a CLI hint that names a command reads as a call of a tool
// with its arguments, a flag as an argument, with no --input or
// environment variable left.
func TestMCPHintsRead(t *testing.T) {
	root := newRoot(t)
	roles := fixedRoles()
	for _, args := range [][]string{
		{"new-problem", "--name", "r", "--objective", "Show r."},
		{"prob-wrapup-statement", "--problem-path", "prob_r", "--claim", "r holds.", "--purpose", "p"},
		{"state-complete-proof", "--statement-path", "stmt_r_wrap", "--proof-text", "One. Two.", "--strategy", "direct", "--actor", "pro"},
	} {
		if code, _, stderr := mcpCLI(t, root, args...); code != 0 {
			t.Fatalf("setup %v: exit %d: %s", args, code, stderr)
		}
	}
	cs := connect(t, root, nil)
	showTakes := "show takes at, diff, field, ids, proof_revision, sentences"
	for _, tc := range []struct {
		tool          string
		args          map[string]any
		message, hint string
	}{
		{"show", map[string]any{"id": "stmt_r_wrap"},
			`unknown parameter "id"`, "did you mean ids? " + showTakes},
		{"show", map[string]any{"ids": []string{"stmt_r_wrap"}, "feild": "status"},
			`unknown parameter "feild"`, "did you mean field? " + showTakes},
		{"show", map[string]any{},
			`show needs "ids"`, `give {"ids": ["ID"]}, with ids from the tools next or status, or from "created" in an earlier result`},
		{"show", map[string]any{"ids": []string{"stmt_r_wrap"}, "proof_revision": 4},
			"stmt_r_wrap has no proof revision 4: its only proof revision is 1",
			`only revision 1 is kept: the tool show with {"ids":["stmt_r_wrap"],"proof_revision":1}`},
		{"check_reject_proof", map[string]any{"statement_path": "stmt_r_wrap", "sentence_number": "two", "sentence_text": "x", "error_type": "gap", "explanation": "e"},
			`"sentence_number" must be a positive integer, got "two"`,
			`the sentence with the gap, numbered as the tool show with {"ids":["ID"],"sentences":true} prints them`},
		{"check_reject_proof", map[string]any{"statement_path": "stmt_r_wrap", "sentence_text": "x", "error_type": "gap", "explanation": "e"},
			`check_reject_proof needs the argument sentence_number (the sentence with the gap, numbered as the tool show with {"ids":["ID"],"sentences":true} prints them)`,
			"add the argument sentence_number"},
		{"refresh", map[string]any{"id": "stmt_r_wrap"},
			"give the lease token with the argument lease",
			"refresh extends a lease you hold: pass the token that the tool claim with {\"id\":\"stmt_r_wrap\"} or the tool next with {\"claim\":true} returned as `lease` (the argument lease); " +
				`holding none, claim it first: the tool claim with {"holder":"NAME","id":"stmt_r_wrap","role":"ROLE"}`},
		{"release", map[string]any{"id": "stmt_r_wrap"},
			"give the lease token with the argument lease",
			"pass the token that the tool claim with {\"id\":\"stmt_r_wrap\"} or the tool next with {\"claim\":true} returned as `lease` (the argument lease)"},
		{"next", map[string]any{"role": "chek"},
			fmt.Sprintf(`role "chek" is not accepted; use one of %v`, roles),
			"did you mean check? (the argument role is one of " + strings.Join(roles, ", ") + ")"},
	} {
		_, got := call(t, cs, tc.tool, tc.args)
		e, _ := got["error"].(map[string]any)
		if e["message"] != tc.message || e["hint"] != tc.hint {
			t.Errorf("%s %v:\n message %q\n hint    %q\nwant\n message %q\n hint    %q", tc.tool, tc.args, e["message"], e["hint"], tc.message, tc.hint)
		}
	}
}
