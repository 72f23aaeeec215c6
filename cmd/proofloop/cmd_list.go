package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/proofloop/proofloop/loop"
	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

func (a *app) listCommand() *cobra.Command {
	var kind, status, role string
	c := &cobra.Command{
		Use:   "list [--kind K] [--status S] [--role R]",
		Short: "List documents by kind, status and the role whose turn it is, from the index",
		Long: "list prints one line per document (id, kind, status, the role to act) that matches every\n" +
			"filter given, in id order; --role R lists the items waiting for R, deepest first, as next does.\n" +
			"It reads the derived index, not the documents.",
		Args: noArgs,
		RunE: func(*cobra.Command, []string) error {
			k := model.Kind(kind)
			if kind != "" && k != model.KindProblem && k != model.KindStatement {
				return store.Errorf(store.CodeInvalidInput, "--kind %q is not a kind of document; use problem or statement", kind)
			}
			s, r, err := a.openWithRole(role)
			if err != nil {
				return err
			}
			defer s.Close()
			items, err := loop.List(s, k, model.Status(status), r)
			if err != nil {
				return err
			}
			if err := loop.Proved(s, items); err != nil {
				return err
			}
			if a.json {
				return a.writeJSON(map[string]any{"ok": true, "command": "list", "items": nonNilItems(items)})
			}
			for _, it := range items {
				who := "-"
				if it.Role != "" {
					who = string(it.Role)
				}
				fmt.Fprintf(a.stdout, "%s\n", strings.TrimRight(fmt.Sprintf("%-48s %-9s %-22s %-6s %s", it.ID, it.Kind, it.Status, who, strings.TrimSpace(unsound(it))), " "))
			}
			if len(items) == 0 {
				fmt.Fprintln(a.stdout, "Nothing matches.")
			}
			return nil
		},
	}
	c.Flags().StringVar(&kind, "kind", "", "problem or statement")
	c.Flags().StringVar(&status, "status", "", "only documents in this status")
	c.Flags().StringVar(&role, "role", "", "only items whose turn is this role's: solve, prove, check, fix, decide, a debate role or an open agora debate's position")
	return c
}
