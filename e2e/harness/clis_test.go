package harness

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/proofloop/proofloop/internal/claudecode"
)

// keepLogs, when set, is a folder the test copies each turn's log to: what
// each CLI printed, as loop/testdata/usage keeps it.
var keepLogs = flag.String("keep-logs", "", "copy each turn's log of TestRealCLIsCheckOneProof to this `folder`")

// The models of the three check agents, and the prices of the two whose
// output reports no cost, per million tokens.
var (
	cliModels = map[string]string{"claude": "claude-sonnet-4-5", "codex": "gpt-5", "gemini": "gemini-2.5-pro"}
	cliPrices = `{"gpt-5": {"input": 1.25, "cached_input": 0.125, "output": 10}, "gemini-2.5-pro": {"input": 2.5, "cached_input": 0.25, "output": 15}}`
)

// cliEndpoints are the three scripted endpoints of one project.
type cliEndpoints struct {
	claudeURL     string
	claude        *scripted // Claude Code's conversations, as claudeCheck read them
	codex, gemini *scripted
}

// TestRealCLIsCheckOneProof (issue 35, item 4): `proofloop run` drives one
// proof through three check agents, one per CLI (Claude Code, Codex,
// Gemini, each pinned and installed like Claude Code), with verify_quorum 3
// and verify_distinct model, configured from `proofloop gen --cli all`,
// against scripted endpoints on 127.0.0.1. Each CLI's scripted model tries
// a command that is no proofloop command and a chained `proofloop ... &&
// touch ...`, which the CLI's own permission mechanism must refuse. With
// broken endpoints, each agent is given up with its CLI's own error quoted,
// and the item's round budget is untouched. The two projects run at once.
func TestRealCLIsCheckOneProof(t *testing.T) {
	bins := []string{claudecode.Claude.Require(t), claudecode.Codex.Require(t), claudecode.Gemini.Require(t)}
	t.Run("confirmed", func(t *testing.T) {
		t.Parallel()
		ep := cliEndpoints{claude: &scripted{cli: "claude"}}
		ep.claudeURL = startEndpoint(t, claudeCheck("/etc/hostname", ep.claude)).URL
		ep.codex = startScripted(t, "codex", false, serveResponses)
		ep.gemini = startScripted(t, "gemini", false, serveGemini)
		p := newCLIProject(t, bins, ep, 3)
		start := time.Now()
		r := p.runJSON("run", "--problem", "prob_even_sum", "--turn-timeout", "3m", "--json")
		t.Logf("three check turns (Claude Code %s, Codex %s, Gemini %s) and a solve turn: %s", claudecode.Claude.Version,
			claudecode.Codex.Version, claudecode.Gemini.Version, time.Since(start).Round(time.Millisecond))
		for _, s := range []*scripted{ep.claude, ep.codex, ep.gemini} {
			n, largest := s.requests()
			t.Logf("%s: %d model requests, the largest %d bytes", s.cli, n, largest)
		}
		if r.code != 0 {
			t.Fatalf("run: exit %d\n%s\n%s", r.code, r.out, p.turnLogs())
		}
		p.keepLogs(t)
		t.Run("store", func(t *testing.T) { p.checkConfirmed(t) })
		t.Run("usage", func(t *testing.T) { p.checkUsage(t, ep) })
		t.Run("permissions", func(t *testing.T) { p.checkRefused(t, ep) })
		t.Run("instructions", func(t *testing.T) { p.checkInstructions(t, ep) })
		if t.Failed() {
			t.Logf("run output:\n%s\n%s", r.out, p.turnLogs())
		}
	})
	t.Run("broken endpoint", func(t *testing.T) {
		t.Parallel()
		ep := cliEndpoints{claudeURL: brokenClaude(t)}
		ep.codex = startScripted(t, "codex", true, serveResponses)
		ep.gemini = startScripted(t, "gemini", true, serveGemini)
		p := newCLIProject(t, bins, ep, 1)
		r := p.runJSON("run", "--problem", "prob_even_sum", "--turn-timeout", "3m", "--json")
		p.checkGivenUp(t, r)
		if t.Failed() {
			t.Logf("run output:\n%s\n%s", r.out, p.turnLogs())
		}
	})
}

