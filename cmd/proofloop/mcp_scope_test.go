//go:build !lean

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/skills"
)

// listTools returns the names of tools/list and the bytes of its result.
func listTools(t *testing.T, cs *mcp.ClientSession) ([]string, int) {
	t.Helper()
	res, err := cs.ListTools(testCtx(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	b, _ := json.Marshal(res)
	slices.Sort(names)
	return names, len(b)
}

// TestMCPRoleScope: `mcp --role check` offers the check skills and the loop
// tools and nothing else (at most 15: the formal track's three are check
// skills too; and a third of the schemas of the
// whole server); no server offers an admin or host tool, the bare debate
// group, or release's force.
func TestMCPRoleScope(t *testing.T) {
	root := newRoot(t)
	all, allBytes := listTools(t, connect(t, root, nil))
	for _, admin := range []string{"db_migrate", "db", "import", "debate", "doctor", "config_set", "export", "report", "serve", "run", "init"} {
		if slices.Contains(all, admin) {
			t.Errorf("tools/list has %s; an admin or host command is never a tool", admin)
		}
	}
	check, checkBytes := listTools(t, connect(t, root, nil, "--role", "check"))
	want := slices.Clone(skills.MCPLoopTools)
	for _, sk := range skills.ForRole(model.RoleCheck) {
		want = append(want, skills.ToolName(sk.Name))
	}
	slices.Sort(want)
	if !slices.Equal(check, want) {
		t.Errorf("mcp --role check tools = %v; want %v", check, want)
	}
	if len(check) > 15 {
		t.Errorf("mcp --role check has %d tools; want at most 15", len(check))
	}
	if checkBytes*3 > allBytes {
		t.Errorf("mcp --role check tools/list is %d bytes, the whole server's %d; want at most a third", checkBytes, allBytes)
	}
	t.Logf("tools/list: %d tools, %d bytes; --role check: %d tools, %d bytes", len(all), allBytes, len(check), checkBytes)
	// docs/mcp.md states these figures: the tool counts exactly, the sizes
	// within a KB (1,024 bytes), so a help text edited does not fail it
	// but a tool added or a schema grown does.
	doc, err := os.ReadFile(filepath.Join(repoTop, "docs", "mcp.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("`--role check` is (\\d+) tools and\\s+(\\d+) KB of `tools/list`, against (\\d+) tools and (\\d+) KB\\s+without a role").FindSubmatch(doc)
	if m == nil {
		t.Fatalf("docs/mcp.md does not say \"`--role check` is N tools and K KB of `tools/list`, against N tools and K KB without a role\"")
	}
	kb := func(n int) int { return (n + 512) / 1024 }
	n := func(b []byte) int { v, _ := strconv.Atoi(string(b)); return v }
	if n(m[1]) != len(check) || n(m[3]) != len(all) || abs(n(m[2])-kb(checkBytes)) > 1 || abs(n(m[4])-kb(allBytes)) > 1 {
		t.Errorf("docs/mcp.md says --role check is %s tools and %s KB, all %s tools and %s KB; measured %d tools and %d KB, %d tools and %d KB",
			m[1], m[2], m[3], m[4], len(check), kb(checkBytes), len(all), kb(allBytes))
	}
	res, err := connect(t, root, nil, "--role", "check").ListTools(testCtx(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range res.Tools {
		if tl.Name != "release" {
			continue
		}
		if _, ok := tl.InputSchema.(map[string]any)["properties"].(map[string]any)["force"]; ok {
			t.Errorf("release offers force; ending another's lease is not a tool")
		}
	}
	// Nor does a call: force is no argument of release.
	if code, _, stderr := mcpCLI(t, root, "new-problem", "--name", "lease", "--objective", "Show it."); code != 0 {
		t.Fatal(stderr)
	}
	if code, _, stderr := mcpCLI(t, root, "claim", "prob_lease", "--role", "solve", "--holder", "other"); code != 0 {
		t.Fatal(stderr)
	}
	res2, obj := call(t, connect(t, root, nil), "release", map[string]any{"id": "prob_lease", "force": true})
	if !res2.IsError || errorCode(obj) != "invalid_input" {
		t.Errorf("release with force = %v; want invalid_input, the lease kept", obj)
	}
	if code, _, _ := mcpCLI(t, root, "claim", "prob_lease", "--role", "solve", "--holder", "third"); code != 5 {
		t.Errorf("claim of prob_lease after release with force: exit %d; want 5, the lease kept", code)
	}
	// A role's server has the role's prompt alone.
	prompts, err := connect(t, root, nil, "--role", "check").ListPrompts(testCtx(t), nil)
	if err != nil || len(prompts.Prompts) != 1 || prompts.Prompts[0].Name != "check" {
		t.Errorf("mcp --role check prompts = %+v, %v; want the check prompt alone", prompts, err)
	}
	// A debate role gets the debate tools in place of skills.
	part, _ := listTools(t, connect(t, root, nil, "--role", "participant"))
	if !slices.Contains(part, "debate_turn") || slices.Contains(part, "check_reject_proof") {
		t.Errorf("mcp --role participant tools = %v; want debate_turn and no skill", part)
	}
	// run's sessions have $PROOFLOOP_ROLE: it is the default of --role.
	envCmd := exec.Command(cliBin(t), "mcp", "--root", root)
	envCmd.Env = append(cliEnv(), "PROOFLOOP_ROLE=check")
	envCS, err := mcp.NewClient(&mcp.Implementation{Name: "env", Version: "1"}, nil).Connect(testCtx(t), &mcp.CommandTransport{Command: envCmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer envCS.Close()
	if got, _ := listTools(t, envCS); !slices.Equal(got, want) {
		t.Errorf("mcp with PROOFLOOP_ROLE=check tools = %v; want %v", got, want)
	}
	// An unknown role is refused before the server starts.
	cmd := exec.Command(cliBin(t), "mcp", "--root", root, "--role", "chekc")
	cmd.Env = cliEnv()
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), "role") {
		t.Errorf("mcp --role chekc: %v, %s; want exit 2 naming the role", err, out)
	}
}

// TestMCPResultOnce: a tool result carries its data once: the structured
// content, and one short line of text (no second copy of the JSON, no
// plain rendering of the document).
func TestMCPResultOnce(t *testing.T) {
	root := newRoot(t)
	claim := "Every natural number greater than one has a prime factor, which this test looks for."
	if code, _, stderr := mcpCLI(t, root, "new-problem", "--name", "once", "--objective", "Show it."); code != 0 {
		t.Fatalf("new-problem: %s", stderr)
	}
	if code, _, stderr := mcpCLI(t, root, "prob-wrapup-statement", "--problem-path", "prob_once", "--claim", claim, "--purpose", "p"); code != 0 {
		t.Fatalf("wrapup: %s", stderr)
	}
	cs := connect(t, root, nil)
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"show", map[string]any{"ids": []string{"stmt_once_wrap"}}},
		{"status", map[string]any{}},
		{"claim", map[string]any{"id": "stmt_once_wrap", "role": "prove", "holder": "p"}},
		{"show", map[string]any{"ids": []string{"stmt_nope"}}},
	} {
		res, obj := call(t, cs, c.tool, c.args)
		if len(res.Content) != 1 {
			t.Errorf("%s: %d content blocks; want one line of text beside the structured content", c.tool, len(res.Content))
			continue
		}
		text := res.Content[0].(*mcp.TextContent).Text
		sc, _ := json.Marshal(obj)
		if strings.Contains(text, "\n") || len(text) > 300 || strings.Contains(text, claim) || strings.Contains(text, `"ok":`) {
			t.Errorf("%s: text %q (%d bytes); want one line under 300 bytes, not the data again", c.tool, text, len(text))
		}
		all, _ := json.Marshal(res)
		if len(all) > len(sc)+len(text)+200 {
			t.Errorf("%s: result %d bytes for %d bytes of structured content; want the data once", c.tool, len(all), len(sc))
		}
	}
}

// TestMCPHintsNameTools: a refusal's hint names the tool to call, with its
// arguments, not a shell command; a command that is not a tool is left to
// the person who runs the project.
func TestMCPHintsNameTools(t *testing.T) {
	root := newRoot(t)
	cs := connect(t, root, nil)
	call(t, cs, "new_problem", map[string]any{"name": "hint", "objective": "Show it."})
	res, obj := call(t, cs, "new_problem", map[string]any{"name": "hint", "objective": "Again."})
	e, _ := obj["error"].(map[string]any)
	hint, _ := e["hint"].(string)
	text := res.Content[0].(*mcp.TextContent).Text
	if !res.IsError || strings.Contains(hint, "proofloop show") || !strings.Contains(hint, `the tool show with {"ids":["prob_hint"]}`) {
		t.Errorf("new_problem twice: hint %q; want it to name the tool show with its arguments", hint)
	}
	if strings.Contains(text, "proofloop show") || !strings.Contains(text, "the tool show") {
		t.Errorf("new_problem twice: text %q; want the tool named, not the command", text)
	}
	m := &mcpServer{tools: mcpTools((&app{}).rootCommand(), "")}
	for in, want := range map[string]string{
		"run `proofloop doctor --reindex`":                 "ask the person who runs the project to run `proofloop doctor --reindex`",
		"`proofloop doctor` checks":                        "`proofloop doctor` (a command for the person who runs the project) checks",
		"run `proofloop show stmt_x --sentences`":          `call the tool show with {"ids":["stmt_x"],"sentences":true}`,
		"`proofloop show stmt_x --sentences` numbers them": `the tool show with {"ids":["stmt_x"],"sentences":true} numbers them`,
		"`proofloop status` lists the documents":           "the tool status lists the documents",
		"allowed now: check-confirm-proof, reopen":         "allowed now: check_confirm_proof, reopen",
		"e.g. proofloop show stmt_example_wrap":            `e.g. the tool show with {"ids":["stmt_example_wrap"]}`,
		// A bare command with its arguments reads as a call, --help as the
		// tool's description, an integer flag as an integer (issue 22).
		"numbered as proofloop show ID --sentences prints them":                  `numbered as the tool show with {"ids":["ID"],"sentences":true} prints them`,
		"when its rule applies (`proofloop reopen --help`)":                      "when its rule applies (the description of the tool reopen)",
		"run `proofloop show stmt_x --proof-revision 2`":                         `call the tool show with {"ids":["stmt_x"],"proof_revision":2}`,
		"add --sentence-number, or give \"sentence_number\" in --input":          "add the argument sentence_number",
		"\"sentence_number\" in --input must be a positive integer, got \"two\"": `"sentence_number" must be a positive integer, got "two"`,
		"retry later; if no proofloop process is running":                        "retry later; if no proofloop process is running",
		"`proofloop next --role check --claim` takes one":                        `the tool next with {"claim":true,"role":"check"} takes one`,
		"run `proofloop debate turn ID --participant-id P`":                      `call the tool debate_turn with {"id":"ID","participant_id":"P"}`,
		"claim needs --holder NAME (e.g. --holder check-1)":                      "claim needs the argument holder NAME (e.g. the argument holder check-1)",
		"see --help for the flags":                                               "see the tool's input schema for its arguments",
		"pass your token (--lease TOKEN or $PROOFLOOP_LEASE)":                    "pass your token (the argument lease)",
	} {
		if got := m.toolHint(in); got != want {
			t.Errorf("toolHint(%q) = %q; want %q", in, got, want)
		}
	}
}

// TestGenClaudeMCPOptIn: gen-claude writes no .mcp.json (a Bash session
// then loads no tool schema); gen-claude --mcp adds the server, keeping
// the file's other servers.
func TestGenClaudeMCPOptIn(t *testing.T) {
	dir := t.TempDir()
	gen := func(extra ...string) map[string]any {
		t.Helper()
		cmd := exec.Command(cliBin(t), append([]string{"gen-claude", "--json", "--dir", dir}, extra...)...)
		cmd.Env = cliEnv()
		out, err := cmd.Output()
		var obj map[string]any
		if err != nil || json.Unmarshal(out, &obj) != nil {
			t.Fatalf("gen-claude %v: %v, %s", extra, err, out)
		}
		return obj["mcp"].(map[string]any)
	}
	if m := gen(); m["enabled"] != false || m["changed"] != false {
		t.Errorf("gen-claude: mcp = %v; want not enabled", m)
	}
	if _, err := os.Stat(filepath.Join(dir, ".mcp.json")); err == nil {
		t.Errorf("gen-claude wrote .mcp.json; MCP is opt-in (--mcp)")
	}
	os.WriteFile(filepath.Join(dir, ".mcp.json"), []byte(`{"mcpServers":{"beads":{"command":"bd"}}}`), 0o644)
	if m := gen("--mcp"); m["enabled"] != true || m["changed"] != true {
		t.Errorf("gen-claude --mcp: mcp = %v; want enabled and changed", m)
	}
	b, _ := os.ReadFile(filepath.Join(dir, ".mcp.json"))
	var v struct{ MCPServers map[string]map[string]any }
	if json.Unmarshal(b, &v) != nil || v.MCPServers["beads"] == nil || v.MCPServers["proofloop"]["command"] != "proofloop" {
		t.Errorf(".mcp.json after gen-claude --mcp:\n%s\nwant beads kept and proofloop added", b)
	}
	if m := gen(); m["enabled"] != true || m["changed"] != false {
		t.Errorf("gen-claude after --mcp: mcp = %v; want the server left as it is", m)
	}
}

// TestUsagePositionals: the arguments a tool takes come from its Use line;
// an argument offered as one of several forms, as `debate join`'s
// "(ID | --protocol P ...)", is optional and keeps its plain name.
func TestUsagePositionals(t *testing.T) {
	for _, tc := range []struct {
		use  string
		want []positional
	}{
		{"claim ID --role R", []positional{{name: "id", required: true}}},
		{"show ID... [--sentences]", []positional{{name: "ids", many: true, required: true}}},
		{"release [ID]", []positional{{name: "id"}}},
		{"join (ID | --protocol P --subject S) --participant-name NAME", []positional{{name: "id"}}},
	} {
		if got := usagePositionals(tc.use); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("usagePositionals(%q) = %+v; want %+v", tc.use, got, tc.want)
		}
	}
}

func abs(n int) int { return max(n, -n) }
