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

// agentKey names one agent of a role, for the give-up count.
func agentKey(role model.Role, i int) string { return fmt.Sprintf("%s#%d", role, i) }

// actingName is the actor of agent a of role on worker w.
func actingName(role model.Role, a store.Agent, w int) string {
	if a.Name == "" {
		return fmt.Sprintf("%s-%d", role, w)
	}
	return fmt.Sprintf("%s-%s-%d", role, a.Name, w)
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
			actor, place, err := seatActor(tx, it.ID)
			if err != nil {
				return Acting{}, false, err
			}
			i, ok := r.seatAgent(it.Role, place)
			if !ok {
				return Acting{}, false, nil
			}
			a := r.agents[it.Role][i]
			return Acting{Actor: actor, Index: i, Agent: a.Name, Model: a.Model}, true, nil
		}
		agents := r.agents[it.Role]
		var exclude func(Acting) string
		if it.Role == model.RoleCheck && it.Kind == model.KindStatement {
			var err error
			if exclude, err = r.cannotConfirm(tx, it.ID); err != nil {
				return Acting{}, false, err
			}
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		start := r.rotation[it.Role]
		var why []string
		for k := range agents {
			i := (start + k) % len(agents)
			if r.givenUp[agentKey(it.Role, i)] {
				continue
			}
			a := agents[i]
			acting := Acting{Actor: actingName(it.Role, a, w), Index: i, Agent: a.Name, Model: a.Model}
			if exclude != nil {
				if reason := exclude(acting); reason != "" {
					if !slices.Contains(why, reason) { // two agents of one model: one reason
						why = append(why, reason)
					}
					continue
				}
			}
			r.rotation[it.Role] = i + 1
			delete(r.passed, it.ID)
			return acting, true, nil
		}
		if len(why) > 0 {
			r.passed[it.ID] = "no check agent can still count toward verify_quorum: " + strings.Join(why, "; ")
		}
		return Acting{}, false, nil
	}
}

// seatAgent is the agent of a debate role that sits in the role's seat
// number place (0 for its first): the role's agents in turn, seat by seat,
// so that a socratic duel between two participant agents seats one of
// each, and a seat keeps its agent for all its turns. A seat whose agent
// was given up goes to the role's next agent; false when all were.
func (r *runner) seatAgent(role model.Role, place int) (int, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	agents := r.agents[role]
	for k := range agents {
		if i := (place + k) % len(agents); !r.givenUp[agentKey(role, i)] {
			return i, true
		}
	}
	return 0, false
}

// cannotCount says, for a check turn on statement id under verify_distinct
// agent or model, why an agent's check would not count: its party (agent
// or model) wrote the proof revision, or confirmed it already. Under
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
	author := ""
	if st.ProofAuthor != nil {
		author = *st.ProofAuthor
	}
	authorParty := model.Party(cfg.VerifyDistinct, author, model.AgentLabel{Agent: st.ProofAuthorAgent, Model: st.ProofAuthorModel})
	confirmed := st.Confirmers(cfg.VerifyDistinct, st.ProofRevision)
	return func(a Acting) string {
		p := model.Party(cfg.VerifyDistinct, a.Actor, model.AgentLabel{Agent: a.Agent, Model: a.Model})
		switch {
		case p == authorParty:
			return fmt.Sprintf("%s wrote proof revision %d", p, st.ProofRevision)
		case slices.Contains(confirmed, p):
			return fmt.Sprintf("%s confirmed it already", p)
		}
		return ""
	}, nil
}

// agentOf is the agent of a claimed item's role that takes the turn.
func (r *runner) agentOf(c *Claimed) store.Agent {
	agents := r.agents[c.Item.Role]
	if c.Acting.Index < len(agents) {
		return agents[c.Acting.Index]
	}
	return store.Agent{}
}
