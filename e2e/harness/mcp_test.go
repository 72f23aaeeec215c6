package harness

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/proofloop/proofloop/internal/claudecode"
	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/skills"
)

// TestMCPScopedInClaudeCode checks issue 22 item 7 in the real CLI: after
// plain gen-claude a session carries no proofloop tool schema (MCP is
// opt-in); after gen-claude --mcp, a session of the check role
// ($PROOFLOOP_ROLE, as run sets it) is offered exactly the check tools;
// and a tool result reaches the model once, as the structured JSON, with
// hints that name tools.
func TestMCPScopedInClaudeCode(t *testing.T) {
	claude := claudecode.Require(t)
	ep := startEndpoint(t, mcpModel)
	p := newProject(t, claude, ep)
	// session runs one claude -p in a check session, with the project's
	// .mcp.json when there is one, and returns the requests it made and
	// the bytes of its largest request with tools and no tool call yet.
	session := func(prompt string) ([]*request, int) {
		t.Helper()
		before := len(ep.all())
		args := []string{"-p", "--output-format=json", "--allowedTools=mcp__proofloop__show,mcp__proofloop__status"}
		if _, err := os.Stat(filepath.Join(p.dir, ".mcp.json")); err == nil {
			args = append(args, "--mcp-config=.mcp.json") // -p in an untrusted folder reads it only so
		}
		cmd := exec.Command(claude, append(args, prompt)...)
		cmd.Dir = p.dir
		cmd.Env = append(p.env, "PROOFLOOP_ROLE=check")
		if out, err := cmd.Output(); err != nil {
			t.Fatalf("claude -p: %v\n%s", err, out)
		}
		ep.mu.Lock()
		first := 0
		for _, raw := range ep.raw[before:] {
			if r := new(request); json.Unmarshal(raw, r) == nil && len(r.Tools) > 0 && len(read(r).Calls) == 0 {
				first = max(first, len(raw))
			}
		}
		ep.mu.Unlock()
		return ep.all()[before:], first
	}
	proofloopTools := func(reqs []*request) []string {
		var out []string
		for _, r := range reqs {
			for _, tl := range r.Tools {
				if name, ok := strings.CutPrefix(tl.Name, "mcp__proofloop__"); ok && !slices.Contains(out, name) {
					out = append(out, name)
				}
			}
		}
		slices.Sort(out)
		return out
	}

	// Plain gen-claude (newProject ran it): no .mcp.json, so no request
	// carries a proofloop tool.
	reqs, bashOnly := session("Say hello.")
	if got := proofloopTools(reqs); len(got) != 0 {
		t.Errorf("after plain gen-claude the model was offered proofloop tools %v; want none", got)
	}

	// gen-claude --mcp, a check session: the check tools only.
	p.pl("gen-claude", "--mcp")
	reqs, withMCP := session("Show me prob_even_sum through the proofloop tools.")
	want := slices.Clone(skills.MCPLoopTools)
	for _, sk := range skills.ForRole(model.RoleCheck) {
		want = append(want, skills.ToolName(sk.Name))
	}
	slices.Sort(want)
	if got := proofloopTools(reqs); !slices.Equal(got, want) {
		t.Errorf("a check session was offered the proofloop tools %v; want %v", got, want)
	}

	// The model called show, then show of an id that does not exist: the
	// results it read are the structured JSON, once, and the refusal's hint
	// names a tool, not a shell command.
	var results []call
	for _, r := range reqs {
		for _, c := range read(r).Calls {
			if c.Done && strings.HasPrefix(c.Tool, "mcp__proofloop__") && !slices.ContainsFunc(results, func(x call) bool { return x.ID == c.ID }) {
				results = append(results, c)
			}
		}
	}
	if len(results) != 2 {
		t.Fatalf("the model read %d proofloop tool results; want 2 (show, then a refused show)", len(results))
	}
	var shown map[string]any
	if err := json.Unmarshal([]byte(results[0].Result), &shown); err != nil || shown["id"] != "prob_even_sum" {
		t.Errorf("show's result as the model read it = %q (%v); want the structured JSON alone", results[0].Result, err)
	}
	if n := strings.Count(results[0].Result, "If a and b are even integers"); n != 1 {
		t.Errorf("show's result holds the objective %d times; want once:\n%s", n, results[0].Result)
	}
	refused := results[1].Result
	if !strings.Contains(refused, "not_found") || strings.Contains(refused, "proofloop status") || !strings.Contains(refused, "the tool status") {
		t.Errorf("the refused show as the model read it = %q; want not_found with a hint naming the tool status", refused)
	}
	t.Logf("a session's first request: %d bytes without MCP, %d with the check tools; show's result: %d bytes",
		bashOnly, withMCP, len(results[0].Result))
}

// mcpModel asks for show over MCP, then for show of a missing id, then ends.
func mcpModel(r *request) reply {
	c := read(r)
	if !strings.Contains(c.Prompt, "proofloop tools") {
		return done("Hello.")
	}
	switch len(c.Calls) {
	case 0:
		return reply{Tool: "mcp__proofloop__show", Input: map[string]any{"ids": []string{"prob_even_sum"}}}
	case 1:
		return reply{Tool: "mcp__proofloop__show", Input: map[string]any{"ids": []string{"prob_even_su"}}}
	}
	return done("I read it.")
}
