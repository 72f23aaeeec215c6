package skills

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/tidwall/pretty"
	"github.com/tidwall/sjson"

	"github.com/proofloop/proofloop/store"
)

// .mcp.json is Claude Code's project file of MCP servers. `gen-claude
// --mcp` adds the proofloop server to it and, as with settings.json, keeps
// every other server and key: only mcpServers.proofloop is proofloop's. It
// is opt-in: a server's tool schemas are loaded into every turn of every
// session, also the turns that work through Bash.
//
//	{"mcpServers": {"proofloop": {"type": "stdio", "command": "proofloop", "args": ["mcp"]}}}

// MCPPath is where Claude Code reads a project's MCP servers.
const MCPPath = ".mcp.json"

// MCPServer is proofloop's entry: `proofloop mcp` over stdio, on the
// project's contents root ($PROOFLOOP_ROOT, else ./contents).
var MCPServer = map[string]any{"type": "stdio", "command": "proofloop", "args": []string{"mcp"}}

// WriteMCP merges proofloop's server into dir/.mcp.json (MergeMCP) and
// returns the file's path and whether it changed.
func WriteMCP(dir string) (string, bool, error) {
	p := filepath.Join(dir, MCPPath)
	old, err := os.ReadFile(p)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return p, false, err
	}
	data, changed, err := MergeMCP(old)
	if err != nil {
		return p, false, store.Errorf(store.CodeInvalidInput, "cannot add proofloop's server to %s", p).Wrap(err).
			WithHint("fix the file by hand (it must be a JSON object) and run gen-claude --mcp again")
	}
	if changed {
		if err := writeFile(p, data); err != nil {
			return p, false, err
		}
	}
	return p, changed, nil
}

// HasMCP reports whether dir/.mcp.json names the proofloop server.
func HasMCP(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, MCPPath))
	return err == nil && gjson.GetBytes(b, "mcpServers.proofloop").Exists()
}

// MergeMCP sets mcpServers.proofloop in the content of an .mcp.json (empty
// when there is none yet) and reports whether that changed anything. Every
// other server and key stays. A file that is not a JSON object, or whose
// mcpServers is not an object, is refused rather than overwritten.
func MergeMCP(old []byte) ([]byte, bool, error) {
	doc := bytes.TrimSpace(old)
	if len(doc) == 0 {
		doc = []byte("{}")
	}
	if !json.Valid(doc) || !gjson.ParseBytes(doc).IsObject() {
		return nil, false, fmt.Errorf("%s is not a JSON object", MCPPath)
	}
	if v := gjson.GetBytes(doc, "mcpServers"); v.Exists() && !v.IsObject() {
		return nil, false, fmt.Errorf("%s: mcpServers is %s, not an object", MCPPath, kindOf(v))
	}
	want, _ := json.Marshal(MCPServer)
	if have := gjson.GetBytes(doc, "mcpServers.proofloop"); have.Exists() && sameJSON(have.Raw, string(want)) {
		return old, false, nil
	}
	doc, err := sjson.SetRawBytes(doc, "mcpServers.proofloop", want)
	if err != nil {
		return nil, false, err
	}
	return pretty.Pretty(doc), true, nil
}

// sameJSON reports whether two JSON texts hold the same value.
func sameJSON(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return bytes.Equal(xb, yb)
}

// MCPLoopTools are the MCP tools of the loop commands an agent of any role
// uses; the agent files allow them (as mcp__proofloop__<tool>) beside the
// role's skills, so a subagent can work through the server as well as Bash.
var MCPLoopTools = []string{"prime", "next", "claim", "refresh", "release", "show", "status"}

// AgentTools is the tools line of the agent file of a role.
func AgentTools(skills []string) string {
	tools := []string{"Bash", "Read"}
	for _, t := range MCPLoopTools {
		tools = append(tools, "mcp__proofloop__"+t)
	}
	for _, s := range skills {
		tools = append(tools, "mcp__proofloop__"+ToolName(s))
	}
	return strings.Join(tools, ", ")
}

// ToolName is the MCP tool of a command or skill: its name in snake_case
// (prob-finish-up is prob_finish_up, new-problem is new_problem).
func ToolName(command string) string {
	return strings.NewReplacer("-", "_", " ", "_").Replace(command)
}
