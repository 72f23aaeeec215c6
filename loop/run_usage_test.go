package loop

import (
	"os"
	"strings"
	"testing"
)

// turnLog is what run keeps of a turn's output: its header, the agent's
// stdout and stderr, and the trailer; parseUsage reads that file.
func turnLog(out string) []byte {
	return []byte("# turn 1: prove on stmt_x_wrap (proof needed) as prove-1\n" + out + "\n# turn 1 ended: ok, exit 0, 1.2s\n")
}

// TestParseUsage reads a turn's usage from what the pinned Claude Code
// printed (testdata/usage, captured against the harness's scripted
// endpoint: 10 tokens in, 5 out, $0.000105 at claude-sonnet-4-5's price)
// in each of its output formats, and from $PROOFLOOP_USAGE.
func TestParseUsage(t *testing.T) {
	real := Usage{InputTokens: 10, OutputTokens: 5, CostUSD: 0.000105, Source: "claude-json"}
	for _, tc := range []struct {
		name    string
		capture string // a file of testdata/usage, the agent's output
		output  string // else the agent's output itself
		file    string // what it wrote to $PROOFLOOP_USAGE
		want    *Usage
	}{
		{name: "--output-format json", capture: "claude-code-2.1.197.json", want: &real},
		// --verbose makes json one array of the session's messages: the
		// result is its last element (it used to be dropped).
		{name: "--output-format json --verbose", capture: "claude-code-2.1.197-verbose.json", want: &real},
		// stream-json: the assistant lines carry message.usage, not usage;
		// only the result line counts.
		{name: "--output-format stream-json", capture: "claude-code-2.1.197-stream.jsonl", want: &real},
		{name: "PROOFLOOP_USAGE wins over stdout", capture: "claude-code-2.1.197.json",
			file: `{"input_tokens": 1200, "output_tokens": 340, "cost_usd": 0.042}`,
			want: &Usage{InputTokens: 1200, OutputTokens: 340, CostUSD: 0.042, Source: "PROOFLOOP_USAGE"}},
		{name: "no usage at all", output: "Done: proof recorded.\n{\"ok\":true,\"id\":\"stmt_x_wrap\",\"status\":\"awaiting_verification\"}\n[1, 2]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := tc.output
			if tc.capture != "" {
				b, err := os.ReadFile("testdata/usage/" + tc.capture)
				if err != nil {
					t.Fatal(err)
				}
				out = string(b)
			}
			got, err := parseUsage(turnLog(out), []byte(tc.file))
			switch {
			case err != nil:
				t.Fatalf("parseUsage = %v; want no error", err)
			case tc.want == nil && got != nil:
				t.Errorf("parseUsage = %+v; want nil (no usage reported)", *got)
			case tc.want != nil && (got == nil || *got != *tc.want):
				t.Errorf("parseUsage = %+v; want %+v", got, *tc.want)
			}
		})
	}
}

// TestParseUsageRefusesABadFile: a $PROOFLOOP_USAGE that is not one object
// of the three fields with no negative value is an error (run says it on
// stderr and in turn_ended's usage_warning), never a silent zero, and
// never a fall back to stdout.
func TestParseUsageRefusesABadFile(t *testing.T) {
	real, err := os.ReadFile("testdata/usage/claude-code-2.1.197.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{
		`{"tokens": 5}`,
		`{"input_tokens": -1, "output_tokens": 2, "cost_usd": 0.1}`,
		`{"input_tokens": 1, "output_tokens": 2, "cost_usd": -0.1}`,
		`{"input_tokens": 1} {"input_tokens": 2}`,
		`{"input_tokens": "many"}`,
		`not json`,
		`[{"input_tokens": 1}]`,
	} {
		got, err := parseUsage(turnLog(string(real)), []byte(file))
		if err == nil || !strings.Contains(err.Error(), "$PROOFLOOP_USAGE must hold one object") {
			t.Errorf("parseUsage(file %s) = %+v, %v; want the $PROOFLOOP_USAGE error", file, got, err)
		}
		if got != nil {
			t.Errorf("parseUsage(file %s) = %+v; want nil: a bad file counts nothing", file, *got)
		}
	}
}
