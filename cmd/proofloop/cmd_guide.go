package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/proofloop/proofloop/loop"
	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

func (a *app) guideCommand() *cobra.Command {
	var role, id string
	var round, withdraw int
	var list bool
	c := &cobra.Command{
		Use:   "guide --role prove|check|fix [--id ID] [--round N] TEXT | --withdraw N | --list",
		Short: "Guide the agents: a hint for provers or fixers, an extra verification rule for checkers",
		Long: "guide records a person's guidance for a role: a hint for provers or fixers, or an extra\n" +
			"verification rule for checkers, for every item or (--id) one, in every round or (--round) one.\n" +
			"prime --role R and prime --role R --id ID show the guidance in force, so the next turn's\n" +
			"agent reads it. --withdraw N ends guidance N; --list prints what is in force. Every change is\n" +
			"an event (guide, guide-withdraw), which is where guidance lives. Guidance is a person's word:\n" +
			"it is refused (exit 4, person_only) under a lease, in a turn of `proofloop run` and over MCP.",
		RunE: func(cmd *cobra.Command, args []string) error {
			if !list {
				if err := a.personOnly("guide"); err != nil {
					return err
				}
			}
			return a.withStore(func(s *store.Store) error {
				opts := a.txOptions(cmd, "")
				switch {
				case list:
					all, err := loop.AllGuidance(cmd.Context(), s)
					if err != nil {
						return err
					}
					if a.json {
						return a.writeJSON(map[string]any{"ok": true, "command": "guide", "guidance": append([]loop.Guidance{}, all...)})
					}
					if len(all) == 0 {
						fmt.Fprintln(a.stdout, "No guidance is in force.")
					}
					for _, g := range all {
						fmt.Fprintf(a.stdout, "%s: %s\n", g.Role, g.Line())
					}
					return nil
				case withdraw > 0:
					g, err := loop.Withdraw(cmd.Context(), s, opts, withdraw)
					if err != nil {
						return err
					}
					if a.json {
						return a.writeJSON(map[string]any{"ok": true, "command": "guide", "withdrawn": g})
					}
					fmt.Fprintf(a.stdout, "Withdrew guidance %d for %s.\n", g.Number, g.Role)
					return nil
				}
				r := model.Role(role)
				if !slices.Contains(loop.GuideRoles, r) {
					return store.Errorf(store.CodeUsage, "guide --role must be prove, check or fix, got %q", role).
						WithHint(`e.g. proofloop guide --role check "Check every inequality's direction."`)
				}
				if round < 0 {
					return store.Errorf(store.CodeUsage, "--round must be 1 or more, got %d", round).WithHint("leave --round out for every round")
				}
				n, err := loop.Guide(s, opts, loop.Guidance{Role: r, ID: id, Round: round, Text: strings.Join(args, " ")})
				if err != nil {
					return err
				}
				if a.json {
					return a.writeJSON(map[string]any{"ok": true, "command": "guide", "number": n})
				}
				fmt.Fprintf(a.stdout, "Recorded guidance %d for %s; prime shows it (`proofloop guide --withdraw %d` ends it).\n", n, r, n)
				return nil
			})
		},
	}
	c.Flags().StringVar(&role, "role", "", "prove, check or fix")
	c.Flags().StringVar(&id, "id", "", "only for this item")
	c.Flags().IntVar(&round, "round", 0, "only in this round of the item")
	c.Flags().IntVar(&withdraw, "withdraw", 0, "end guidance `N`")
	c.Flags().BoolVar(&list, "list", false, "print the guidance in force")
	return c
}
