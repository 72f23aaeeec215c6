package skills

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestMergeMCP: proofloop's server is set once, other servers and keys
// stay, an outdated proofloop entry is replaced, and a file that is not an
// object is refused.
func TestMergeMCP(t *testing.T) {
	parse := func(b []byte) map[string]any {
		t.Helper()
		var v map[string]any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatalf("merged .mcp.json is not JSON: %v\n%s", err, b)
		}
		return v
	}
	want := map[string]any{"type": "stdio", "command": "proofloop", "args": []any{"mcp"}}
	out, changed, err := MergeMCP(nil)
	if err != nil || !changed {
		t.Fatalf("MergeMCP(nil) = %v, %v; want changed", changed, err)
	}
	if got := parse(out)["mcpServers"].(map[string]any)["proofloop"]; !reflect.DeepEqual(got, want) {
		t.Errorf("MergeMCP(nil) proofloop = %v; want %v", got, want)
	}
	old := []byte(`{"mcpServers": {"other": {"command": "x"}, "proofloop": {"command": "old-proofloop"}}, "note": 1}`)
	out, changed, err = MergeMCP(old)
	if err != nil || !changed {
		t.Fatalf("MergeMCP(outdated) = %v, %v; want changed", changed, err)
	}
	v := parse(out)
	servers := v["mcpServers"].(map[string]any)
	if !reflect.DeepEqual(servers["proofloop"], want) || !reflect.DeepEqual(servers["other"], map[string]any{"command": "x"}) || v["note"] != float64(1) {
		t.Errorf("MergeMCP(outdated) =\n%s\nwant proofloop replaced, other and note kept", out)
	}
	again, changed, err := MergeMCP(out)
	if err != nil || changed || string(again) != string(out) {
		t.Errorf("MergeMCP(merged) changed %v, %v:\n%s", changed, err, again)
	}
	for _, bad := range []string{`[]`, `{"mcpServers": []}`, `{"mcpServers": "x"}`, `not json`} {
		if out, _, err := MergeMCP([]byte(bad)); err == nil {
			t.Errorf("MergeMCP(%s) = %s; want a refusal", bad, out)
		}
	}
}

// TestWriteClaudeMCP: WriteClaude adds the server to an existing .mcp.json
// and keeps its other servers; a second run changes nothing; a bad file is
// refused before anything is written.
func TestWriteClaudeMCP(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, MCPPath)
	os.WriteFile(p, []byte(`{"mcpServers": {"beads": {"command": "bd", "args": ["mcp"]}}}`), 0o644)
	rep, err := WriteClaude(dir)
	if err != nil || !rep.MCPChanged || rep.MCP != p {
		t.Fatalf("WriteClaude = %+v, %v; want .mcp.json changed", rep, err)
	}
	b, _ := os.ReadFile(p)
	var v struct{ MCPServers map[string]any }
	json.Unmarshal(b, &v)
	if v.MCPServers["beads"] == nil || v.MCPServers["proofloop"] == nil {
		t.Errorf(".mcp.json after WriteClaude:\n%s\nwant beads kept and proofloop added", b)
	}
	if rep, err := WriteClaude(dir); err != nil || rep.MCPChanged {
		t.Errorf("WriteClaude again: %+v, %v; want .mcp.json unchanged", rep, err)
	}
	bad := t.TempDir()
	os.WriteFile(filepath.Join(bad, MCPPath), []byte(`{"mcpServers": 1}`), 0o644)
	if _, err := WriteClaude(bad); err == nil {
		t.Errorf("WriteClaude with a bad .mcp.json succeeded; want a refusal")
	}
	if _, err := os.Stat(filepath.Join(bad, ".claude")); err == nil {
		t.Errorf("the refused WriteClaude wrote .claude/")
	}
}
