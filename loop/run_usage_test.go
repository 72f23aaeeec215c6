package loop

import (
	"math"
	"os"
	"strings"
	"testing"

	"github.com/proofloop/proofloop/store"
)

// turnLog is what run keeps of a turn's output: its header, the agent's
// stdout and stderr, and the trailer; parseUsage reads that file.
func turnLog(out string) []byte {
	return []byte("# turn 1: prove on stmt_x_wrap (proof needed) as prove-1\n" + out + "\n# turn 1 ended: ok, exit 0, 1.2s\n")
}

// capture is a file of testdata/usage: what a pinned CLI printed.
func capture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/usage/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// sameUsage compares the recorded figures of two usages.
func sameUsage(a, b *Usage) bool {
	return a.InputTokens == b.InputTokens && a.OutputTokens == b.OutputTokens && a.CachedTokens == b.CachedTokens &&
		a.CostUSD == b.CostUSD && a.Source == b.Source && a.Model == b.Model && a.Reported == b.Reported
}

// TestParseUsage reads a turn's usage from what each pinned CLI printed
// (testdata/usage, captured against a scripted endpoint on 127.0.0.1) in
// each of its output formats, and from $PROOFLOOP_USAGE. Each shape has
// its own source label; Claude Code reports its cost, Codex and Gemini
// none (the price table gives it), and Codex names no model.
func TestParseUsage(t *testing.T) {
	claude := Usage{InputTokens: 10, OutputTokens: 5, CostUSD: 0.000105, Source: SourceClaude, Model: "claude-sonnet-4-5", Reported: true}
	gemini := Usage{InputTokens: 200, CachedTokens: 60, OutputTokens: 14, Source: SourceGemini, Model: "gemini-test"}
	for _, tc := range []struct {
		name    string
		capture string // a file of testdata/usage, the agent's output
		output  string // else the agent's output itself
		harness string // the agent's CLI, as AgentIdentity names it
		file    string // what it wrote to $PROOFLOOP_USAGE
		want    *Usage
	}{
		{name: "claude --output-format json", capture: "claude-code-2.1.197.json", harness: "claude-code", want: &claude},
		// --verbose makes json one array of the session's messages: the
		// result is its last element (it used to be dropped).
		{name: "claude --output-format json --verbose", capture: "claude-code-2.1.197-verbose.json", want: &claude},
		// stream-json: the assistant lines carry message.usage, not usage;
		// only the result line counts.
		{name: "claude --output-format stream-json", capture: "claude-code-2.1.197-stream.jsonl", want: &claude},
		// Claude Code's default model names its context window in
		// modelUsage ("claude-opus-4-8[1m]"): the model is the name before
		// it (its usage was refused as no model's name).
		{name: "claude's default model, with its context window", capture: "claude-code-2.1.197-default-model.json", harness: "claude-code",
			want: &Usage{InputTokens: 40, OutputTokens: 20, CostUSD: 0.0007, Source: SourceClaude, Model: "claude-opus-4-8", Reported: true}},
		// Codex's last turn.completed: input counts the cached ones.
		{name: "codex exec --json", capture: "codex-0.171.0.jsonl", harness: "codex",
			want: &Usage{InputTokens: 200, CachedTokens: 80, OutputTokens: 14, Source: SourceCodex}},
		// It used to be read as Claude Code's (claude-json, cost 0).
		{name: "codex exec --json, not told it is codex", capture: "codex-0.171.0.jsonl",
			want: &Usage{InputTokens: 200, CachedTokens: 80, OutputTokens: 14, Source: SourceCodex}},
		// Gemini's -o json is one object over many lines; it used to be
		// dropped with no warning.
		{name: "gemini -o json", capture: "gemini-cli-0.61.0.json", harness: "gemini", want: &gemini},
		{name: "gemini -o stream-json", capture: "gemini-cli-0.61.0-stream.jsonl", harness: "gemini", want: &gemini},
		{name: "PROOFLOOP_USAGE wins over stdout", capture: "claude-code-2.1.197.json",
			file: `{"input_tokens": 1200, "output_tokens": 340, "cost_usd": 0.042}`,
			want: &Usage{InputTokens: 1200, OutputTokens: 340, CostUSD: 0.042, Source: SourceFile, Reported: true}},
		{name: "PROOFLOOP_USAGE without a cost", file: `{"input_tokens": 1200, "output_tokens": 340}`,
			want: &Usage{InputTokens: 1200, OutputTokens: 340, Source: SourceFile}},
		{name: "no usage at all", output: "Done: proof recorded.\n{\"ok\":true,\"id\":\"stmt_x_wrap\",\"status\":\"awaiting_verification\"}\n[1, 2]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := tc.output
			if tc.capture != "" {
				out = capture(t, tc.capture)
			}
			got, err := parseUsage(turnLog(out), []byte(tc.file), tc.harness)
			switch {
			case err != nil:
				t.Fatalf("parseUsage = %v; want no error", err)
			case tc.want == nil && got != nil:
				t.Errorf("parseUsage = %+v; want nil (no usage reported)", *got)
			case tc.want != nil && (got == nil || !sameUsage(got, tc.want)):
				t.Errorf("parseUsage = %+v; want %+v", got, *tc.want)
			}
		})
	}
}

