package main

import (
	"github.com/spf13/cobra"

	"github.com/proofloop/proofloop/skills"
	"github.com/proofloop/proofloop/store"
)

func (a *app) newProblemCommand() *cobra.Command {
	var p skills.NewProblemParams
	c := &cobra.Command{
		Use:   "new-problem --name NAME --objective TEXT [--hypothesis TEXT]...",
		Short: "Create the root problem prob_<name>",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.withSource(func(s *store.Store, src skills.Source) error {
				var err error
				if p.Objective, err = src.Text("objective", p.Objective); err != nil {
					return err
				}
				if err := src.Texts("hypothesis", p.Hypothesis); err != nil {
					return err
				}
				r, err := skills.NewProblem(s, a.txOptions(cmd, ""), p)
				if err != nil {
					return err
				}
				return a.ok(r)
			})
		},
	}
	c.Flags().StringVar(&p.Name, "name", "", "problem name: a-z, 0-9 and _ (the id becomes prob_<name>)")
	c.Flags().StringVar(&p.Objective, "objective", "", "what the problem asks to show (@file or @- reads it)")
	c.Flags().StringArrayVar(&p.Hypothesis, "hypothesis", nil, "a hypothesis; repeat the flag for several")
	addExpectRevision(c)
	return c
}
