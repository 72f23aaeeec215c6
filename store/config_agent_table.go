package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/proofloop/proofloop/model"
)

// AgentTable is config.json's agents. A key is either a role, whose agents
// serve that role of the workflow (solve, prove, check, fix, decide) or of
// every protocol that defines it (participant, judge, ...), or a protocol,
// whose object keys its own roles (agents.panel.judge), served ahead of the
// plain role's agents. A role a debate names itself, an agora position, is
// served by agents.<protocol>.<role> alone: a plain key never reaches it,
// so a plain key that names no role is refused (AgentKeyError), with the
// key an old config's agora position now takes.
type AgentTable struct {
	Roles     map[string]Agents
	Protocols map[string]map[string]Agents
}

// UnmarshalJSON reads agents: a command line or a list is a role's agents,
// an object a protocol's roles.
func (t *AgentTable) UnmarshalJSON(b []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*t = AgentTable{}
	for k, v := range raw {
		if v = bytes.TrimSpace(v); len(v) > 0 && v[0] == '{' {
			var roles map[string]Agents
			if err := json.Unmarshal(v, &roles); err != nil {
				return fmt.Errorf("agents.%s: %w", k, err)
			}
			if t.Protocols == nil {
				t.Protocols = map[string]map[string]Agents{}
			}
			t.Protocols[k] = roles
			continue
		}
		var a Agents
		if err := json.Unmarshal(v, &a); err != nil {
			return fmt.Errorf("agents.%s: %w", k, err)
		}
		if t.Roles == nil {
			t.Roles = map[string]Agents{}
		}
		t.Roles[k] = a
	}
	return nil
}

// MarshalJSON writes agents as config.json has it, {} when empty.
func (t AgentTable) MarshalJSON() ([]byte, error) {
	out := map[string]any{}
	for k, v := range t.Roles {
		out[k] = v
	}
	for k, v := range t.Protocols {
		out[k] = v
	}
	return json.Marshal(out)
}

// Len is how many keys agents has, a protocol's roles each counted.
func (t AgentTable) Len() int { return len(t.all()) }

// all lists every agents entry by its dotted key below agents ("judge",
// "panel.judge").
func (t AgentTable) all() map[string]Agents {
	out := maps.Clone(t.Roles)
	if out == nil {
		out = map[string]Agents{}
	}
	for p, roles := range t.Protocols {
		for r, a := range roles {
			out[p+"."+r] = a
		}
	}
	return out
}

// For returns the agents of role in a debate of protocol ("" for the
// workflow's roles) and the key below agents they come from: the
// protocol's own (panel.judge), else the plain role's when the role is one
// the protocol defines or a workflow role; nil and "" when none is set.
func (t AgentTable) For(protocol, role string) (Agents, string) {
	if a, ok := t.Protocols[protocol][role]; ok && protocol != "" {
		return a, protocol + "." + role
	}
	if protocol != "" {
		p, err := model.LookupProtocol(protocol)
		if err != nil || !slices.Contains(p.OwnRoles(), role) {
			return nil, ""
		}
	}
	if a, ok := t.Roles[role]; ok {
		return a, role
	}
	return nil, ""
}

// Keys lists every dotted key below agents, sorted.
func (t AgentTable) Keys() []string { return slices.Sorted(maps.Keys(t.all())) }

