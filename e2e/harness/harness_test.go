// Package harness drives a whole small proof through the real Claude Code
// CLI: `proofloop run` starts `claude -p` for each turn, as the docs tell
// users to configure it, against a scripted model on 127.0.0.1 (see
// model_test.go), in a fresh HOME with no other network. It checks what
// the model was shown, what it was allowed to run, and what the store
// holds at the end.
package harness

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/proofloop/proofloop/internal/claudecode"
	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/skills"
)

// bin is the proofloop binary that TestMain builds once.
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "proofloop-harness-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "harness:", err)
		os.Exit(1)
	}
	bin = filepath.Join(dir, "proofloop")
	build := exec.Command("go", "build", "-o", bin, "github.com/proofloop/proofloop/cmd/proofloop")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "harness: building proofloop:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// project is a proof project in a temp folder, with the environment that
// the harness runs in.
type project struct {
	t   *testing.T
	dir string
	env []string
}

// pl runs proofloop in the project and returns its stdout; it fails the
// test unless proofloop exits 0.
func (p *project) pl(args ...string) []byte {
	p.t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Env = p.dir, p.env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		p.t.Fatalf("proofloop %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.Bytes())
	}
	return out
}

// doc reads a document as proofloop show --json prints it.
func (p *project) doc(id string) map[string]any {
	p.t.Helper()
	var res struct{ Document map[string]any }
	if err := json.Unmarshal(p.pl("show", id, "--json"), &res); err != nil {
		p.t.Fatal(err)
	}
	return res.Document
}

// newProject makes a project with gen-claude's files and one problem, in
// a fresh HOME whose only reachable endpoint is the scripted model.
func newProject(t *testing.T, claude string, ep *endpoint) *project {
	p := &project{t: t, dir: t.TempDir()}
	path := filepath.Dir(claude) + string(os.PathListSeparator) + filepath.Dir(bin) + string(os.PathListSeparator) + os.Getenv("PATH")
	p.env = claudecode.Env(t.TempDir(), ep.URL, "PATH="+path)
	p.pl("init")
	p.pl("gen-claude")
	p.pl("new-problem", "--name", "even_sum", "--objective", "If a and b are even integers, then a + b is even.",
		"--hypothesis", "a and b are even integers")
	return p
}

