package report

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/proofloop/proofloop/loop"
	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/skills"
	"github.com/proofloop/proofloop/store"
)

// Figures are the summary counts of a report.
type Figures struct {
	TurnsPerRole   []Count // events by the role of their command
	OtherCommands  []Count // events of commands that are not a role's skill
	RoundsHist     []Count // statements by rounds
	MostRounds     []Value // the statements with the most rounds
	TimeToTrue     []Value // first proof -> true, longest first
	MedianToTrue   string
	IssuesByType   []Count
	IssuesBySev    []Count
	IssuesTotal    int
	StatementCount int
	ByStatus       []Count
	Cost           []Value // what the agents' turns cost (run-usage events), by problem, role, agent and model
	Checkers       []Value // the measured checkers (checkerFigures)
}

// Count is one row of a frequency table.
type Count struct {
	Label string
	N     int
}

// Value is one statement's figure.
type Value struct {
	ID, Text string
}

// IssuesTotalText is the number of issues, in words.
func (f Figures) IssuesTotalText() string { return model.Count(f.IssuesTotal, "issue") }

// maxFigureRows bounds the per-statement tables; a 10k store would
// otherwise list every statement twice more.
const maxFigureRows = 20

// figures counts d. A command's role is its skill's first role in the
// registry, so the table follows the registry as skills are added; decide
// counts as its own role, as in the turn loop.
func figures(d *Data) Figures {
	var f Figures
	roles, other := map[string]int{}, map[string]int{}
	for _, ev := range d.Events {
		if sk, ok := skills.Find(ev.Command); ok && sk.Rule() != nil && len(sk.Rule().Roles) > 0 {
			roles[string(sk.Rule().Roles[0])]++
		} else if ev.Command == "decide" {
			roles["decide"]++
		} else {
			other[ev.Command]++
		}
	}
	for _, r := range skills.Roles() {
		f.TurnsPerRole = append(f.TurnsPerRole, Count{string(r), roles[string(r)]})
	}
	f.TurnsPerRole = append(f.TurnsPerRole, Count{"decide", roles["decide"]})
	f.OtherCommands = counts(other)
	f.Cost = costFigures(d.Events)
	f.Checkers = checkerFigures(d.Events)

	rounds, types, sevs, status := map[int]int{}, map[string]int{}, map[string]int{}, map[string]int{}
	var most []*StatementData
	type took struct {
		id string
		d  time.Duration
	}
	var toTrue []took
	for _, st := range d.Statements {
		f.StatementCount++
		status[string(st.Status)]++
		rounds[st.Round]++
		if st.Round > 0 {
			most = append(most, st)
		}
		for _, is := range st.Validate.Issues {
			types[is.ErrorType]++
			sevs[model.IssueSeverity(&is)]++
			f.IssuesTotal++
		}
		if st.Status == model.StatementTrue && st.FirstProofAt != "" && st.VerifiedAt != nil {
			a, b := instant(st.FirstProofAt), instant(*st.VerifiedAt)
			if !a.IsZero() && !b.IsZero() {
				toTrue = append(toTrue, took{st.ID, b.Sub(a)})
			}
		}
	}
	for _, n := range slices.Sorted(maps.Keys(rounds)) {
		f.RoundsHist = append(f.RoundsHist, Count{model.Count(n, "round"), rounds[n]})
	}
	slices.SortFunc(most, func(a, b *StatementData) int { return cmp.Or(cmp.Compare(b.Round, a.Round), cmp.Compare(a.ID, b.ID)) })
	for _, st := range most[:min(len(most), maxFigureRows)] {
		f.MostRounds = append(f.MostRounds, Value{st.ID, model.Count(st.Round, "round")})
	}
	slices.SortFunc(toTrue, func(a, b took) int { return cmp.Or(cmp.Compare(b.d, a.d), cmp.Compare(a.id, b.id)) })
	for _, t := range toTrue[:min(len(toTrue), maxFigureRows)] {
		f.TimeToTrue = append(f.TimeToTrue, Value{t.id, t.d.String()})
	}
	if len(toTrue) > 0 {
		f.MedianToTrue = toTrue[len(toTrue)/2].d.String()
	}
	f.IssuesByType = counts(types)
	f.IssuesBySev = counts(sevs)
	f.ByStatus = counts(status)
	return f
}

// counts is m as rows, most frequent first, then by label.
func counts(m map[string]int) []Count {
	var out []Count
	for k, n := range m {
		out = append(out, Count{k, n})
	}
	slices.SortFunc(out, func(a, b Count) int { return cmp.Or(cmp.Compare(b.N, a.N), cmp.Compare(a.Label, b.Label)) })
	return out
}

// costFigures sums the run-usage events: in all, then per problem, role,
// agent and model, each row "$cost (turns)".
func costFigures(events []store.Event) []Value {
	type sum struct {
		cost  float64
		turns int
	}
	sums := map[string]*sum{}
	var keys []string
	add := func(k string, c float64) {
		if sums[k] == nil {
			sums[k] = &sum{}
			keys = append(keys, k)
		}
		sums[k].cost += c
		sums[k].turns++
	}
	for _, ev := range events {
		u, ok := ev.Detail["usage"].(map[string]any)
		if ev.Command != loop.UsageCommand || !ok {
			continue
		}
		c, _ := u["cost_usd"].(float64)
		add("total", c)
		for _, by := range []struct{ name, v any }{{"problem", u["root"]}, {"role", u["role"]}, {"agent", ev.Detail["agent"]}, {"model", ev.Detail["model"]}} {
			if v, _ := by.v.(string); v != "" {
				add(fmt.Sprintf("%s %s", by.name, v), c)
			}
		}
	}
	slices.Sort(keys[min(1, len(keys)):])
	var out []Value
	for _, k := range keys {
		out = append(out, Value{ID: k, Text: fmt.Sprintf("$%.4f (%s)", sums[k].cost, model.Count(sums[k].turns, "turn"))})
	}
	return out
}
