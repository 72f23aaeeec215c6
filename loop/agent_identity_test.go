package loop

import (
	"testing"

	"github.com/proofloop/proofloop/store"
)

// TestAgentIdentity checks what run tells debate join of an agent, from the
// command config.json gives it.
func TestAgentIdentity(t *testing.T) {
	for _, tc := range []struct{ cmd, harness, model string }{
		{`claude -p --output-format=json --agent agent-check "Take the turn."`, "claude-code", ""},
		{`claude -p --model claude-opus-4 "Take the turn."`, "claude-code", "claude-opus-4"},
		{`FOO=1 exec /usr/local/bin/codex --model=gpt-5 exec`, "codex", "gpt-5"},
		{`sh $WORK/participant.sh --model 'm-1'`, "participant.sh", "m-1"},
		{`proofloop example-agent socratic`, "proofloop example-agent", ""},
		{`python3 -u agent.py`, "python3", ""},
		{``, "", ""},
	} {
		h, m := AgentIdentity(tc.cmd)
		if h != tc.harness || m != tc.model {
			t.Errorf("AgentIdentity(%q) = %q, %q; want %q, %q", tc.cmd, h, m, tc.harness, tc.model)
		}
	}
}

// TestAgentLabels: a named agent of config.json is its name and model,
// the person's own words for it; else what its command says.
func TestAgentLabels(t *testing.T) {
	for _, tc := range []struct {
		a              store.Agent
		harness, model string
	}{
		{store.Agent{Name: "codex", Model: "gpt-5", Command: `sh $WORK/participant.sh --model m-1`}, "codex", "gpt-5"},
		{store.Agent{Name: "claude", Command: `claude -p --model claude-opus-4 "Go."`}, "claude", "claude-opus-4"},
		{store.Agent{Model: "gemini", Command: `sh $WORK/participant.sh`}, "participant.sh", "gemini"},
		{store.Agent{Command: `claude -p "Go."`}, "claude-code", ""},
	} {
		h, m := AgentLabels(tc.a)
		if h != tc.harness || m != tc.model {
			t.Errorf("AgentLabels(%+v) = %q, %q; want %q, %q", tc.a, h, m, tc.harness, tc.model)
		}
	}
}
