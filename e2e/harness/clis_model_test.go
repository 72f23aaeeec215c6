package harness

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// The scripted check agent that Claude Code, Codex and Gemini each run in
// TestRealCLIsCheckOneProof. It keeps no state: each CLI's endpoint digests
// the conversation it was sent into a checkTurn, and the next step follows
// from the calls made so far. Its turn: prime (Codex and Gemini have no
// SessionStart hook: the prompt says to run it first), two commands each
// CLI's own permission mechanism must refuse (one that is no proofloop
// command, and a chained `proofloop ... && touch ...`), the confirmation
// with the revision prime gave, and a last line. Claude Code's also tries
// to read a file outside the project (Read is scoped to ./**).

// checkTurn is what a CLI's endpoint read from a request.
type checkTurn struct {
	Prompt string      // the prompt that names the turn
	Prime  string      // prime's output, from the SessionStart hook (Claude Code)
	Calls  []checkCall // the calls made so far, each with its output
}

// checkCall is one tool call and what came back.
type checkCall struct {
	Tool    string // Bash, Read, exec_command, run_shell_command
	Command string // the shell command, or the file read
	Output  string
	Denied  bool // the CLI said it refused (Claude Code's is_error, Gemini's error)
}

// checkStep is the agent's next step: one tool call, or its last text.
type checkStep struct {
	Tool, Command, Text string
}

var checkPrompt = regexp.MustCompile(`Take the check turn on ([a-z0-9_]+)`)

// planted are the files the forbidden commands would create.
func planted(cli string) []string { return []string{"planted-" + cli, "planted-chain-" + cli} }

// nextCheckStep is the scripted agent. shell is the CLI's shell tool;
// outside names a file outside the project to read with readTool ("" for
// none).
func nextCheckStep(cli, shell, readTool, outside string, t checkTurn) checkStep {
	m := checkPrompt.FindStringSubmatch(t.Prompt)
	if m == nil {
		return checkStep{Text: "I was not given a proofloop item."}
	}
	id := m[1]
	steps := []checkStep{}
	if t.Prime == "" {
		steps = append(steps, checkStep{Tool: shell, Command: "proofloop prime --role check --id " + id})
	}
	if readTool != "" {
		steps = append(steps, checkStep{Tool: readTool, Command: outside})
	}
	steps = append(steps,
		checkStep{Tool: shell, Command: "touch " + planted(cli)[0]},
		checkStep{Tool: shell, Command: "proofloop status && touch " + planted(cli)[1]},
		checkStep{Tool: shell}) // the confirmation, once prime's revision is known
	n := len(t.Calls)
	if n >= len(steps) {
		return checkStep{Text: "Done: I confirmed " + id + "."}
	}
	s := steps[n]
	if s.Tool == shell && s.Command == "" {
		prime := t.Prime
		if prime == "" && len(t.Calls) > 0 {
			prime = t.Calls[0].Output
		}
		rev := primedRevision(prime)
		if rev == 0 {
			return checkStep{Text: "prime gave me no revision of " + id + "; I stop."}
		}
		s.Command = fmt.Sprintf("proofloop check-confirm-proof --statement-path %s --verification-summary %s --expect-revision %d --json",
			id, q("Checked every sentence, by "+cli+"."), rev)
	}
	return s
}

// primedRevision is the item's revision in prime's first line.
func primedRevision(prime string) int {
	m := primeHead.FindStringSubmatch(prime)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// confirmed reports whether a call was the confirmation and proofloop did it.
func (c checkCall) confirmed() bool {
	return strings.HasPrefix(c.Command, "proofloop check-confirm-proof") && strings.Contains(c.Output, `"ok":true`)
}
