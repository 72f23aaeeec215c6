package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/proofloop/proofloop/loop"
)

func (a *app) statusCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "status",
		Short: "Show the tree of problems and statements: status, whose turn, round, open issues, lease holder",
		Args:  noArgs,
		RunE: func(*cobra.Command, []string) error {
			s, err := a.open()
			if err != nil {
				return err
			}
			defer s.Close()
			snap, err := loop.Load(s)
			if err != nil {
				return err
			}
			items := []*loop.Item{}
			var walk func(id string, depth int)
			walk = func(id string, depth int) {
				it, ok := snap.Items[id]
				if !ok {
					return
				}
				items = append(items, it)
				if !a.json {
					fmt.Fprintf(a.stdout, "%s%s\n", strings.Repeat("  ", depth), statusLine(it))
				}
				for _, c := range it.Children {
					walk(c, depth+1)
				}
			}
			for _, r := range snap.Roots {
				walk(r, 0)
			}
			if a.json {
				return a.writeJSON(map[string]any{"ok": true, "command": "status", "items": items})
			}
			if len(items) == 0 {
				fmt.Fprintln(a.stdout, "No problems yet: start one with `proofloop new-problem`.")
			}
			return nil
		},
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
