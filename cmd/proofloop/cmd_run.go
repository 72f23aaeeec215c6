package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/proofloop/proofloop/loop"
)

func (a *app) runCommand() *cobra.Command {
	var o loop.RunOptions
	c := &cobra.Command{
		Use:   "run [--problem ID] [-j N] [--max-turns N] [--turn-timeout D]",
		Short: "Drive the loop with the agent commands of config.json until solved, stuck or out of turns",
		Long: "run claims actionable items and starts the agent of each one's role (config.json agents.solve,\n" +
			"agents.prove, agents.check, agents.fix, and optionally agents.decide), with sh -c and\n" +
			"PROOFLOOP_ROOT, PROOFLOOP_ROLE, PROOFLOOP_ID, PROOFLOOP_LEASE and PROOFLOOP_ACTOR set. It\n" +
			"stops when the problem is solved, at --max-turns, or when nothing is actionable while\n" +
			"nothing runs, and then says what is stuck and why. Agent output goes to runs/<run-id>/.\n" +
			"SIGINT or SIGTERM kills running agents and releases their leases.",
		Args: noArgs,
		RunE: func(*cobra.Command, []string) error {
			s, err := a.open()
			if err != nil {
				return err
			}
			defer s.Close()
			if o.Problem != "" {
				if o.Problem, _, err = s.ParseRef(o.Problem); err != nil {
					return err
				}
			}
			ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			o.Progress = a.stderr
			o.Self, _ = os.Executable()
			sum, err := loop.Run(ctx, s, o)
			if err != nil {
				return err
			}
			if a.json {
				return a.writeJSON(map[string]any{"ok": true, "command": "run", "summary": sum})
			}
			fmt.Fprintf(a.stdout, "Run %s: %s after %d turns (%d idle, %d failed, %d timed out); logs in %s/%s.\n",
				sum.RunID, sum.Outcome, sum.Turns, sum.Idle, sum.Failed, sum.TimedOut, a.root, sum.Logs)
			for _, st := range sum.Stuck {
				role := "nobody"
				if st.Role != "" {
					role = string(st.Role)
				}
				fmt.Fprintf(a.stdout, "  stuck: %s (%s): %s\n", st.ID, role, st.Reason)
			}
			return nil
		},
	}
	c.Flags().StringVar(&o.Problem, "problem", "", "drive only this root problem")
	c.Flags().IntVarP(&o.Jobs, "jobs", "j", 1, "turns to run at once")
	c.Flags().IntVar(&o.MaxTurns, "max-turns", 200, "stop after this many turns (0: no limit)")
	c.Flags().DurationVar(&o.TurnTimeout, "turn-timeout", 10*time.Minute, "kill an agent that runs longer")
	return c
}
