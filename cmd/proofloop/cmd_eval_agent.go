package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/proofloop/proofloop/eval"
	"github.com/proofloop/proofloop/store"
)

// evalAgentCommand runs a scripted agent: the stand-ins for models that
// the eval and canary tests, and the README's figures, measure.
func (a *app) evalAgentCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "eval-agent NAME",
		Short: "Take a turn as a scripted checker or prover (for tests and demos of eval and canaries)",
		Long: "eval-agent takes one turn on $PROOFLOOP_ID as the scripted agent NAME, in the environment\n" +
			"`proofloop run` gives an agent, with one skill call. Each does the same whatever the proof says,\n" +
			"or what the shipped set's labels say (it knows no other set), so that its figures are known in\n" +
			"advance (docs/eval.md):\n\n" + eval.ScriptedHelp(),
		Example:   "  proofloop config set agents.check 'proofloop eval-agent confirm-all'",
		Args:      cobra.ExactArgs(1),
		ValidArgs: eval.ScriptedNames(),
		RunE: func(cmd *cobra.Command, args []string) error {
			id := os.Getenv("PROOFLOOP_ID")
			if id == "" {
				return store.Errorf(store.CodeUsage, "eval-agent takes its turn on $PROOFLOOP_ID, which is not set").
					WithHint("`proofloop run` and `proofloop eval` set it; by hand: PROOFLOOP_ID=stmt_x_wrap proofloop eval-agent NAME")
			}
			return a.withStore(func(s *store.Store) error {
				r, err := eval.RunScripted(s, args[0], id, a.txOptions(cmd, id))
				if err != nil {
					return err
				}
				return a.ok(r)
			})
		},
	}
}
