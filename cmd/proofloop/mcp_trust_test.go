//go:build !lean

package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/proofloop/proofloop/store"
)

// TestMCPPersonOnly: no MCP tool reaches config.json or guidance, a
// person's settings and word (issue 34): config and guide are no tools of
// the server without a role (which has every other command), a call of
// them by name is refused, and the one tool that writes a file the caller
// names (a debate's --artifact) cannot name config.json. Behind that, the
// commands refuse a call made over MCP themselves (personOnly).
func TestMCPPersonOnly(t *testing.T) {
	root := newRoot(t)
	cs := connect(t, root, nil)
	tools, _ := listTools(t, cs)
	for _, name := range tools {
		if strings.HasPrefix(name, "config") || strings.HasPrefix(name, "guide") {
			t.Errorf("tools/list has %s; a person's command is never a tool", name)
		}
	}
	cfg, err := os.ReadFile(filepath.Join(root, store.ConfigFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"config_set", map[string]any{"key": "verify_quorum", "value": "1"}},
		{"config", map[string]any{"args": []any{"set", "verify_quorum", "1"}}},
		{"guide", map[string]any{"role": "check", "text": "Confirm everything."}},
	} {
		res, err := cs.CallTool(testCtx(t), &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		if err == nil && !res.IsError {
			t.Errorf("tools/call %s = %+v; want it refused: no such tool", c.tool, res)
		}
	}
	for _, artifact := range []string{filepath.Join(root, store.ConfigFile), "contents/config.json"} {
		res, obj := call(t, cs, "debate_start", map[string]any{"protocol": "review", "topic": "x", "artifact": artifact})
		if !res.IsError {
			t.Errorf("debate_start with artifact %s = %v; want it refused", artifact, obj)
		}
	}
	after, err := os.ReadFile(filepath.Join(root, store.ConfigFile))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(cfg, after) {
		t.Errorf("config.json changed over MCP:\n%s\nwas\n%s", after, cfg)
	}
	a := &app{project: filepath.Dir(root)}
	if err := a.personOnly("config set verify_quorum"); store.CodeOf(err) != store.CodePersonOnly || !strings.Contains(err.Error(), "over MCP") {
		t.Errorf("personOnly over MCP = %v; want person_only, over MCP", err)
	}
}

// TestMCPRolePinned (issue 34, N5): `mcp --role check` claims, offers and
// primes for check alone: a call that names another role is refused, one
// that names none acts for check; and no lease may be asked for longer than
// 4 times lease_ttl, over MCP as on the command line.
func TestMCPRolePinned(t *testing.T) {
	root := newRoot(t)
	for _, args := range [][]string{
		{"new-problem", "--name", "odd", "--objective", "The sum of the first n odd numbers is n^2."},
		{"prob-wrapup-statement", "--problem-path", "prob_odd", "--claim", "For n >= 1, 1 + 3 + ... + (2n-1) = n^2.", "--purpose", "p", "--actor", "sol"},
	} {
		if code, out, stderr := mcpCLI(t, root, args...); code != 0 {
			t.Fatalf("%v: exit %d %v %s", args, code, out, stderr)
		}
	}
	cs := connect(t, root, nil, "--role", "check")
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"claim", map[string]any{"id": "prob_odd", "role": "solve", "holder": "x"}},
		{"next", map[string]any{"role": "prove", "claim": true, "holder": "x"}},
		{"prime", map[string]any{"role": "fix"}},
	} {
		res, obj := call(t, cs, c.tool, c.args)
		if !res.IsError || errorCode(obj) != "invalid_input" || !strings.Contains(obj["error"].(map[string]any)["message"].(string), "this server serves the role check") {
			t.Errorf("%s %v on a check server = %v; want invalid_input, the server's role named", c.tool, c.args, obj)
		}
	}
	// No role named: check's. Nothing waits for check, so nothing is claimed
	// though prob_odd waits for solve.
	if res, obj := call(t, cs, "next", map[string]any{"claim": true, "holder": "x"}); res.IsError || obj["item"] != nil {
		t.Errorf("next claim on a check server = %v; want item null: prob_odd is solve's", obj)
	}
	if res, obj := call(t, cs, "prime", map[string]any{}); res.IsError || obj["role"] != "check" {
		t.Errorf("prime on a check server = %v; want check's", obj)
	}
	all := connect(t, root, nil)
	res, obj := call(t, all, "claim", map[string]any{"id": "prob_odd", "role": "solve", "holder": "x", "ttl": "87600h"})
	if !res.IsError || errorCode(obj) != "usage" || !strings.Contains(obj["error"].(map[string]any)["message"].(string), "at most 1h0m0s") {
		t.Errorf("claim with a ten-year ttl = %v; want usage, at most 4 times lease_ttl", obj)
	}
	if _, obj := call(t, all, "status", map[string]any{}); strings.Contains(fmt.Sprint(obj), "leased") {
		t.Errorf("status after the refused claims = %v; want nothing leased", obj)
	}
}
