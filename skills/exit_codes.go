package skills

import (
	"github.com/proofloop/proofloop/loop"
	"github.com/proofloop/proofloop/store"
)

// ErrorCode is one JSON error code of the CLI contract and its exit code.
// ExitCodes is the one table of them: cmd/proofloop takes each error's exit
// code from it, and the generated docs quote it.
type ErrorCode struct {
	Code    store.Code `json:"code"`
	Exit    int        `json:"exit"`
	Meaning string     `json:"meaning"`
}

// ExitCodes is the exit-code table: every error code and the exit code it
// ends the CLI with, in exit-code order.
var ExitCodes = []ErrorCode{
	{store.CodeInternal, 1, "internal error; report it"},
	{store.CodeUsage, 2, "bad usage: unknown command or flag, wrong arguments; nothing was written"},
	{store.CodeInvalidInput, 2, "bad input: a parameter is missing, malformed or not an allowed value; nothing was written"},
	{store.CodeNotFound, 3, "no such document, or no contents root"},
	{store.CodeInvalidTransition, 4, "refused by the workflow rules: the document's status does not allow this skill (the message names the status and the skills allowed now)"},
	{store.CodeGuardFailed, 4, "refused by the workflow rules: a guard of the transition failed (the message names it)"},
	{store.CodePersonOnly, 4, "refused: a person's command (`config set`, `guide`, `release --force`, ...) made under a lease, in a turn of `proofloop run` or over MCP; nothing was written"},
	{store.CodeConflict, 5, "retry later: the document moved past --expect-revision"},
	{store.CodeLeaseHeld, 5, "retry later: another holder has a live lease on the item"},
	{store.CodeLockTimeout, 5, "retry later: the store stayed locked longer than the lock timeout"},
	{loop.CodeTimeout, 5, "debate wait only: the time ran out before it was the participant's turn or the debate closed"},
	{store.CodeStoreDamaged, 6, "the store is damaged: a file does not parse or fails its schema"},
	{store.CodeStoreUnwritable, 9, "the store cannot be written here: a read-only file system or permission denied (a sandbox may be the cause); nothing was written"},
	// The outcomes of an unsolved `proofloop run`; no skill call ends so.
	{loop.CodeStuck, 7, "run only: stopped with work left that no agent of config.json can do (a role without an agent, or an agent given up after max_agent_failures failures in a row); the summary lists what is left"},
	{loop.CodeMaxTurns, 8, "run only: out of turns: stopped at --max-turns with work left"},
	{loop.CodeBudgetSpent, 8, "run only: out of budget: what is left has spent its round budget (`proofloop decide ID --extend N` grants more), or belongs to a root problem that has cost its max_cost_usd, or the run spent its --max-cost-usd"},
	{loop.CodeInterrupted, 130, "run only: interrupted by SIGINT or SIGTERM; the running agents were killed and their leases released"},
}

// ExitOf returns the exit code of an error code (1 when unknown).
func ExitOf(c store.Code) int {
	for _, e := range ExitCodes {
		if e.Code == c {
			return e.Exit
		}
	}
	return 1
}