// newCLIProject is a project set up from `proofloop gen --cli all`: the
// statement stmt_even_sum_wrap awaits verification (written by people),
// the check role has one agent per CLI (gen --list), a scripted solver
// finishes the problem, and the HOME reaches only the scripted endpoints.
func newCLIProject(t *testing.T, bins []string, ep cliEndpoints, maxFailures int) *project {
	p := &project{t: t, dir: t.TempDir()}
	home := t.TempDir()
	path := []string{filepath.Dir(bin)}
	for _, b := range bins {
		path = append(path, filepath.Dir(b))
	}
	p.env = claudecode.Env(home, ep.claudeURL, append(claudecode.OthersEnv(ep.gemini.URL),
		"PATH="+strings.Join(append(path, os.Getenv("PATH")), string(os.PathListSeparator)))...)
	if err := claudecode.WriteCodexHome(home, ep.codex.URL+"/v1"); err != nil {
		t.Fatal(err)
	}
	if err := claudecode.WriteGeminiHome(home); err != nil {
		t.Fatal(err)
	}
	p.pl("init")
	p.pl("gen", "--cli", "all")
	p.pl("new-problem", "--name", "even_sum", "--objective", "If a and b are even integers, then a + b is even.",
		"--hypothesis", "a and b are even integers", "--actor", "ada")
	p.pl("prob-wrapup-statement", "--problem-path", "prob_even_sum", "--claim", "If a and b are even integers, then a + b is even.",
		"--premises", "a and b are even integers", "--purpose", "It is the objective.", "--actor", "ada")
	p.pl("state-complete-proof", "--statement-path", "stmt_even_sum_wrap", "--strategy", "direct", "--proof-text", patchedProof, "--actor", "bob")
	list := strings.TrimSpace(string(p.pl("gen", "--cli", "all", "--list", "check",
		"--model", "claude="+cliModels["claude"], "--model", "codex="+cliModels["codex"], "--model", "gemini="+cliModels["gemini"])))
	for _, kv := range [][2]string{{"verify_quorum", "3"}, {"verify_distinct", "model"}, {"prices", cliPrices},
		{"max_agent_failures", fmt.Sprint(maxFailures)}, {"agents.check", list},
		{"agents.solve", "proofloop prob-finish-up --problem-path $PROOFLOOP_ID --key-statement-id stmt_even_sum_wrap --resolution 'The statement is the objective.'"}} {
		p.pl("config", "set", kv[0], kv[1])
	}
	return p
}

// patchedProof is a proof with no gap: every checker confirms it.
const patchedProof = "Write a = 2k and b = 2m for integers k and m. Then a + b = 2k + 2m. " + patchText

// runOut is a finished proofloop run.
type runOut struct {
	code int
	out  string // stdout, then stderr
	last map[string]any
}

