package eval

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// Figure is counts and their rates.
type Figure struct {
	Counts model.Counts `json:"counts"`
	Rates  model.Rates  `json:"rates"`
}

func figureOf(c model.Counts) Figure { return Figure{c, c.Rates()} }

// CheckerRow is one agent's record, as status --checkers shows it: on the
// canaries settled in live runs, on the eval runs recorded, and both.
type CheckerRow struct {
	Role   model.Role `json:"role"`
	Agent  string     `json:"agent"`
	Model  string     `json:"model"`
	Label  string     `json:"label"`
	Canary Figure     `json:"canary"`
	Eval   Figure     `json:"eval"`
	All    Figure     `json:"all"`
	// Floor is where the agent stands against verify_min_reliability:
	// none (no floor set), unnamed (config.json names it not: its
	// confirmations are not judged), unmeasured (fewer than min_sample
	// flawed proofs), above, or below (its confirmations do not count).
	Floor string `json:"floor"`
	Why   string `json:"why,omitempty"`
}

// Checkers tallies checkers.jsonl by role, agent and model.
func Checkers(recs []model.CheckerRecord, cfg store.Config) []CheckerRow {
	type key struct {
		role model.Role
		l    model.AgentLabel
		name string
	}
	rows := map[key]*CheckerRow{}
	var order []key
	for _, r := range recs {
		k := key{r.Role, r.AgentLabel, ""}
		if r.Agent == "" && r.Model == "" {
			k.name = r.Label // unnamed: kept apart by what people know it by
		}
		row := rows[k]
		if row == nil {
			row = &CheckerRow{Role: r.Role, Agent: r.Agent, Model: r.Model, Label: cmp.Or(r.Label, r.Agent, r.Model)}
			rows[k], order = row, append(order, k)
		}
		if r.Source == model.RecordCanary {
			row.Canary.Counts = row.Canary.Counts.Plus(r.Counts)
		} else {
			row.Eval.Counts = row.Eval.Counts.Plus(r.Counts)
		}
	}
	out := []CheckerRow{}
	for _, k := range order {
		row := rows[k]
		row.All.Counts = row.Canary.Counts.Plus(row.Eval.Counts)
		for _, f := range []*Figure{&row.Canary, &row.Eval, &row.All} {
			f.Rates = f.Counts.Rates()
		}
		row.Floor, row.Why = floorOf(cfg.VerifyMinReliability, row)
		out = append(out, *row)
	}
	slices.SortStableFunc(out, func(a, b CheckerRow) int {
		return cmp.Or(cmp.Compare(a.Role, b.Role), cmp.Compare(a.Label, b.Label), cmp.Compare(a.Model, b.Model))
	})
	return out
}

func floorOf(m *model.MinReliability, row *CheckerRow) (string, string) {
	r := row.All.Rates.Catch
	switch {
	case m == nil || row.Role != model.RoleCheck:
		return "none", ""
	case row.Agent == "" && row.Model == "":
		return "unnamed", "config.json gives it no name or model label: its confirmations are not judged"
	case r.N < m.MinSample:
		return "unmeasured", fmt.Sprintf("%d of the %d flawed proofs verify_min_reliability needs", r.N, m.MinSample)
	}
	if why := m.Below(row.All.Counts); why != "" {
		return "below", why + ": its confirmations do not count"
	}
	return "above", fmt.Sprintf("the lower end %.2f reaches verify_min_reliability %.2f", *r.Low, m.CatchRate)
}

// WriteCheckers writes status --checkers for a person.
func WriteCheckers(w io.Writer, rows []CheckerRow, cfg store.Config) {
	if m := cfg.VerifyMinReliability; m != nil {
		fmt.Fprintf(w, "verify_min_reliability: a checker's catch rate, measured on at least %d flawed proofs, must have its 95%% interval's lower end at %.2f or more, or its confirmations do not count.\n", m.MinSample, m.CatchRate)
	} else {
		fmt.Fprintln(w, "verify_min_reliability is not set: every confirmation counts.")
	}
	if len(rows) == 0 {
		fmt.Fprintln(w, "No agent measured yet: `proofloop eval` measures a role's agents; canaries (config.json) measure them in live runs.")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "role\tagent\tmodel\ton\tseen\tcaught\tmissed\tfalse rejects\tlocated\tcatch rate\tfloor\t")
	for _, r := range rows {
		type part struct {
			on string
			f  Figure
		}
		var parts []part
		if r.Canary.Counts.Items > 0 {
			parts = append(parts, part{"canaries", r.Canary})
		}
		if r.Eval.Counts.Items > 0 {
			parts = append(parts, part{"eval", r.Eval})
		}
		if len(parts) > 1 {
			parts = append(parts, part{"all", r.All})
		}
		for i, part := range parts {
			floor := ""
			if i == len(parts)-1 {
				floor = r.Floor
			}
			// A prover catches a false claim by showing it false (or
			// changing it), and misses it by proving it.
			c, catch, rejects := part.f.Counts, part.f.Rates.Catch, RateText(part.f.Rates.FalseReject)
			caught, missed := c.CaughtFlawed, c.MissedFlawed
			if r.Role == model.RoleProve {
				caught, missed, catch, rejects = c.ShownFalse+c.ProposedChange, c.ProvedFalse, part.f.Rates.Refuted, "-"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%d\t%s\t%d\t%s\t%s\t\n", r.Role, r.Label, dash(r.Model), part.on, c.Items,
				caught, missed, rejects, c.Located, RateText(catch), floor)
		}
	}
	tw.Flush()
	for _, r := range rows {
		if r.Floor == "below" {
			fmt.Fprintf(w, "%s (%s): %s.\n", r.Label, dash(r.Model), r.Why)
		}
	}
}
