package loop

import (
	"path"
	"slices"
	"strings"

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
// name order: the role of every agents key that is not one of the five
// workflow roles (judge, and the judge of panel.judge).
func DebateAgentRoles(cfg store.Config) []model.Role {
	var out []model.Role
	for _, k := range cfg.Agents.Keys() {
		if slices.Contains(model.WorkflowRoles, model.Role(k)) {
			continue
		}
		role := model.Role(k[strings.LastIndexByte(k, '.')+1:])
		if !slices.Contains(out, role) {
			out = append(out, role)
		}
	}
	slices.Sort(out)
	return out
}

// DebateAgentEnv are the variables an agent on a debate needs besides
// PROOFLOOP_ID, _ROLE and _LEASE: PROOFLOOP_PARTICIPANT_ID when a
// participant writes next; PROOFLOOP_JOIN_ROLE, a fresh
// PROOFLOOP_PARTICIPANT_NAME (<role>-<n>) and who the agent is
// (PROOFLOOP_HARNESS and PROOFLOOP_MODEL_ID, from AgentLabels), which
// `debate join` takes as its --harness and --model-id, when the debate
// needs a joiner first. It reads the debate as it stands when the turn
// starts (the run holds its lease).
func DebateAgentEnv(s *store.Store, id string, agent store.Agent) []string {
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
	env := []string{"PROOFLOOP_JOIN_ROLE=" + w.JoinRole, "PROOFLOOP_PARTICIPANT_NAME=" + JoinName(d, w.JoinRole)}
	harness, modelID := AgentLabels(agent)
	if harness != "" {
		env = append(env, "PROOFLOOP_HARNESS="+harness)
	}
	if modelID != "" {
		env = append(env, "PROOFLOOP_MODEL_ID="+modelID)
	}
	return env
}

// AgentLabels names an agent of config.json as a debate's transcript
// shows it: by its configured name and model, the person's own words for
// it (two agents of one role may run one script with two models), and
// else by what AgentIdentity reads off its command.
func AgentLabels(a store.Agent) (harness, modelID string) {
	harness, modelID = AgentIdentity(a.Command)
	return cmpOr(a.Name, harness), cmpOr(a.Model, modelID)
}

// interpreters are programs whose script, the next word, is the agent.
var interpreters = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "python": true, "python3": true, "node": true, "ruby": true, "perl": true}

// AgentIdentity names an agent from its command in config.json: the
// harness is the program it runs ("claude-code" for claude, "proofloop
// example-agent" for the built-in example agents, the script's file name
// for sh SCRIPT and the like, else the program's file name), and the
// model is what its --model option names, or "" when it names none.
// Variable assignments and exec or env before the program are skipped.
func AgentIdentity(command string) (harness, modelID string) {
	words := strings.Fields(command)
	i := 0
	for i < len(words) && (strings.Contains(words[i], "=") || words[i] == "exec" || words[i] == "env") {
		i++
	}
	if i < len(words) {
		harness = path.Base(strings.Trim(words[i], `"'`))
		switch {
		case interpreters[harness] && i+1 < len(words) && !strings.HasPrefix(words[i+1], "-"):
			harness = path.Base(strings.Trim(words[i+1], `"'`)) // sh agent.sh: the script
		case harness == "claude":
			harness = "claude-code"
		case harness == "proofloop" && i+1 < len(words) && words[i+1] == "example-agent":
			harness = "proofloop example-agent"
		}
	}
	for j := i; j < len(words); j++ {
		switch w := words[j]; {
		case (w == "--model" || w == "-m") && j+1 < len(words):
			modelID = strings.Trim(words[j+1], `"'`)
		case strings.HasPrefix(w, "--model="):
			modelID = strings.Trim(strings.TrimPrefix(w, "--model="), `"'`)
		}
	}
	return harness, modelID
}
