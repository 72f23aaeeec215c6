package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/proofloop/proofloop/loop"
	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/skills"
)

func (a *app) primeCommand() *cobra.Command {
	var role string
	c := &cobra.Command{
		Use:   "prime --role R",
		Short: "Print a short orientation for an agent starting a session in a role",
		Args:  noArgs,
		RunE: func(*cobra.Command, []string) error {
			r, err := parseRole(role, false)
			if err != nil {
				return err
			}
			s, err := a.open()
			if err != nil {
				return err
			}
			defer s.Close()
			snap, err := loop.Load(s)
			if err != nil {
				return err
			}
			counts := map[string]int{}
			for _, it := range snap.Items {
				counts[string(it.Kind)+" "+string(it.Status)]++
			}
			var state []string
			for _, k := range slices.Sorted(maps.Keys(counts)) {
				state = append(state, fmt.Sprintf("%d %s", counts[k], k))
			}
			next := snap.Actionable(r, "")
			var mine []string
			for _, sk := range skills.ForRole(r) {
				mine = append(mine, sk.Name)
			}
			if a.json {
				return a.writeJSON(map[string]any{"ok": true, "command": "prime", "role": r, "roots": snap.Roots,
					"state": counts, "next": nonNilItems(next), "skills": mine})
			}
			w := a.stdout
			fmt.Fprintf(w, "You are the %s agent of a proofloop project (root %s).\n\n", r, a.root)
			fmt.Fprintf(w, "State: %d root problems (%s); %s.\n", len(snap.Roots), strings.Join(snap.Roots, ", "), strings.Join(state, ", "))
			fmt.Fprintf(w, "\nNext for %s (%s, deepest first):\n", r, model.Count(len(next), "item"))
			for i, it := range next {
				if i == 5 {
					fmt.Fprintf(w, "  ... and %d more (`proofloop next --role %s`)\n", len(next)-5, r)
					break
				}
				lease := ""
				if it.Holder != "" {
					lease = " (leased to " + it.Holder + ")"
				}
				fmt.Fprintf(w, "  %s [%s]: %s%s\n", it.ID, it.Status, it.Reason, lease)
			}
			if len(next) == 0 {
				fmt.Fprintln(w, "  nothing now; `proofloop status` shows what everything waits on.")
			}
			fmt.Fprintf(w, "\nYour skills: %s (`proofloop <skill> --help`).\n", strings.Join(mine, ", "))
			primeNotes(w, r)
			fmt.Fprintf(w, "\nCommands:\n")
			fmt.Fprintf(w, "  proofloop next --role %s --claim --holder NAME --json   take an item; export PROOFLOOP_LEASE=<lease>\n", r)
			fmt.Fprintf(w, "  proofloop show ID --sentences                            read an item, proof numbered as checkers cite it\n")
			fmt.Fprintf(w, "  proofloop <skill> ... --json                             act; one skill that changes the status ends your turn\n")
			fmt.Fprintf(w, "  proofloop release ID                                     give the item back if you cannot act\n")
			fmt.Fprintf(w, "  proofloop status                                         the whole tree and whose turn it is\n")
			return nil
		},
	}
	c.Flags().StringVar(&role, "role", "", "solve, prove, check, fix or decide")
	return c
}
