package main

import (
	"github.com/spf13/cobra"

	"github.com/proofloop/proofloop/skills"
	"github.com/proofloop/proofloop/store"
)

func (a *app) decideCommand() *cobra.Command {
	var accept, reject bool
	var reason string
	c := &cobra.Command{
		Use:   "decide ID --accept|--reject [--reason TEXT]",
		Short: "Resolve a statement in needs_modification: apply the proposed change, or reject it",
		Long: "decide resolves a statement in needs_modification. --accept applies the proposed claim and\n" +
			"premises (the old ones are kept in modification_history) and sends it back to pending;\n" +
			"--reject sends it back to the status it came from.",
		Args: oneID,
		RunE: func(cmd *cobra.Command, args []string) error {
			if accept == reject {
				return store.Errorf(store.CodeUsage, "give exactly one of --accept and --reject")
			}
			p := skills.DecideParams{ID: args[0], Accept: accept}
			if cmd.Flags().Changed("reason") {
				if err := skills.ReadTextArgs(a.stdin, &reason); err != nil {
					return err
				}
				p.Reason = &reason
			}
			s, err := a.open()
			if err != nil {
				return err
			}
			defer s.Close()
			r, err := skills.Decide(s, a.txOptions(cmd, ""), p)
			if err != nil {
				return err
			}
			return a.ok(r)
		},
	}
	c.Flags().BoolVar(&accept, "accept", false, "apply the proposed claim and premises")
	c.Flags().BoolVar(&reject, "reject", false, "keep the statement as it was")
	c.Flags().StringVar(&reason, "reason", "", "why (recorded in modification_history)")
	addExpectRevision(c)
	return c
}
