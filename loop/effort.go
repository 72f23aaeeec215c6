package loop

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// Effort is an honest account of what a solved problem took, for its
// export: the rounds spent at each level of escalation, the dead ends and
// their lessons, who acted (actors, agents, models), the tokens and cost
// its agents reported, and the time from the problem's creation to solved.
// It covers every statement under the problem, the false and abandoned
// ones too, not only those its proof rests on.
type Effort struct {
	Statements, False int
	Rounds, IdleTurns int
	ByLevel           []LevelEffort
	DeadEnds          []EffortDeadEnd
	Actors            []ActorEffort
	Turns             int // agent turns that reported usage
	InputTokens       int64
	OutputTokens      int64
	CostUSD           float64
	// Created is when the problem was created; Started when its tree was
	// first changed after that; Solved when it was solved, and Elapsed the
	// time from Started to Solved.
	Created, Started, Solved string
	Elapsed                  time.Duration
}

// LevelEffort is what the statements spent at one level of escalation.
type LevelEffort struct {
	Level      string
	Spent      int // rounds and idle turns
	Statements int // how many statements reached the level
}

// EffortDeadEnd is one dead end under the problem.
type EffortDeadEnd struct {
	Statement string
	model.DeadEnd
}

// ActorEffort is one actor who changed the problem's documents: the roles
// it acted in, its agents and models, and how many changes it made.
type ActorEffort struct {
	Actor   string
	Roles   []string
	Agents  []string
	Models  []string
	Changes int
}

// newProblemCommand is the event command of `proofloop new-problem`: the
// problem's creation, which the account's time does not start from (the
// example project ships its problem created long before it is run).
const newProblemCommand = "new-problem"

// ReadEffort gathers the effort of problem p (a root problem) from its
// documents and one pass over the event log.
func ReadEffort(ctx context.Context, s *store.Store, p *model.Problem) (*Effort, error) {
	snap, err := Subtree(s, p.ID)
	if err != nil {
		return nil, err
	}
	e := &Effort{Created: p.CreatedAt}
	if p.SolvedAt != nil {
		e.Solved = *p.SolvedAt
	}
	t := &effortTally{spent: map[string]int{}, reached: map[string]int{}, actors: map[string]*ActorEffort{}}
	if err := t.statements(s, snap, e); err != nil {
		return nil, err
	}
	if err := Events(ctx, s, 0, false, func(_ int, line []byte) error {
		t.event(gjson.ParseBytes(line), p.ID, snap, e)
		return nil
	}); err != nil {
		return nil, err
	}
	if a, b := instantOf(e.Started), instantOf(e.Solved); !a.IsZero() && !b.IsZero() {
		e.Elapsed = b.Sub(a)
	}
	for _, l := range model.Levels {
		if t.reached[l.Name] > 0 || t.spent[l.Name] > 0 {
			e.ByLevel = append(e.ByLevel, LevelEffort{Level: l.Name, Spent: t.spent[l.Name], Statements: t.reached[l.Name]})
		}
	}
	for _, k := range slices.Sorted(maps.Keys(t.actors)) {
		e.Actors = append(e.Actors, *t.actors[k])
	}
	return e, nil
}

// effortTally is what ReadEffort adds up: the rounds spent and the
// statements that reached each level, and each actor's account.
type effortTally struct {
	spent, reached map[string]int
	actors         map[string]*ActorEffort
}

// statements counts what the tree's statements hold: rounds, idle turns,
// the rounds spent at the level each is at now (the levels it left are in
// the events), its dead ends.
func (t *effortTally) statements(s *store.Store, snap *Snapshot, e *Effort) error {
	cfg, err := s.Config()
	if err != nil {
		return err
	}
	for _, id := range slices.Sorted(maps.Keys(snap.Items)) {
		if snap.Items[id].Kind != model.KindStatement {
			continue
		}
		doc, err := s.Read(id)
		if err != nil {
			return err
		}
		st, err := doc.Statement()
		if err != nil {
			return err
		}
		e.Statements++
		if st.Status == model.StatementFalse {
			e.False++
		}
		e.Rounds += st.Round
		e.IdleTurns += st.IdleTurns
		step := cfg.Policy().StepOf(st)
		t.spent[step.Level] += step.Spent
		t.reached[model.LevelRevise]++
		for _, d := range st.DeadEnds {
			e.DeadEnds = append(e.DeadEnds, EffortDeadEnd{Statement: id, DeadEnd: d})
		}
	}
	return nil
}

