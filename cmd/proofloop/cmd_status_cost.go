package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/proofloop/proofloop/loop"
	"github.com/proofloop/proofloop/store"
)

// costSum is the usage of a group of turns.
type costSum struct {
	Turns        int     `json:"turns"`
	InputTokens  int64   `json:"input_tokens"`
	OutputTokens int64   `json:"output_tokens"`
	CostUSD      float64 `json:"cost_usd"`
}

func (c *costSum) add(l loop.CostLine) {
	c.Turns++
	c.InputTokens = loop.AddTokens(c.InputTokens, l.InputTokens)
	c.OutputTokens = loop.AddTokens(c.OutputTokens, l.OutputTokens)
	c.CostUSD = loop.AddCost(c.CostUSD, l.CostUSD)
}

// statusCost prints what the agents' turns cost, summed from the log's
// run-usage events: in all, and per root problem, role, agent and model.
func (a *app) statusCost(cmd *cobra.Command, s *store.Store, problem string) error {
	lines, err := loop.Costs(cmd.Context(), s)
	if err != nil {
		return err
	}
	total := &costSum{}
	groups := map[string]map[string]*costSum{"problem": {}, "role": {}, "agent": {}, "model": {}}
	for _, l := range lines {
		if problem != "" && l.Root != problem {
			continue
		}
		total.add(l)
		for by, key := range map[string]string{"problem": l.Root, "role": l.Role, "agent": l.Agent, "model": l.Model} {
			if key == "" {
				key = "-"
			}
			if groups[by][key] == nil {
				groups[by][key] = &costSum{}
			}
			groups[by][key].add(l)
		}
	}
	if a.json {
		return a.writeJSON(map[string]any{"ok": true, "command": "status", "cost": map[string]any{"total": total,
			"by_problem": groups["problem"], "by_role": groups["role"], "by_agent": groups["agent"], "by_model": groups["model"]}})
	}
	fmt.Fprintf(a.stdout, "Cost: $%.4f in %s (%d tokens in, %d out).\n", total.CostUSD, plural(total.Turns, "turn", "turns"), total.InputTokens, total.OutputTokens)
	for _, by := range []string{"problem", "role", "agent", "model"} {
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(groups[by])) {
			g := groups[by][k]
			parts = append(parts, fmt.Sprintf("%s $%.4f (%d)", k, g.CostUSD, g.Turns))
		}
		if len(parts) > 0 {
			fmt.Fprintf(a.stdout, "  by %s: %s\n", by, strings.Join(parts, ", "))
		}
	}
	return nil
}
