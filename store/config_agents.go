package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/proofloop/proofloop/model"
)

// Agent is one agent of a role in config.json: a command line run with
// sh -c, and, when the role has several agents, a name and a model label.
type Agent struct {
	Name    string `json:"name,omitempty"`
	Model   string `json:"model,omitempty"`
	Command string `json:"command"`
}

// Agents are a role's agents: config.json gives either one command line
// (a string) or a list of {name, model, command}.
type Agents []Agent

// UnmarshalJSON reads a command line or a list of agents.
func (a *Agents) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*a = Agents{{Command: s}}
		return nil
	}
	var list []Agent
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&list); err != nil {
		return err
	}
	*a = list
	return nil
}

// MarshalJSON writes a single unnamed agent as its command line, as
// config.json had it before roles took lists.
func (a Agents) MarshalJSON() ([]byte, error) {
	if len(a) == 1 && a[0].Name == "" && a[0].Model == "" {
		return json.Marshal(a[0].Command)
	}
	return json.Marshal([]Agent(a))
}

// Command is the command line of a role with one agent, or the first
// agent's ("" when none).
func (a Agents) Command() string {
	if len(a) == 0 {
		return ""
	}
	return strings.TrimSpace(a[0].Command)
}

// The values of verify_distinct (model.Party says what each compares).
const (
	DistinctActor = model.DistinctActor
	DistinctAgent = model.DistinctAgent
	DistinctModel = model.DistinctModel
)

// VerifyDistincts lists verify_distinct's values, for the schema.
var VerifyDistincts = model.VerifyDistincts

// checkAgents refuses a key of agents that names no role or protocol
// (AgentKeyError), two agents of a role with one name, and a list agent
// without a name: its name is part of its actor.
func checkAgents(t AgentTable) error {
	if err := t.checkKeys(); err != nil {
		return err
	}
	for key, list := range t.all() {
		if len(list) < 2 {
			continue
		}
		seen := map[string]bool{}
		for i, a := range list {
			if a.Name == "" {
				return fmt.Errorf("agents.%s[%d] has no name: each of a role's several agents needs one", key, i)
			}
			if seen[a.Name] {
				return fmt.Errorf("agents.%s names %q twice: each of a role's agents needs its own name", key, a.Name)
			}
			seen[a.Name] = true
		}
	}
	return nil
}