// event counts one event of the log: a turn's usage on the problem, or a
// change of a document of its tree (not a lease's claim or release), with
// the climb it records.
func (t *effortTally) event(ev gjson.Result, problem string, snap *Snapshot, e *Effort) {
	cmd := ev.Get("command").String()
	if cmd == UsageCommand {
		if u := ev.Get("detail.usage"); u.Get("root").String() == problem {
			e.Turns++
			e.InputTokens += u.Get("input_tokens").Int()
			e.OutputTokens += u.Get("output_tokens").Int()
			e.CostUSD += u.Get("cost_usd").Float()
			actorOf(t.actors, ev).note("", ev)
		}
		return
	}
	if ev.Get("changes.#").Int() == 0 || !slices.ContainsFunc(ev.Get("ids").Array(), func(r gjson.Result) bool { return snap.Items[r.String()] != nil }) {
		return
	}
	if e.Started == "" && cmd != newProblemCommand {
		e.Started = ev.Get("time").String()
	}
	if x := ev.Get("detail.escalated"); x.Exists() {
		t.spent[x.Get("from").String()] += int(x.Get("spent").Int())
		t.reached[x.Get("to").String()]++
	}
	a := actorOf(t.actors, ev)
	a.Changes++
	role := "" // a skill of two roles (state-mark-false) names none
	if r, ok := model.Lookup(cmd); ok && len(r.Roles) == 1 {
		role = string(r.Roles[0])
	}
	a.note(role, ev)
}

// actorOf is the account of an event's actor ("?" for none).
func actorOf(actors map[string]*ActorEffort, ev gjson.Result) *ActorEffort {
	name := ev.Get("actor").String()
	if name == "" {
		name = "?"
	}
	if actors[name] == nil {
		actors[name] = &ActorEffort{Actor: name}
	}
	return actors[name]
}

// note adds a role, and the event's agent and model, to an actor.
func (a *ActorEffort) note(role string, ev gjson.Result) {
	add := func(list *[]string, v string) {
		if v != "" && !slices.Contains(*list, v) {
			*list = append(*list, v)
			sort.Strings(*list)
		}
	}
	add(&a.Roles, role)
	add(&a.Agents, ev.Get("detail.agent").String())
	add(&a.Models, ev.Get("detail.model").String())
}

func instantOf(ts string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, ts)
	return t
}

// Lines says the account in a few lines of plain text, one fact each; the
// export renders them (escaped for LaTeX, as written for Markdown).
func (e *Effort) Lines() []string {
	var out []string
	if e.Solved != "" && e.Started != "" {
		out = append(out, fmt.Sprintf("Time: %s, from the first change of its tree (%s) to solved (%s); the problem was created %s.", e.Elapsed.Round(time.Second), e.Started, e.Solved, e.Created))
	}
	var levels []string
	for _, l := range e.ByLevel {
		levels = append(levels, fmt.Sprintf("%s %d (%s)", l.Level, l.Spent, model.Count(l.Statements, "statement")))
	}
	out = append(out, fmt.Sprintf("Statements: %d, %d of them false. Rounds: %d in all, and %s; spent by level of escalation: %s.",
		e.Statements, e.False, e.Rounds, model.Count(e.IdleTurns, "idle turn"), strings.Join(levels, ", ")))
	if len(e.DeadEnds) == 0 {
		out = append(out, "Dead ends: none.")
	} else {
		out = append(out, fmt.Sprintf("Dead ends: %d.", len(e.DeadEnds)))
	}
	for _, d := range e.DeadEnds {
		lesson := "no lesson was written"
		if d.Lesson != nil {
			lesson = "lesson: " + *d.Lesson
		}
		out = append(out, fmt.Sprintf("Dead end %d of %s, at level %s: %s; %s", d.Number, d.Statement, d.Level, d.Approach(), lesson))
	}
	var who []string
	for _, a := range e.Actors {
		s := a.Actor
		var tags []string
		if len(a.Roles) > 0 {
			tags = append(tags, strings.Join(a.Roles, ", "))
		}
		if len(a.Agents) > 0 {
			tags = append(tags, "agent "+strings.Join(a.Agents, ", "))
		}
		if len(a.Models) > 0 {
			tags = append(tags, "model "+strings.Join(a.Models, ", "))
		}
		tags = append(tags, model.Count(a.Changes, "change"))
		who = append(who, s+" ("+strings.Join(tags, "; ")+")")
	}
	out = append(out, "Who acted: "+strings.Join(who, ", ")+".")
	if e.Turns == 0 {
		out = append(out, "Tokens and cost: no agent turn reported its usage.")
	} else {
		out = append(out, fmt.Sprintf("Tokens and cost: %s reported %d tokens in, %d out, $%.4f.", model.Count(e.Turns, "agent turn"), e.InputTokens, e.OutputTokens, e.CostUSD))
	}
	return out
}
