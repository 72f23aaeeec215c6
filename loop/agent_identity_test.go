package loop

import "testing"

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
