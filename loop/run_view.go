package loop

import (
	"slices"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// A view of the latest `proofloop run`, derived from the store alone, so
// that serve shows it from another process (or machine, on PostgreSQL) and
// updates it as events commit: each turn starts with run's claim (the
// holder run-<run-id>-w<N>, with the agent's actor, name and model) and
// ends with its run-turn event (how it ended, the agent's error, whether
// the agent was given up); its usage is its run-usage event. What is in
// flight is what run's holders lease now.

// RunLog folds the log's events into what a run view needs. Add the events
// in order; it keeps only sums and the latest run's turns, so that a
// long-lived reader (serve) adds each new event once.
type RunLog struct {
	Seq      int // the last event added
	runs     map[string]*runTally
	latest   string             // the run id of the latest run event
	rootCost map[string]float64 // every run's cost, by root problem
}

// runTally is one run as its events tell it.
type runTally struct {
	id                    string
	started               string // the time of its first claim
	turns                 int
	in, out               int64
	cost                  float64
	failures              []TurnFailure
	givenUp               []string
	lastTurn, lastOutcome string
}

// TurnFailure is a turn of the run that did not end ok.
type TurnFailure struct {
	Turn       int    `json:"turn"`
	Role       string `json:"role"`
	ID         string `json:"id"`
	Agent      string `json:"agent"`
	CLI        string `json:"cli"`
	Outcome    string `json:"outcome"`
	ExitCode   *int   `json:"exit_code"`
	AgentError string `json:"agent_error,omitempty"`
	NoCall     bool   `json:"no_call"`
	GivenUp    bool   `json:"given_up"`
	Time       string `json:"time"`
}

// NewRunLog is an empty RunLog.
func NewRunLog() *RunLog {
	return &RunLog{runs: map[string]*runTally{}, rootCost: map[string]float64{}}
}

// Add folds the event seq (its JSON line) in.
func (l *RunLog) Add(seq int, line []byte) {
	l.Seq = seq
	ev := gjson.ParseBytes(line)
	switch ev.Get("command").String() {
	case "next", "claim":
		holder := ev.Get("detail.claim.holder").String()
		id, ok := runOfHolder(holder)
		if !ok {
			return
		}
		t := l.run(id)
		t.turns++
		if t.started == "" {
			t.started = ev.Get("time").String()
		}
	case UsageCommand:
		u := ev.Get("detail.usage")
		l.rootCost[u.Get("root").String()] = AddCost(l.rootCost[u.Get("root").String()], u.Get("cost_usd").Float())
		t := l.run(u.Get("run_id").String())
		t.in = AddTokens(t.in, u.Get("input_tokens").Int())
		t.out = AddTokens(t.out, u.Get("output_tokens").Int())
		t.cost = AddCost(t.cost, u.Get("cost_usd").Float())
	case TurnCommand:
		d := ev.Get("detail.turn")
		t := l.run(d.Get("run_id").String())
		t.lastTurn, t.lastOutcome = ev.Get("time").String(), d.Get("outcome").String()
		agent := cmpOr(ev.Get("detail.agent").String(), d.Get("role").String())
		if d.Get("outcome").String() != TurnOK {
			f := TurnFailure{Turn: int(d.Get("turn").Int()), Role: d.Get("role").String(), ID: d.Get("id").String(), Agent: agent,
				CLI: d.Get("cli").String(), Outcome: d.Get("outcome").String(), AgentError: d.Get("agent_error").String(),
				NoCall: d.Get("no_call").Bool(), GivenUp: d.Get("given_up").Bool(), Time: ev.Get("time").String()}
			if c := d.Get("exit_code"); c.Exists() {
				n := int(c.Int())
				f.ExitCode = &n
			}
			t.failures = append(t.failures, f)
		}
		if d.Get("given_up").Bool() {
			t.givenUp = append(t.givenUp, d.Get("role").String()+" agent "+agent)
		}
	}
}

// run is the tally of run id, the latest run from now on.
func (l *RunLog) run(id string) *runTally {
	t := l.runs[id]
	if t == nil {
		t = &runTally{id: id}
		l.runs[id] = t
	}
	if id > l.latest || l.latest == "" {
		l.latest = id // run ids are their start times, so they sort as they started
	}
	return t
}

// runOfHolder is the run id of a lease holder that run named.
func runOfHolder(holder string) (string, bool) {
	rest, ok := strings.CutPrefix(holder, "run-")
	if !ok {
		return "", false
	}
	i := strings.LastIndex(rest, "-w")
	if i <= 0 {
		return "", false
	}
	return rest[:i], runIDPattern().MatchString(rest[:i])
}

// RunView is the latest run as serve shows it.
type RunView struct {
	RunID    string        `json:"run_id"` // "" when the store has seen no run
	Started  string        `json:"started_at"`
	InFlight []LiveTurn    `json:"in_flight"` // its turns running now
	Leases   []LiveLease   `json:"leases"`    // every live lease, run's and others'
	Turns    int           `json:"turns"`
	Ended    int           `json:"ended"`
	Tokens   [2]int64      `json:"tokens"` // in, out
	CostUSD  float64       `json:"cost_usd"`
	Costs    []RootCost    `json:"costs"` // each root problem's cost over all runs, against max_cost_usd
	Failures []TurnFailure `json:"failures"`
	GivenUp  []string      `json:"given_up"`
	Stuck    []Stuck       `json:"stuck"`
	// Now is when the view was made: the times so far are counted to it.
	Now time.Time `json:"-"`
}

// LiveTurn is a turn in flight.
type LiveTurn struct {
	Role      string        `json:"role"`
	ID        string        `json:"id"`
	Actor     string        `json:"actor"`
	Agent     string        `json:"agent"`
	CLI       string        `json:"cli"`
	Model     string        `json:"model"`
	Since     string        `json:"since"`
	Elapsed   time.Duration `json:"-"`
	ExpiresAt string        `json:"expires_at"`
}

// LiveLease is a live lease.
type LiveLease struct {
	ID, Role, Holder, Actor, ExpiresAt string
	ExpiresIn                          time.Duration
}

// RootCost is a root problem's cost over all runs, and its cap.
type RootCost struct {
	Root       string
	CostUSD    float64
	MaxCostUSD float64 // config.json's max_cost_usd; 0: no cap
}

// View is the latest run as the store has it now.
func (l *RunLog) View(s *store.Store) (*RunView, error) {
	v := &RunView{Now: s.Now(), InFlight: []LiveTurn{}, Leases: []LiveLease{}, Failures: []TurnFailure{}, GivenUp: []string{}, Stuck: []Stuck{}}
	cfg, err := s.Config()
	if err != nil {
		return nil, err
	}
	snap, err := Load(s)
	if err != nil {
		return nil, err
	}
	if t := l.runs[l.latest]; t != nil {
		v.RunID, v.Started, v.Turns, v.CostUSD = t.id, t.started, t.turns, t.cost
		v.Tokens = [2]int64{t.in, t.out}
		v.Failures, v.GivenUp = append(v.Failures, t.failures...), append(v.GivenUp, t.givenUp...)
	}
	for _, root := range snap.Roots {
		v.Costs = append(v.Costs, RootCost{Root: root, CostUSD: l.rootCost[root], MaxCostUSD: cfg.MaxCostUSD})
	}
	ids := make([]string, 0, len(snap.Items))
	for id := range snap.Items {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		it := snap.Items[id]
		if it.Holder != "" {
			lease, err := s.ReadLease(id)
			if err != nil {
				return nil, err
			}
			if lease != nil && lease.Live(v.Now) {
				v.addLease(lease, cfg)
			}
		}
		switch {
		case it.Outcome == model.OutcomeExhausted:
			v.Stuck = append(v.Stuck, Stuck{ID: id, Role: it.Role, Reason: it.Reason + " (its round budget is spent: a person decides)"})
		case it.Role != "" && len(agentsOfItem(s, cfg.Agents, id, it)) == 0:
			v.Stuck = append(v.Stuck, Stuck{ID: id, Role: it.Role, Reason: it.Reason + " (no agent for " + string(it.Role) + " in config.json)"})
		}
	}
	return v, nil
}

// addLease adds a live lease, and its turn when run's latest run holds it.
func (v *RunView) addLease(l *store.Lease, cfg store.Config) {
	exp, _ := time.Parse(time.RFC3339Nano, l.ExpiresAt)
	v.Leases = append(v.Leases, LiveLease{ID: l.ID, Role: l.Role, Holder: l.Holder, Actor: l.Actor, ExpiresAt: l.ExpiresAt, ExpiresIn: exp.Sub(v.Now)})
	if id, ok := runOfHolder(l.Holder); !ok || id != v.RunID {
		return
	}
	t := LiveTurn{Role: l.Role, ID: l.ID, Actor: l.Actor, Agent: l.Agent, Model: l.Model, Since: l.ClaimedAt, ExpiresAt: l.ExpiresAt}
	if at, err := time.Parse(time.RFC3339Nano, l.ClaimedAt); err == nil {
		t.Elapsed = v.Now.Sub(at)
	}
	for _, key := range cfg.Agents.Keys() {
		if key != l.Role && !strings.HasSuffix(key, "."+l.Role) {
			continue // another role's, or another protocol's
		}
		protocol, role, nested := strings.Cut(key, ".")
		if !nested {
			protocol, role = "", key
		}
		list, _ := cfg.Agents.For(protocol, role)
		for _, a := range list {
			if a.Name == l.Agent {
				t.CLI, _ = AgentIdentity(a.Command)
				t.Model = cmpOr(t.Model, agentModel(a))
			}
		}
	}
	v.InFlight = append(v.InFlight, t)
}

// agentsOfItem are the agents config.json gives an item's role: on a
// debate, those of its protocol (store.AgentTable.For).
func agentsOfItem(s *store.Store, table store.AgentTable, id string, it *Item) store.Agents {
	protocol := ""
	if it.Kind == model.KindDebate {
		if d, err := s.Read(id); err == nil {
			protocol = d.Get("protocol").String()
		}
	}
	a, _ := table.For(protocol, string(it.Role))
	return a
}