// TestParseUsageWarnsOnUnknownShapes: a known CLI that printed no usage
// run can read (its JSON output off), or an agent whose output carries
// usage in a shape run does not know, is a warning, never silence.
func TestParseUsageWarnsOnUnknownShapes(t *testing.T) {
	for _, tc := range []struct{ name, output, harness, want string }{
		{"codex without --json", "I confirmed the proof.\n", "codex", "codex printed no usage"},
		{"gemini -o text", "Done.\n", "gemini", "gemini printed no usage"},
		{"claude -p without json", "Done.\n", "claude-code", "claude-code printed no usage"},
		{"another shape", `{"tokens_used": 12, "usage": {"prompt": 3}}` + "\n", "my-agent", "a shape run does not know (an object with tokens_used, usage)"},
	} {
		got, err := parseUsage(turnLog(tc.output), nil, tc.harness)
		if got != nil || err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: parseUsage = %+v, %v; want no usage and a warning containing %q", tc.name, got, err, tc.want)
		}
	}
}

// TestParseUsageRefusesABadFile: a $PROOFLOOP_USAGE that is not one object
// of the three fields with no negative or absurd value is an error (run
// says it on stderr and in turn_ended's usage_warning), never a silent
// zero, and never a fall back to stdout.
func TestParseUsageRefusesABadFile(t *testing.T) {
	real := capture(t, "claude-code-2.1.197.json")
	for _, file := range []string{
		`{"tokens": 5}`,
		`{"input_tokens": -1, "output_tokens": 2, "cost_usd": 0.1}`,
		`{"input_tokens": 1, "output_tokens": 2, "cost_usd": -0.1}`,
		`{"input_tokens": 1} {"input_tokens": 2}`,
		`{"input_tokens": "many"}`,
		`not json`,
		`[{"input_tokens": 1}]`,
		// N10: absurd values made the sums +Inf or wrap.
		`{"input_tokens": 1, "output_tokens": 2, "cost_usd": 1.7e308}`,
		`{"input_tokens": 9223372036854775807, "output_tokens": 2, "cost_usd": 0.1}`,
		`{"input_tokens": 1, "output_tokens": 10000000001, "cost_usd": 0.1}`,
		`{"input_tokens": 1, "output_tokens": 2, "cost_usd": 10000.01}`,
		// A key twice: not last-wins.
		`{"input_tokens": 1, "output_tokens": 2, "cost_usd": 9.5, "cost_usd": 0.01}`,
	} {
		got, err := parseUsage(turnLog(real), []byte(file), "claude-code")
		if err == nil || !strings.Contains(err.Error(), "$PROOFLOOP_USAGE must hold one object") {
			t.Errorf("parseUsage(file %s) = %+v, %v; want the $PROOFLOOP_USAGE error", file, got, err)
		}
		if got != nil {
			t.Errorf("parseUsage(file %s) = %+v; want nil: a bad file counts nothing", file, *got)
		}
	}
}

// TestParseUsageRefusesAbsurdOutput (N10): a CLI output reporting an
// absurd cost or token count is not counted either.
func TestParseUsageRefusesAbsurdOutput(t *testing.T) {
	for _, out := range []string{
		`{"type":"result","usage":{"input_tokens":10,"output_tokens":5},"total_cost_usd":1.7e308}`,
		`{"type":"turn.completed","usage":{"input_tokens":9223372036854775807,"cached_input_tokens":0,"output_tokens":1}}`,
	} {
		got, err := parseUsage(turnLog(out), nil, "")
		if got != nil || err == nil || !strings.Contains(err.Error(), "absurd") {
			t.Errorf("parseUsage(%s) = %+v, %v; want no usage and the absurd-usage warning", out, got, err)
		}
	}
}

// TestSumsSaturate (N10): sums of tokens stop at the largest int64 and
// sums of costs stay finite, whatever the log holds.
func TestSumsSaturate(t *testing.T) {
	if got := AddTokens(math.MaxInt64-1, 5); got != math.MaxInt64 {
		t.Errorf("AddTokens(MaxInt64-1, 5) = %d; want MaxInt64", got)
	}
	if got := AddTokens(7, -3); got != 7 {
		t.Errorf("AddTokens(7, -3) = %d; want 7", got)
	}
	if got := AddCost(1.7e308, 1.7e308); math.IsInf(got, 0) || got != math.MaxFloat64 {
		t.Errorf("AddCost(1.7e308, 1.7e308) = %v; want MaxFloat64", got)
	}
	for _, bad := range []float64{math.NaN(), math.Inf(1), -1} {
		if got := AddCost(2, bad); got != 2 && !math.IsInf(bad, 1) {
			t.Errorf("AddCost(2, %v) = %v; want 2", bad, got)
		}
	}
}

