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

// TestWriteMCP: WriteClaude leaves .mcp.json alone (MCP is opt-in);
// WriteMCP adds the server to an existing .mcp.json and keeps its other
// servers; a second run changes nothing; a bad file is refused and left
// as it was.
func TestWriteMCP(t *testing.T) {
	dir := t.TempDir()
	if _, err := WriteClaude(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, MCPPath)); err == nil || HasMCP(dir) {
		t.Errorf("WriteClaude wrote %s; MCP must be opt-in", MCPPath)
	}
	p := filepath.Join(dir, MCPPath)
	os.WriteFile(p, []byte(`{"mcpServers": {"beads": {"command": "bd", "args": ["mcp"]}}}`), 0o644)
	got, changed, err := WriteMCP(dir)
	if err != nil || !changed || got != p {
		t.Fatalf("WriteMCP = %s, %v, %v; want %s changed", got, changed, err, p)
	}
	b, _ := os.ReadFile(p)
	var v struct{ MCPServers map[string]any }
	json.Unmarshal(b, &v)
	if v.MCPServers["beads"] == nil || v.MCPServers["proofloop"] == nil || !HasMCP(dir) {
		t.Errorf(".mcp.json after WriteMCP:\n%s\nwant beads kept and proofloop added", b)
	}
	if _, changed, err := WriteMCP(dir); err != nil || changed {
		t.Errorf("WriteMCP again: %v, %v; want .mcp.json unchanged", changed, err)
	}
	bad := t.TempDir()
	os.WriteFile(filepath.Join(bad, MCPPath), []byte(`{"mcpServers": 1}`), 0o644)
	if _, _, err := WriteMCP(bad); err == nil {
		t.Errorf("WriteMCP with a bad .mcp.json succeeded; want a refusal")
	}
	if b, _ := os.ReadFile(filepath.Join(bad, MCPPath)); string(b) != `{"mcpServers": 1}` {
		t.Errorf("the refused WriteMCP changed the file: %s", b)
	}
}
