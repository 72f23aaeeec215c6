package loop

import (
	"slices"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// How `run` drives debates (the seam between the engine and the
// orchestrator): a debate is an item like any other, whose row names the
// role that acts next (the participant's role, or the role that must join).
// run starts the agent that config.json's agents names for that role, with
// DebateAgentEnv's variables besides the usual ones; the agent then runs
// `proofloop debate join` (when PROOFLOOP_JOIN_ROLE is set) or `proofloop
// debate turn $PROOFLOOP_ID --participant-id $PROOFLOOP_PARTICIPANT_ID`.

// OutcomeDone is a run's outcome when there is no problem to solve and
// nothing is left for any role: every debate is closed.
const OutcomeDone = "done"

// DebateAgentRoles are the debate roles config.json gives an agent, in
// name order: every agents key that is not one of the five workflow roles.
func DebateAgentRoles(cfg store.Config) []model.Role {
	var out []model.Role
	for k := range cfg.Agents {
		switch model.Role(k) {
		case model.RoleSolve, model.RoleProve, model.RoleCheck, model.RoleFix, model.RoleDecide:
			continue
		}
		out = append(out, model.Role(k))
	}
	slices.Sort(out)
	return out
}

// DebateAgentEnv are the variables an agent on a debate needs besides
// PROOFLOOP_ID, _ROLE and _LEASE: PROOFLOOP_PARTICIPANT_ID when a
// participant writes next; PROOFLOOP_JOIN_ROLE and a fresh
// PROOFLOOP_PARTICIPANT_NAME (<role>-<n>) when the debate needs a joiner
// first. It reads the debate as it stands when the turn starts (the run
// holds its lease).
func DebateAgentEnv(s *store.Store, id string) []string {
	d, r, err := ShowDebate(s, id)
	if err != nil {
		return nil
	}
	w := r.WhoseTurn
	switch {
	case w.Closed:
		return nil
	case w.ParticipantID != "":
		return []string{"PROOFLOOP_PARTICIPANT_ID=" + w.ParticipantID}
	}
	return []string{"PROOFLOOP_JOIN_ROLE=" + w.JoinRole, "PROOFLOOP_PARTICIPANT_NAME=" + JoinName(d, w.JoinRole)}
}