// TestPriceUsage: a usage with no cost of its own is priced from the
// table (cached input at its own price), each model's tokens at its price;
// a model without a price counts at no cost and says so; a reported cost
// is kept.
func TestPriceUsage(t *testing.T) {
	cached := 0.125
	prices := map[string]store.Price{"gpt-5": {Input: 1.25, CachedInput: &cached, Output: 10}, "gemini-test": {Input: 2, Output: 12}}
	u := &Usage{InputTokens: 200, CachedTokens: 80, OutputTokens: 14, Model: "gpt-5"}
	if warn := u.price(prices); warn != "" || u.CostFrom != "prices" || math.Abs(u.CostUSD-(120*1.25+80*0.125+14*10)/1e6) > 1e-12 {
		t.Errorf("priced %+v, %q; want (120*1.25 + 80*0.125 + 14*10)/1e6 from prices", u, warn)
	}
	g := &Usage{ByModel: []ModelTokens{{"gemini-test", 200, 60, 14}, {"gpt-5", 100, 0, 1}}}
	if warn := g.price(prices); warn != "" || math.Abs(g.CostUSD-(200*2+14*12+100*1.25+1*10)/1e6) > 1e-12 {
		t.Errorf("priced %+v, %q; want each model at its own price", g, warn)
	}
	n := &Usage{InputTokens: 5, Model: "o9"}
	if warn := n.price(prices); n.CostUSD != 0 || n.CostFrom != "none" || !strings.Contains(warn, `no "o9"`) {
		t.Errorf("priced %+v, %q; want no cost and a warning naming o9", n, warn)
	}
	r := &Usage{InputTokens: 5, CostUSD: 0.5, Reported: true, Model: "gpt-5"}
	if warn := r.price(prices); r.CostUSD != 0.5 || r.CostFrom != "agent" || warn != "" {
		t.Errorf("priced %+v, %q; want the agent's own cost kept", r, warn)
	}
}

// TestAgentError: a failed turn's own error, from each CLI's output: Codex's
// turn.failed, Gemini's error object (on stderr with -o json, in the result
// line with stream-json, the API's message taken out of its JSON), Claude
// Code's result; not a warning printed beside it.
func TestAgentError(t *testing.T) {
	for _, tc := range []struct{ capture, output, harness, want string }{
		{capture: "codex-0.171.0-failed.jsonl", harness: "codex",
			want: "unexpected status 401 Unauthorized: Incorrect API key provided: sk-test., url: http://127.0.0.1:18804/v1/responses"},
		{capture: "gemini-cli-0.61.0-failed.stderr", harness: "gemini", want: "API key not valid. Please pass a valid API key. (400 INVALID_ARGUMENT)"},
		{capture: "gemini-cli-0.61.0-stream-failed.jsonl", harness: "gemini", want: "API key not valid. Please pass a valid API key. (400 INVALID_ARGUMENT)"},
		// Claude Code's result, not the warning it printed before it.
		{output: "Ignoring 3 permissions.allow entries from .claude/settings.json: this workspace has not been trusted.\n" +
			capture(t, "claude-code-2.1.197-failed.json"),
			harness: "claude-code", want: "Failed to authenticate. API Error: 403 Your API key does not have permission to use the specified resource."},
		{capture: "codex-0.171.0.jsonl", harness: "codex", want: ""},
	} {
		out := tc.output
		if tc.capture != "" {
			out = capture(t, tc.capture)
		}
		if got := agentError(turnLog(out), tc.harness); got != tc.want {
			t.Errorf("agentError(%s) = %q; want %q", cmpOr(tc.capture, "claude"), got, tc.want)
		}
	}
}

// TestAgentTextIsQuotedSafely: the agent's error reaches a person's
// terminal as one line without escape sequences or bidi overrides, and a
// model name in an agent's output that is no model's name is refused.
func TestAgentTextIsQuotedSafely(t *testing.T) {
	out := `{"type":"turn.failed","error":{"message":"bad\u001b[2J\u001b]0;owned\u0007 key\u202e\nnext line"}}`
	if got := agentError(turnLog(out), "codex"); got != "bad?[2J?]0;owned? key? next line" {
		t.Errorf("agentError = %q; want the control characters and the override as ? on one line", got)
	}
	fake := `{"type":"result","status":"success","stats":{"models":{"gpt\u001b[31m":{"input_tokens":9,"output_tokens":1,"cached":0}}}}`
	if u, err := parseUsage(turnLog(fake), nil, "gemini"); u != nil || err == nil || !strings.Contains(err.Error(), "which is no model's name") {
		t.Errorf("parseUsage(a model name with an escape) = %+v, %v; want it refused", u, err)
	}
}