// TestUntrustedFolderIgnoresSettings shows why the agent command carries
// --allowedTools: without it, in a folder nobody trusted, Claude Code
// ignores the Bash(proofloop:*) permission that gen-claude wrote into
// .claude/settings.json and denies the agent's first proofloop call.
func TestUntrustedFolderIgnoresSettings(t *testing.T) {
	claude := claudecode.Require(t)
	ep := startEndpoint(t, decide)
	p := newProject(t, claude, ep)
	settings, err := os.ReadFile(filepath.Join(p.dir, ".claude", "settings.json"))
	if err != nil || !strings.Contains(string(settings), `"Bash(proofloop:*)"`) {
		t.Fatalf(".claude/settings.json does not allow Bash(proofloop:*): %v\n%s", err, settings)
	}
	cmd := exec.Command(claude, "-p", "--output-format=json", "--agent", "agent-solve", "Take the solve turn on prob_even_sum.")
	cmd.Dir = p.dir
	cmd.Env = append(p.env, "PROOFLOOP_ROLE=solve", "PROOFLOOP_ID=prob_even_sum")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("claude -p: %v\n%s", err, out)
	}
	var res struct {
		Denials []struct {
			ToolInput map[string]any `json:"tool_input"`
		} `json:"permission_denials"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("claude -p printed no result object: %v\n%s", err, out)
	}
	if len(res.Denials) != 1 || !strings.HasPrefix(fmt.Sprint(res.Denials[0].ToolInput["command"]), "proofloop show prob_even_sum") {
		t.Errorf("permission_denials %+v; want the agent's first call, proofloop show prob_even_sum, denied", res.Denials)
	}
	if doc := p.doc("prob_even_sum"); doc["revision"] != 1.0 {
		t.Errorf("prob_even_sum is at revision %v; want 1: nothing may have changed", doc["revision"])
	}
}

func TestRealClaudeCodeSolvesAProof(t *testing.T) {
	claude := claudecode.Require(t)
	ep := startEndpoint(t, decide)
	p := newProject(t, claude, ep)
	for _, r := range skills.ClaudeRoles {
		p.pl("config", "set", "agents."+string(r), skills.ClaudeAgentCommand(r))
	}

	start := time.Now()
	cmd := exec.Command(bin, "run", "--max-turns", "12", "--turn-timeout", "1m")
	cmd.Dir, cmd.Env = p.dir, p.env
	out, err := cmd.CombinedOutput()
	t.Logf("proofloop run through Claude Code %s: %s, %s", claudecode.Version, time.Since(start).Round(time.Millisecond), ep.sizes())
	if err != nil {
		t.Fatalf("proofloop run: %v\n%s%s", err, out, p.turnLogs())
	}

	t.Run("store", func(t *testing.T) { p.checkStore(t) })
	t.Run("actors", func(t *testing.T) { p.checkActors(t) })
	reqs := ep.all()
	t.Run("shown", func(t *testing.T) { p.checkShown(t, reqs) })
	t.Run("permissions", func(t *testing.T) { p.checkPermissions(t, reqs) })
	t.Run("refusal", func(t *testing.T) { checkRecovery(t, reqs) })
	t.Run("prime only", func(t *testing.T) { p.checkPrimeOnly(t, reqs) })
	t.Run("cost", func(t *testing.T) { p.checkCost(t, len(logsOf(p))) })
	if t.Failed() {
		t.Logf("run output:\n%s\n%s", out, p.turnLogs())
	}
}

// turnLogs is every turn's log of the run, for a failure message.
func (p *project) turnLogs() string {
	logs, _ := filepath.Glob(filepath.Join(p.dir, "contents", "runs", "*", "*.log"))
	var b strings.Builder
	for _, l := range logs {
		data, _ := os.ReadFile(l)
		fmt.Fprintf(&b, "--- %s\n%s\n", filepath.Base(l), data)
	}
	return b.String()
}

// logsOf lists the run's turn logs.
func logsOf(p *project) []string {
	logs, _ := filepath.Glob(filepath.Join(p.dir, "contents", "runs", "*", "*.log"))
	return logs
}

// checkCost: every turn's Claude Code result reported its usage (the
// scripted model answers 10 tokens in and 5 out, and Claude Code prices
// them), so status --cost has one turn per turn log, tokens and a cost.
func (p *project) checkCost(t *testing.T, turns int) {
	var res struct {
		Cost struct {
			Total struct {
				Turns        int     `json:"turns"`
				InputTokens  int64   `json:"input_tokens"`
				OutputTokens int64   `json:"output_tokens"`
				CostUSD      float64 `json:"cost_usd"`
			} `json:"total"`
		} `json:"cost"`
	}
	if err := json.Unmarshal(p.pl("status", "--cost", "--json"), &res); err != nil {
		t.Fatal(err)
	}
	if got := res.Cost.Total; got.Turns != turns || got.InputTokens <= 0 || got.OutputTokens <= 0 || got.CostUSD <= 0 {
		t.Errorf("status --cost total = %+v; want %d turns with tokens in and out and a cost above 0", got, turns)
	}
}

// checkStore: the problem is solved by its wrap-up statement, which is
// true after one rejection and one patch.
func (p *project) checkStore(t *testing.T) {
	prob, stmt := p.doc("prob_even_sum"), p.doc("stmt_even_sum_wrap")
	if prob["status"] != "solved" || prob["resolved_by"] != "stmt_even_sum_wrap" {
		t.Errorf("prob_even_sum: status %v, resolved_by %v; want solved by stmt_even_sum_wrap", prob["status"], prob["resolved_by"])
	}
	if stmt["status"] != "true" || !strings.Contains(fmt.Sprint(stmt["proof"]), patchText) {
		t.Errorf("stmt_even_sum_wrap: status %v, proof %q; want true, with the patched sentence", stmt["status"], stmt["proof"])
	}
	v, _ := stmt["validate"].(map[string]any)
	issues, _ := v["issues"].([]any)
	responses, _ := v["responses"].([]any)
	if len(issues) != 1 || len(responses) != 1 {
		t.Fatalf("stmt_even_sum_wrap has %d issues and %d responses; want 1 and 1", len(issues), len(responses))
	}
	is, _ := issues[0].(map[string]any)
	r, _ := responses[0].(map[string]any)
	if is["sentence"] != 3.0 || is["sentence_text"] != gapText || r["type"] != "patch" || !slices.Contains(toList(r["issue_addressed"]), 1) {
		t.Errorf("issue %v and response %v; want issue 1 at sentence 3 (%q), answered by a patch", is, r, gapText)
	}
}

// checkActors: each change was made by an agent of the right role, under
// the name run gave it.
func (p *project) checkActors(t *testing.T) {
	var res struct {
		Events []struct{ Actor, Command string }
	}
	if err := json.Unmarshal(p.pl("events", "--json"), &res); err != nil {
		t.Fatal(err)
	}
	role := map[string]string{"prob-wrapup-statement": "solve", "state-complete-proof": "prove", "check-reject-proof": "check",
		"fix-patch-proof": "fix", "check-confirm-proof": "check", "prob-finish-up": "solve"}
	var seen []string
	for _, e := range res.Events {
		r, ok := role[e.Command]
		if !ok {
			continue
		}
		seen = append(seen, e.Command)
		if !strings.HasPrefix(e.Actor, r+"-") {
			t.Errorf("event %s by %q; want an actor of run's %s agent (%s-N)", e.Command, e.Actor, r, r)
		}
	}
	want := []string{"prob-wrapup-statement", "state-complete-proof", "check-reject-proof", "fix-patch-proof", "check-confirm-proof", "prob-finish-up"}
	if !slices.Equal(seen, want) {
		t.Errorf("skill events %v; want %v", seen, want)
	}
}

// checkShown: each turn's session ran as its role's agent (the agent
// file is its system prompt, and it was offered the file's tools and no
// others: no Write, Edit, web or subagents), and it opened with prime's
// output for its item (the SessionStart hook), which lists the role's
// skills.
func (p *project) checkShown(t *testing.T, reqs []*request) {
	var sessions []string
	for _, r := range reqs {
		c := read(r)
		if c.ID == "" || len(c.Calls) > 0 {
			continue // a session's first request says it all
		}
		sessions = append(sessions, c.Role)
		body := agentBody(t, filepath.Join(p.dir, ".claude", "agents", "agent-"+c.Role+".md"))
		if !strings.Contains(r.systemText(), body) {
			t.Errorf("the %s session's system prompt lacks its agent file's first line %q", c.Role, body)
		}
		var tools []string
		for _, tool := range r.Tools {
			tools = append(tools, tool.Name)
		}
		if slices.Sort(tools); !slices.Equal(tools, []string{"Bash", "Read"}) {
			t.Errorf("the %s session was offered the tools %v; want exactly [Bash Read], the agent file's", c.Role, tools)
		}
		hook := sessionStart(r)
		if !strings.Contains(hook, c.ID) {
			t.Errorf("the %s session on %s did not get `proofloop prime --id %s` from the SessionStart hook; it got:\n%s", c.Role, c.ID, c.ID, hook)
		}
		if !slices.ContainsFunc(skills.ForRole(model.Role(c.Role)), func(sk *skills.Skill) bool { return strings.Contains(hook, sk.Name) }) {
			t.Errorf("the %s session's SessionStart output names none of the role's skills:\n%s", c.Role, hook)
		}
	}
	if want := []string{"solve", "prove", "check", "fix", "check", "solve"}; !slices.Equal(sessions, want) {
		t.Errorf("sessions %v; want %v", sessions, want)
	}
}

// checkPermissions: every proofloop call ran (its result is proofloop's
// JSON), the foreign command was refused by Claude Code, and the CLI's own
// account (permission_denials in each turn's --output-format=json result)
// names that command and nothing else.
func (p *project) checkPermissions(t *testing.T, reqs []*request) {
	proofloopCalls, foreign := 0, 0
	for _, c := range finalCalls(reqs) {
		cmd := c.command()
		switch {
		case strings.HasPrefix(cmd, "proofloop "):
			proofloopCalls++
			if res := c.result(); res == nil || res["command"] == nil {
				t.Errorf("%s was not run: its result is %q", cmd, c.Result)
			}
		case cmd == foreignCmd:
			foreign++
			if !c.IsError || strings.Contains(c.Result, "root:") {
				t.Errorf("%s was allowed: error %v, result %q", cmd, c.IsError, c.Result)
			}
		default:
			if c.Tool == "Bash" {
				t.Errorf("the model ran %q, which it never means to", cmd)
			}
		}
	}
	if proofloopCalls < 10 || foreign != 1 {
		t.Errorf("%d proofloop calls and %d tries of %q; want at least 10 and 1", proofloopCalls, foreign, foreignCmd)
	}
	var denied []string
	logs, _ := filepath.Glob(filepath.Join(p.dir, "contents", "runs", "*", "*.log"))
	results := 0
	for _, l := range logs {
		data, _ := os.ReadFile(l)
		for _, line := range strings.Split(string(data), "\n") {
			var res struct {
				Type    string
				Denials []struct {
					ToolName  string         `json:"tool_name"`
					ToolInput map[string]any `json:"tool_input"`
				} `json:"permission_denials"`
			}
			if json.Unmarshal([]byte(line), &res) != nil || res.Type != "result" {
				continue
			}
			results++
			for _, d := range res.Denials {
				denied = append(denied, fmt.Sprintf("%s %v", d.ToolName, d.ToolInput["command"]))
			}
		}
	}
	if want := []string{"Bash " + foreignCmd}; results != 6 || !slices.Equal(denied, want) {
		t.Errorf("%d turn results deny %q; want 6 results denying %q", results, denied, want)
	}
}

// checkRecovery: exactly one proofloop call was refused, with a hint, and
// the model got the skill through by following the hint.
func checkRecovery(t *testing.T, reqs []*request) {
	calls := finalCalls(reqs)
	refused := 0
	for i, c := range calls {
		res := c.result()
		if res == nil || res["ok"] != false || skillCall(c.command()) == "" {
			continue
		}
		if refused++; refused > 1 {
			t.Errorf("%s was refused too: %s; want one refusal, the deliberate one", c.command(), c.Result)
			continue
		}
		e, _ := res["error"].(map[string]any)
		t.Logf("refused: %s\n  -> %v", c.command(), e)
		if h, _ := e["hint"].(string); h == "" {
			t.Errorf("%s was refused (%v) without a hint", c.command(), e["code"])
		}
		recovered := slices.ContainsFunc(calls[i+1:], func(next call) bool {
			r := next.result()
			return skillCall(next.command()) == skillCall(c.command()) && r != nil && r["ok"] == true
		})
		if !recovered {
			t.Errorf("the model did not recover from the refusal of %s", c.command())
		}
	}
	if refused == 0 {
		t.Errorf("no proofloop call was refused; the model should have met a refusal and followed its hint")
	}
}

// checkPrimeOnly: each check and fix session acted on the SessionStart
// hook's `prime --id` alone (issue 22, item 5). It made one skill call and
// nothing else: no proofloop read (show, list, status, prime, ...), no
// other tool; only after a refusal, the command the refusal's hint named
// and the retry. And the sentence it cited is the one prime numbered so,
// which is the store's numbering: the issue recorded cites it, and the
// patch replaces it.
func (p *project) checkPrimeOnly(t *testing.T, reqs []*request) {
	issues := map[int]map[string]any{}
	v, _ := p.doc("stmt_even_sum_wrap")["validate"].(map[string]any)
	list, _ := v["issues"].([]any)
	for _, x := range list {
		is, _ := x.(map[string]any)
		n, _ := is["issue_number"].(float64)
		issues[int(n)] = is
	}
	var roles []string
	for _, s := range sessions(reqs) {
		if s.Role != "check" && s.Role != "fix" {
			continue
		}
		roles = append(roles, s.Role)
		var acts []call
		for i, k := range s.Calls {
			switch {
			case k.Tool == "Bash" && skillCall(k.command()) != "":
				acts = append(acts, k)
			case k.Tool == "Bash" && i > 0 && hintNamed(s.Calls[i-1], k.command()):
				// The refusal's hint named it: the recovery.
			default:
				t.Errorf("the %s session on %s called %s %q; prime --id should have given it all it needs:\n%s",
					s.Role, s.ID, k.Tool, k.command(), s.Prime)
			}
		}
		first := len(acts) > 0 && acts[0].result()["ok"] == true
		if len(acts) == 0 || (first && len(acts) != 1) || (!first && len(acts) != 2) || acts[len(acts)-1].result()["ok"] != true {
			var cmds []string
			for _, a := range acts {
				cmds = append(cmds, a.command())
			}
			t.Errorf("the %s session on %s made the skill calls %q; want one that is done, or a refused one and its retry", s.Role, s.ID, cmds)
			continue
		}
		b, cmd := primed(s.Prime), acts[len(acts)-1].command()
		switch skillCall(cmd) {
		case "check-reject-proof":
			n := flagInt(cmd, "--sentence-number")
			if b.Sentences[n] != gapText || issues[1]["sentence"] != float64(n) || issues[1]["sentence_text"] != gapText {
				t.Errorf("the check cited sentence %d, which prime numbers %q, and the store's issue 1 cites sentence %v (%q); want %q at one number in both",
					n, b.Sentences[n], issues[1]["sentence"], issues[1]["sentence_text"], gapText)
			}
		case "fix-patch-proof":
			n, at := flagInt(cmd, "--issue-number"), flagInt(cmd, "--sentence-range")
			if !slices.Contains(b.Issues, issue{Number: n, Sentence: at}) || issues[n]["sentence"] != float64(at) || b.Sentences[at] != issues[n]["sentence_text"] {
				t.Errorf("the fix patched sentence %d for issue %d; prime showed the issues %v over the sentences %v, and the store's issue %d cites %v (%q)",
					at, n, b.Issues, b.Sentences, n, issues[n]["sentence"], issues[n]["sentence_text"])
			}
		}
	}
	if want := []string{"check", "fix", "check"}; !slices.Equal(roles, want) {
		t.Errorf("check and fix sessions %v; want %v", roles, want)
	}
}

// flagInt is the number a command line gives a flag, or -1.
func flagInt(cmd, flag string) int {
	m := regexp.MustCompile(regexp.QuoteMeta(flag) + ` (\d+)`).FindStringSubmatch(cmd)
	if m == nil {
		return -1
	}
	n, _ := strconv.Atoi(m[1])
	return n
}
