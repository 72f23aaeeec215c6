package loop

import (
	"github.com/proofloop/proofloop/store"
)

// TurnCommand is the event command of an ended turn of `proofloop run`:
// one event per turn, with how it ended, so that the log (and serve's view
// of a run in progress) says what each turn did, failures and given-up
// agents included, and not only what its skills changed.
const TurnCommand = "run-turn"

// recordTurn writes the run-turn event of an ended turn; g is the agent
// the turn made the run give up, or nil. A turn whose store broke under it
// records nothing more (the run ends with that error).
func (r *runner) recordTurn(t *turnRecord, g *GivenUp) {
	harness, _ := AgentIdentity(t.Agent)
	d := map[string]any{"run_id": r.sum.RunID, "turn": t.N, "id": t.ID, "role": t.Role, "cli": harness,
		"outcome": t.Outcome, "duration_ms": t.Duration.Milliseconds(), "started_at": eventTime(t.Start),
		"changed": t.Before != nil && t.After != nil && t.After.Revision() != t.Before.Revision(), "idle": t.Idle}
	if t.ExitCode != nil {
		d["exit_code"] = *t.ExitCode
	}
	if t.NoCall {
		d["no_call"] = true
	}
	if t.AgentError != "" {
		d["agent_error"] = t.AgentError
	}
	if g != nil {
		d["given_up"] = true
	}
	_, err := r.s.Update(store.TxOptions{Command: TurnCommand, Actor: t.Actor, Agent: t.AgentName, Model: t.Model}, func(tx *store.Tx) error {
		tx.Record()
		tx.Detail("turn", d)
		return nil
	})
	if err != nil && t.ErrText == "" {
		t.ErrText = err.Error()
	}
}
