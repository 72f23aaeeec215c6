package main

import (
	"bytes"
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
