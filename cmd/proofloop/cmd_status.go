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

// bigTree is the size past which the plain status summarises instead of
// printing every line of the tree (--all prints it anyway).
const bigTree = 500

func (a *app) statusCommand() *cobra.Command {
	var problem string
	var all bool
	c := &cobra.Command{
		Use:   "status [ID] [--problem P] [--all]",
		Short: "Show the tree of problems and statements: status, whose turn, round, open issues, lease holder",
		Long: "status prints the tree of problems and statements with each item's status, the role to act and\n" +
			"why, its round, open issues and lease holder. With ID (or --problem P) it prints only that\n" +
			"item and what lies below it, reading only that part of the index. A tree of more than 500\n" +
			"items is summarised: counts by status first, then the actionable and the stuck items; --all\n" +
			"prints every line. --json always lists every item.",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return store.Errorf(store.CodeUsage, "status takes at most one id, got %d arguments", len(args))
			}
			return nil
		},
		RunE: func(_ *cobra.Command, args []string) error {
			s, err := a.open()
			if err != nil {
				return err
			}
			defer s.Close()
			top := problem
			if len(args) == 1 {
				if top != "" {
					return store.Errorf(store.CodeUsage, "give an ID or --problem, not both")
				}
				top = args[0]
			}
			var snap *loop.Snapshot
			if top != "" {
				if top, _, err = s.ParseRef(top); err != nil {
					return err
				}
				snap, err = loop.Subtree(s, top)
			} else {
				snap, err = loop.Load(s)
			}
			if err != nil {
				return err
			}
			items := []*loop.Item{}
			depths := map[string]int{}
			var walk func(id string, depth int)
			walk = func(id string, depth int) {
				it, ok := snap.Items[id]
				if !ok {
					return
				}
				items = append(items, it)
				depths[id] = depth
				for _, c := range it.Children {
					walk(c, depth+1)
				}
			}
			for _, r := range snap.Roots {
				walk(r, 0)
			}
			if problem == "" {
				for _, d := range snap.Debates {
					walk(d, 0)
				}
			}
			if a.json {
				return a.writeJSON(map[string]any{"ok": true, "command": "status", "items": items})
			}
			if len(items) == 0 {
				fmt.Fprintln(a.stdout, "No problems yet: start one with `proofloop new-problem`.")
				return nil
			}
			if len(items) > bigTree && !all {
				a.summary(snap, items)
				return nil
			}
			for _, it := range items {
				fmt.Fprintf(a.stdout, "%s%s\n", strings.Repeat("  ", depths[it.ID]), statusLine(it))
			}
			return nil
		},
	}
	c.Flags().StringVar(&problem, "problem", "", "only this problem and what lies below it")
	c.Flags().BoolVar(&all, "all", false, "print every line of a large tree instead of a summary")
	return c
}

// summary prints a large tree as counts, then the items that need someone.
func (a *app) summary(snap *loop.Snapshot, items []*loop.Item) {
	counts := map[string]int{}
	for _, it := range items {
		counts[string(it.Kind)+" "+string(it.Status)]++
	}
	fmt.Fprintf(a.stdout, "%d items (the tree is summarised; --all prints every line):\n", len(items))
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range counts {
			if !yield(k) {
				return
			}
		}
	}) {
		fmt.Fprintf(a.stdout, "  %-40s %d\n", k, counts[k])
	}
	var act, stuck []*loop.Item
	for _, it := range snap.Actionable("", "") {
		if it.Outcome == model.OutcomeExhausted || it.Role == model.RoleDecide {
			stuck = append(stuck, it)
		} else {
			act = append(act, it)
		}
	}
	fmt.Fprintf(a.stdout, "Actionable (%d):\n", len(act))
	for _, it := range act {
		fmt.Fprintf(a.stdout, "  %s\n", statusLine(it))
	}
	fmt.Fprintf(a.stdout, "Waiting for a decision (%d):\n", len(stuck))
	for _, it := range stuck {
		fmt.Fprintf(a.stdout, "  %s\n", statusLine(it))
	}
}

func statusLine(it *loop.Item) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s [%s]", it.ID, it.Status)
	if it.Role != "" {
		fmt.Fprintf(&b, " -> %s: %s", it.Role, it.Reason)
	} else {
		fmt.Fprintf(&b, " (%s)", it.Reason)
	}
	if it.Round > 0 {
		fmt.Fprintf(&b, "; round %d", it.Round)
	}
	if len(it.OpenIssues) > 0 {
		fmt.Fprintf(&b, "; open issues %v", it.OpenIssues)
	}
	if it.Holder != "" {
		fmt.Fprintf(&b, "; leased to %s until %s", it.Holder, it.Expires)
	}
	return b.String()
}