// runJSON runs proofloop to its end, whatever its exit code.
func (p *project) runJSON(args ...string) runOut {
	p.t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Env = p.dir, p.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := runOut{out: stdout.String() + stderr.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		p.t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	json.Unmarshal([]byte(lines[len(lines)-1]), &r.last)
	return r
}

// keepLogs copies each turn's log to -keep-logs.
func (p *project) keepLogs(t *testing.T) {
	if *keepLogs == "" {
		return
	}
	os.MkdirAll(*keepLogs, 0o755)
	for _, l := range logsOf(p) {
		if data, err := os.ReadFile(l); err == nil {
			os.WriteFile(filepath.Join(*keepLogs, filepath.Base(l)), data, 0o644)
		}
	}
}

// checkConfirmed: the statement is true on three confirmations, one per
// CLI, each under its agent's name and model; the problem is solved.
func (p *project) checkConfirmed(t *testing.T) {
	stmt, prob := p.doc("stmt_even_sum_wrap"), p.doc("prob_even_sum")
	if stmt["status"] != "true" || prob["status"] != "solved" {
		t.Errorf("stmt_even_sum_wrap %v, prob_even_sum %v; want true and solved", stmt["status"], prob["status"])
	}
	v, _ := stmt["validate"].(map[string]any)
	confs, _ := v["confirmations"].([]any)
	var got []string
	for _, c := range confs {
		m, _ := c.(map[string]any)
		got = append(got, fmt.Sprintf("%v/%v/%v", m["agent"], m["model"], m["actor"]))
	}
	want := []string{"claude/claude-sonnet-4-5/check-claude-1", "codex/gpt-5/check-codex-1", "gemini/gemini-2.5-pro/check-gemini-1"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("confirmations (agent/model/actor) %v; want %v", got, want)
	}
}

// usageEvent is a run-usage event's figures.
type usageEvent struct {
	Agent, Model, Source, CostFrom, Role string
	In, Cached, Out                      int64
	Cost                                 float64
}

// usageEvents reads the run-usage events.
func (p *project) usageEvents(t *testing.T) []usageEvent {
	var res struct {
		Events []struct {
			Command string
			Detail  struct {
				Agent, Model string
				Usage        struct {
					Role     string  `json:"role"`
					Source   string  `json:"source"`
					CostFrom string  `json:"cost_from"`
					In       int64   `json:"input_tokens"`
					Cached   int64   `json:"cached_input_tokens"`
					Out      int64   `json:"output_tokens"`
					Cost     float64 `json:"cost_usd"`
				}
			}
		}
	}
	if err := json.Unmarshal(p.pl("events", "--json"), &res); err != nil {
		t.Fatal(err)
	}
	var out []usageEvent
	for _, e := range res.Events {
		if e.Command == "run-usage" {
			u := e.Detail.Usage
			out = append(out, usageEvent{e.Detail.Agent, e.Detail.Model, u.Source, u.CostFrom, u.Role, u.In, u.Cached, u.Out, u.Cost})
		}
	}
	return out
}

// checkUsage: one usage record per CLI turn, with the CLI's source label,
// its model, the tokens the scripted endpoint reported, and a cost: Claude
// Code's own, and for Codex and Gemini the price table's.
func (p *project) checkUsage(t *testing.T, ep cliEndpoints) {
	evs := p.usageEvents(t)
	if len(evs) != 3 {
		t.Fatalf("run-usage events %+v; want one per check turn, 3", evs)
	}
	byAgent := map[string]usageEvent{}
	for _, e := range evs {
		byAgent[e.Agent] = e
	}
	if c := byAgent["claude"]; c.Source != "claude-json" || c.Model != "claude-sonnet-4-5" || c.In <= 0 || c.Out <= 0 || c.Cost <= 0 || c.CostFrom != "agent" {
		t.Errorf("Claude Code's usage %+v; want claude-json, its model, tokens and its own cost", c)
	}
	nc, _ := ep.codex.requests()
	ng, _ := ep.gemini.requests()
	for _, w := range []struct {
		agent, source, model string
		n                    int
		in, cached, out      int64
		price, cachedP, outP float64
	}{
		{"codex", "codex-json", "gpt-5", nc, codexIn, codexCached, codexOut, 1.25, 0.125, 10},
		{"gemini", "gemini-json", "gemini-2.5-pro", ng, geminiIn, geminiCached, geminiOut, 2.5, 0.25, 15},
	} {
		got := byAgent[w.agent]
		n := int64(w.n)
		cost := (float64(n*(w.in-w.cached))*w.price + float64(n*w.cached)*w.cachedP + float64(n*w.out)*w.outP) / 1e6
		if got.Source != w.source || got.Model != w.model || got.In != n*w.in || got.Cached != n*w.cached || got.Out != n*w.out ||
			got.CostFrom != "prices" || math.Abs(got.Cost-cost) > 1e-12 {
			t.Errorf("%s's usage %+v; want %s, model %s, %d requests' tokens (%d in, %d cached, %d out) and $%v from the price table",
				w.agent, got, w.source, w.model, n, n*w.in, n*w.cached, n*w.out, cost)
		}
	}
}

// checkRefused: each CLI's own mechanism refused the command that is no
// proofloop command and the chained one, and the confirmation ran. Claude
// Code denies them (permission_denials), and its Read outside the project;
// Codex runs them in its read-only sandbox, where touch fails; Gemini's
// policy denies them. No planted file exists.
func (p *project) checkRefused(t *testing.T, ep cliEndpoints) {
	for _, s := range []*scripted{ep.claude, ep.codex, ep.gemini} {
		calls := s.last().Calls
		confirmed := false
		for _, c := range calls {
			confirmed = confirmed || c.confirmed()
			if !strings.Contains(c.Command, "touch ") && c.Tool != "Read" {
				continue
			}
			var ok bool
			switch s.cli {
			case "claude":
				ok = c.Denied && !strings.Contains(c.Output, "vm")
			case "codex":
				ok = strings.Contains(c.Output, "Read-only file system") && strings.Contains(c.Output, "exited with code 1")
			case "gemini":
				ok = c.Denied && strings.Contains(c.Output, "denied by policy")
			}
			if !ok {
				t.Errorf("%s ran %s %q: %q; want its own refusal", s.cli, c.Tool, c.Command, c.Output)
			}
		}
		if !confirmed || len(calls) < 3 {
			t.Errorf("%s's calls %+v; want the forbidden ones refused, then the confirmation done", s.cli, calls)
		}
		for _, f := range planted(s.cli) {
			if _, err := os.Stat(filepath.Join(p.dir, f)); err == nil {
				t.Errorf("%s exists: %s let a forbidden command write", f, s.cli)
			}
		}
	}
	// Claude Code's own account of what it denied, in its result object.
	var denied []string
	for _, l := range logsOf(p) {
		data, _ := os.ReadFile(l)
		for _, line := range strings.Split(string(data), "\n") {
			var res struct {
				Type    string
				Denials []struct {
					ToolName  string         `json:"tool_name"`
					ToolInput map[string]any `json:"tool_input"`
				} `json:"permission_denials"`
			}
			if json.Unmarshal([]byte(line), &res) == nil && res.Type == "result" {
				for _, d := range res.Denials {
					denied = append(denied, fmt.Sprintf("%s %v%v", d.ToolName, d.ToolInput["command"], d.ToolInput["file_path"]))
				}
			}
		}
	}
	want := []string{"Read <nil>/etc/hostname", "Bash touch planted-claude<nil>", "Bash proofloop status && touch planted-chain-claude<nil>"}
	if strings.Join(denied, "|") != strings.Join(want, "|") {
		t.Errorf("Claude Code's permission_denials %q; want %q", denied, want)
	}
}

// checkInstructions: Codex and Gemini got the role's instructions (the
// body of agent-check.md, on stdin) and ran prime first; the bytes each
// hands a model are logged.
func (p *project) checkInstructions(t *testing.T, ep cliEndpoints) {
	role, err := os.ReadFile(filepath.Join(p.dir, ".codex", "proofloop", "agent-check.md"))
	if err != nil {
		t.Fatal(err)
	}
	first := strings.SplitN(string(role), "\n", 2)[0]
	for _, s := range []*scripted{ep.codex, ep.gemini} {
		s.mu.Lock()
		raw := string(s.raw[0])
		s.mu.Unlock()
		if !strings.Contains(raw, strings.ReplaceAll(first, `"`, `\"`)) {
			t.Errorf("%s's first request lacks the role's instructions %q", s.cli, first)
		}
		if calls := s.last().Calls; len(calls) == 0 || !strings.HasPrefix(calls[0].Command, "proofloop prime --role check --id stmt_even_sum_wrap") ||
			!strings.Contains(calls[0].Output, "Proof (revision 1") {
			t.Errorf("%s's first call %+v; want prime, with the item's numbered proof", s.cli, calls)
		}
		prime := s.last().Calls[0].Output
		t.Logf("%s hands its model %d bytes of proofloop's (the role's instructions %d, prime %d)", s.cli, len(role)+len(prime), len(role), len(prime))
	}
}

// checkGivenUp: with broken endpoints, each agent fails its turn before
// any proofloop call and is given up (max_agent_failures 1) with its CLI's
// own error quoted; the run ends stuck, and the item's round budget is
// untouched.
func (p *project) checkGivenUp(t *testing.T, r runOut) {
	if r.code != 7 {
		t.Fatalf("run: exit %d; want 7 stuck\n%s", r.code, r.out)
	}
	sum, _ := r.last["summary"].(map[string]any)
	given, _ := sum["given_up"].([]any)
	quotes := map[string]string{
		"claude": "Failed to authenticate. API Error: 403 Your API key does not have permission to use the specified resource.",
		"codex":  "unexpected status 401 Unauthorized: Incorrect API key provided: sk-test.",
		"gemini": "API key not valid. Please pass a valid API key. (400 INVALID_ARGUMENT)",
	}
	seen := map[string]bool{}
	for _, g := range given {
		m, _ := g.(map[string]any)
		name, _ := m["name"].(string)
		e, _ := m["agent_error"].(string)
		seen[name] = true
		if !strings.Contains(e, quotes[name]) {
			t.Errorf("the %s agent was given up with agent_error %q; want its CLI's error, %q", name, e, quotes[name])
		}
	}
	if len(seen) != 3 {
		t.Errorf("given up %v; want the three check agents", given)
	}
	msg, _ := r.last["error"].(map[string]any)["message"].(string)
	for name, q := range quotes {
		if !strings.Contains(msg, q) {
			t.Errorf("the run's message does not quote %s's error %q:\n%s", name, q, msg)
		}
	}
	stmt := p.doc("stmt_even_sum_wrap")
	if stmt["status"] != "awaiting_verification" || stmt["idle_turns"] != nil {
		t.Errorf("stmt_even_sum_wrap: %v, idle_turns %v; want it awaiting verification with its round budget untouched", stmt["status"], stmt["idle_turns"])
	}
}
