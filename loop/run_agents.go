package loop

import (
	"fmt"
	"slices"
	"strings"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// A role of config.json may have several agents (a list of {name, model,
// command}). run spreads the role's turns over them in turn, and each
// turn's actor is ROLE-AGENT-N (ROLE-N for a role's single unnamed
// agent), N the worker that runs it. With verify_distinct agent or model,
// a check turn goes only to an agent whose agent or model can still count
// toward the quorum: not the proof's author's, not one that confirmed the
// proof revision already.
//
// The agents are found by their key below agents (store.AgentTable.For): on
// a debate, the protocol's own (panel.judge) ahead of the plain role's
// (judge), so that two protocols that share a role name each get their own
// agent; an agora position's only under agora.

// agentKey names one agent of an agents key, for the give-up count.
func agentKey(key string, i int) string { return fmt.Sprintf("%s#%d", key, i) }

// actingName is the actor of agent a of role on worker w.
func actingName(role model.Role, a store.Agent, w int) string {
	if a.Name == "" {
		return fmt.Sprintf("%s-%d", role, w)
	}
	return fmt.Sprintf("%s-%s-%d", role, a.Name, w)
}

// setAgents keeps the agents of config.json that have a command, by their
// key below agents, and the roles they serve.
func (r *runner) setAgents(table store.AgentTable) {
	r.table, r.agents, r.live = table, map[string]store.Agents{}, map[string]bool{}
	for _, key := range table.Keys() {
		protocol, role, nested := strings.Cut(key, ".")
		if !nested {
			protocol, role = "", key
		}
		list, _ := table.For(protocol, role)
		var agents store.Agents
		for _, a := range list {
			if a.Command = strings.TrimSpace(a.Command); a.Command != "" {
				agents = append(agents, a)
			}
		}
		if len(agents) > 0 {
			r.agents[key], r.live[key] = agents, true
		}
	}
	r.liveRoles()
}

// liveRoles sets the roles run claims for: those of the agents keys not
// given up, workflow roles first; the caller holds mu or is alone.
func (r *runner) liveRoles() {
	r.roles, r.debateRoles = nil, nil
	for _, role := range model.WorkflowRoles {
		if r.live[string(role)] {
			r.roles = append(r.roles, role)
		}
	}
	for key := range r.live {
		role := model.Role(key[strings.LastIndexByte(key, '.')+1:])
		if slices.Contains(model.WorkflowRoles, role) && role == model.Role(key) {
			continue
		}
		if !slices.Contains(r.debateRoles, role) {
			r.debateRoles = append(r.debateRoles, role)
		}
	}
	slices.Sort(r.debateRoles)
	for _, role := range r.debateRoles {
		if !slices.Contains(r.roles, role) {
			r.roles = append(r.roles, role)
		}
	}
}

// keyFor is the agents key whose agents take role's turns in a debate of
// protocol ("" for the workflow), or "" when run has none for it.
func (r *runner) keyFor(protocol string, role model.Role) string {
	_, key := r.table.For(protocol, string(role))
	if len(r.agents[key]) == 0 {
		return ""
	}
	return key
}

// actorFor picks the agent that worker w runs on an item, and names its
// actor. A canary's item (its root, canary) is passed over by every claim
// but its own, and only it: no other turn of the run takes a canary, and a
// canary turn takes nothing else.
// actor; run claims the item in that name (the lease binds it and the
// agent's name and model: no agent of a run acts as another). On a debate
// it is the actor of the seat that writes next, or of the seat to be
// joined (<role>-<n>), so that each seat is its own actor whichever
// worker runs it.
func (r *runner) actorFor(w int, canary string) ActorFor {
	return func(tx *store.Tx, it *Item) (Acting, bool, error) {
		r.mu.Lock()
		capped, planted := r.capped(it.Root), r.isPlanted(it.Root)
		r.mu.Unlock()
		if capped != "" || planted != (it.Root == canary) {
			return Acting{}, false, nil // its root problem spent its max_cost_usd; a canary's, or not the canary's
		}
		if it.Kind == model.KindDebate {
			seat, err := seatActor(tx, it.ID)
			if err != nil {
				return Acting{}, false, err
			}
			key := r.keyFor(seat.protocol, it.Role)
			if key == "" {
				return Acting{}, false, nil // no agent for this protocol's role
			}
			i, ok := r.seatAgent(key, seat.place)
			if !ok {
				return Acting{}, false, nil
			}
			a := r.agents[key][i]
			return Acting{Actor: seat.actor, Key: key, Index: i, Agent: a.Name, Model: a.Model}, true, nil
		}
		key := string(it.Role)
		agents := r.agents[key]
		var exclude func(Acting) string
		if it.Role == model.RoleCheck && it.Kind == model.KindStatement {
			var err error
			if exclude, err = r.cannotConfirm(tx, it.ID); err != nil {
				return Acting{}, false, err
			}
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		start := r.rotation[key]
		var why []string
		for k := range agents {
			i := (start + k) % len(agents)
			if r.givenUp[agentKey(key, i)] {
				continue
			}
			a := agents[i]
			acting := Acting{Actor: actingName(it.Role, a, w), Key: key, Index: i, Agent: a.Name, Model: a.Model}
			if exclude != nil {
				if reason := exclude(acting); reason != "" {
					if !slices.Contains(why, reason) { // two agents of one model: one reason
						why = append(why, reason)
					}
					continue
				}
			}
			r.rotation[key] = i + 1
			delete(r.passed, it.ID)
			return acting, true, nil
		}
		if len(why) > 0 {
			r.passed[it.ID] = "no check agent can still count toward verify_quorum: " + strings.Join(why, "; ")
		}
		return Acting{}, false, nil
	}
}

// seatAgent is the agent of a debate role, under its agents key, that
// sits in the role's seat number place (0 for its first): the key's agents
// in turn, seat by seat, so that a socratic duel between two participant
// agents seats one of each, and a seat keeps its agent for all its turns.
// A seat whose agent was given up goes to the key's next agent; false when
// all were.
func (r *runner) seatAgent(key string, place int) (int, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	agents := r.agents[key]
	for k := range agents {
		if i := (place + k) % len(agents); !r.givenUp[agentKey(key, i)] {
			return i, true
		}
	}
	return 0, false
}

// cannotCount says, for a check turn on statement id under verify_distinct
// agent or model, why an agent's check would not count: its party (agent
// or model) wrote any of the proof revision (Statement.Writers), or
// confirmed it already. Under
// verify_distinct actor every agent may take the turn (run's actors are
// distinct by worker), as before.
func (r *runner) cannotCount(tx *store.Tx, id string) (func(Acting) string, error) {
	cfg, err := tx.Config()
	if err != nil || cfg.VerifyDistinct == "" || cfg.VerifyDistinct == model.DistinctActor {
		return nil, err
	}
	d, err := tx.Get(id)
	if err != nil {
		return nil, err
	}
	st, err := d.Statement()
	if err != nil {
		return nil, err
	}
	var writers []string // the parties that wrote any of the revision
	for _, w := range st.Writers() {
		writers = append(writers, model.Party(cfg.VerifyDistinct, w.Actor, w.AgentLabel))
	}
	confirmed := st.Confirmers(cfg.VerifyDistinct, st.ProofRevision)
	return func(a Acting) string {
		p := model.Party(cfg.VerifyDistinct, a.Actor, model.AgentLabel{Agent: a.Agent, Model: a.Model})
		switch {
		case slices.Contains(writers, p):
			return fmt.Sprintf("%s wrote proof revision %d, or a patch in it", p, st.ProofRevision)
		case slices.Contains(confirmed, p):
			return fmt.Sprintf("%s confirmed it already", p)
		}
		return ""
	}, nil
}

// agentOf is the agent of config.json that takes the turn on a claimed
// item.
func (r *runner) agentOf(c *Claimed) store.Agent {
	agents := r.agents[c.Acting.Key]
	if c.Acting.Index < len(agents) {
		return agents[c.Acting.Index]
	}
	return store.Agent{}
}

// noAgent says why run has no agent for an item's turn, or "": for a
// debate, the agents key its protocol and role want.
func (r *runner) noAgent(it *Item) string {
	if it.Kind != model.KindDebate {
		if len(r.agents[string(it.Role)]) == 0 {
			return "no agent for " + string(it.Role) + " in config.json"
		}
		return ""
	}
	d, err := r.s.Read(it.ID)
	if err != nil {
		return ""
	}
	protocol := d.Get("protocol").String()
	if r.keyFor(protocol, it.Role) != "" {
		return ""
	}
	keys := "agents." + protocol + "." + string(it.Role)
	if p, err := model.LookupProtocol(protocol); err == nil && slices.Contains(p.OwnRoles(), string(it.Role)) {
		keys += " or agents." + string(it.Role)
	}
	return fmt.Sprintf("no agent for %s of %s in config.json: set %s", it.Role, protocol, keys)
}