// checkKeys refuses the keys that name no role and no protocol, a role
// given an object and a protocol given a command line, all in one error.
func (t AgentTable) checkKeys() error {
	e := &AgentKeyError{}
	for k := range t.Roles {
		if _, err := model.LookupProtocol(k); err == nil {
			e.add(k, fmt.Sprintf("agents.%s is a protocol, whose value is an object of its roles' agents (agents.%s.ROLE)", k, k))
		} else {
			e.add(k, agentKeyProblem(k))
		}
	}
	for p, roles := range t.Protocols {
		if _, err := model.LookupProtocol(p); err != nil {
			if isAgentRole(p) {
				e.add(p, fmt.Sprintf("agents.%s is a role, whose value is a command line or a list of agents: only a protocol has roles below it (agents.panel.judge)", p))
			} else {
				e.add(p, agentKeyProblem(p))
			}
			continue
		}
		for r := range roles {
			e.add(p+"."+r, agentKeyProblem(p+"."+r))
		}
	}
	if len(e.Keys) == 0 {
		return nil
	}
	slices.SortFunc(e.problems, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
	slices.Sort(e.Keys)
	return e
}

// AgentKeyError is a config.json whose agents has keys that name no role
// or protocol, or that name one with a value of the other's shape. Keys
// are the dotted keys below agents, sorted.
type AgentKeyError struct {
	Keys     []string
	problems [][2]string // key, what is wrong
}

func (e *AgentKeyError) add(key, problem string) {
	if problem != "" {
		e.Keys = append(e.Keys, key)
		e.problems = append(e.problems, [2]string{key, problem})
	}
}

func (e *AgentKeyError) Error() string {
	var parts []string
	for _, p := range e.problems {
		parts = append(parts, p[1])
	}
	return strings.Join(parts, "; ")
}

// Hint says how to repair the first key: remove it, and where its agent
// goes, an agora position's included.
func (e *AgentKeyError) Hint() string {
	return fmt.Sprintf("remove it (`proofloop config set agents.%s null`) and set the agent under its key; %s", e.Keys[0], agentKeysAre())
}

// isAgentRole reports whether name is a role a plain agents key may name.
func isAgentRole(name string) bool {
	return slices.Contains(model.WorkflowRoles, model.Role(name)) || slices.Contains(model.DebateRoles(), name)
}

// agentKeyProblem says what is wrong with a dotted key below agents
// ("bull", "panel.judge"), or "" when it names an agents entry.
func agentKeyProblem(key string) string {
	name, role, nested := strings.Cut(key, ".")
	p, perr := model.LookupProtocol(name)
	switch {
	case strings.Contains(role, "."):
		return fmt.Sprintf("agents.%s is too deep: a key is agents.ROLE or agents.PROTOCOL.ROLE", key)
	case !nested && (isAgentRole(name) || perr == nil):
		return ""
	case !nested:
		msg := fmt.Sprintf("agents.%s names no role and no protocol", key)
		if near := model.Nearest(name, agentNames(), 1); len(near) > 0 {
			return msg + fmt.Sprintf(" (did you mean agents.%s?)", near[0])
		}
		return msg + fmt.Sprintf(" (an agora position's agent is agents.agora.%s)", name)
	case perr != nil && isAgentRole(name):
		return fmt.Sprintf("agents.%s is a role, whose value is a command line or a list of agents: only a protocol has roles below it (agents.panel.judge)", name)
	case perr != nil:
		msg := fmt.Sprintf("agents.%s: %s is no protocol", key, name)
		if near := model.Nearest(name, model.ProtocolNames(), 1); len(near) > 0 {
			msg += fmt.Sprintf(" (did you mean agents.%s.%s?)", near[0], role)
		}
		return msg
	case slices.Contains(p.OwnRoles(), role) || p.NamedRoles() && agentNameRe().MatchString(role) && len(role) <= 40:
		return ""
	}
	msg := fmt.Sprintf("agents.%s: %s has no role %s; its roles are %s", key, name, role, strings.Join(p.OwnRoles(), ", "))
	if near := model.Nearest(role, p.OwnRoles(), 1); len(near) > 0 {
		msg += fmt.Sprintf(" (did you mean agents.%s.%s?)", name, near[0])
	}
	return msg
}

// agentNames are the names a plain agents key may take.
func agentNames() []string {
	var out []string
	for _, r := range model.WorkflowRoles {
		out = append(out, string(r))
	}
	return append(append(out, model.DebateRoles()...), model.ProtocolNames()...)
}

// agentKeysAre says what the keys of agents are, for hints.
func agentKeysAre() string {
	var roles []string
	for _, r := range model.WorkflowRoles {
		roles = append(roles, string(r))
	}
	roles = append(roles, model.DebateRoles()...)
	return "a key of agents is a role (" + strings.Join(roles, ", ") + "), or a protocol (" +
		strings.Join(model.ProtocolNames(), ", ") + ") with its roles below it (agents.panel.judge); an agora position's agent is agents.agora.POSITION"
}
