package main

import (
	"github.com/spf13/cobra"

	"github.com/proofloop/proofloop/loop"
	"github.com/proofloop/proofloop/store"
)

func (a *app) graphCommand() *cobra.Command {
	var problem, format string
	c := &cobra.Command{
		Use:   "graph [--problem P] [--format dot|mermaid|json]",
		Short: "Print the dependency graph of problems and statements, coloured by status",
		Long: `graph prints the dependency graph: each problem and statement (its status, and
whether it is fully proved; for a problem, soundly solved), the tree edges (a
problem's subproblems and wrap-up statements, a statement's sub-statements), and,
dashed, what a proof relies on beyond its own sub-statements.

  --format dot       Graphviz: proofloop graph | dot -Tsvg > graph.svg
  --format mermaid   a Mermaid flowchart, which GitHub draws in a mermaid code block
  --format json      {"ok":true,"command":"graph","nodes":[{"id","kind","status",
                     "fully_proved","not_proved"}],"edges":[{"from","to","kind"}]}
                     (the default with --json)`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !cmd.Flags().Changed("format") && a.json {
				format = "json"
			}
			if format != "dot" && format != "mermaid" && format != "json" {
				return store.Errorf(store.CodeUsage, "--format %q is not dot, mermaid or json", format)
			}
			return a.withStore(func(s *store.Store) error {
				snap, err := treeSnapshot(s, problem)
				if err != nil {
					return err
				}
				items, _ := treeOrder(snap)
				if err := loop.Proved(s, items); err != nil {
					return err
				}
				relies, err := loop.ReliesOn(s, items)
				if err != nil {
					return err
				}
				g := loop.NewGraph(items, relies)
				switch format {
				case "json":
					return a.writeJSON(map[string]any{"ok": true, "command": "graph", "nodes": g.Nodes, "edges": g.Edges})
				case "mermaid":
					_, err = a.stdout.Write(g.Mermaid())
				default:
					_, err = a.stdout.Write(g.DOT())
				}
				return err
			})
		},
	}
	c.Flags().StringVar(&problem, "problem", "", "only this problem and what lies below it")
	c.Flags().StringVar(&format, "format", "dot", "`dot`, mermaid or json")
	return c
}

// treeSnapshot loads the tree below the problem or statement ref names, or
// the whole project when ref is "".
func treeSnapshot(s *store.Store, ref string) (*loop.Snapshot, error) {
	if ref == "" {
		return loop.Load(s)
	}
	id, _, err := s.ParseRef(ref)
	if err != nil {
		return nil, err
	}
	return loop.Subtree(s, id)
}
