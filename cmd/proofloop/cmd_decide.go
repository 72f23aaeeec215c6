package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/proofloop/proofloop/loop"
	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/skills"
	"github.com/proofloop/proofloop/store"
)

func (a *app) decideCommand() *cobra.Command {
	var accept, reject bool
	var extend, suggestion int
	var reason string
	c := &cobra.Command{
		Use:   "decide ID --accept|--reject|--extend N [--reason TEXT] | decide DEBATE --suggestion N --accept|--reject",
		Short: decideShort,
		Long: "decide resolves a statement in needs_modification. --accept applies the proposed claim and\n" +
			"premises (the old ones are kept in modification_history) and sends it back to pending;\n" +
			"--reject sends it back to the status it came from. --extend N grants N more check/fix\n" +
			"rounds to a statement whose round budget (config.json max_rounds) is spent. On a dialectic\n" +
			"debate, --suggestion N --accept|--reject decides the partner's pending suggestion N; the\n" +
			"record names the actor and the time.",
		Args: oneID,
		RunE: func(cmd *cobra.Command, args []string) error {
			n := 0
			for _, b := range []bool{accept, reject, extend != 0} {
				if b {
					n++
				}
			}
			if n != 1 || extend < 0 {
				return store.Errorf(store.CodeUsage, "give exactly one of --accept, --reject and --extend N (N >= 1)")
			}
			if k, _ := model.KindOf(args[0]); k == model.KindDebate || cmd.Flags().Changed("suggestion") {
				if extend != 0 || k != model.KindDebate || suggestion < 1 {
					return store.Errorf(store.CodeUsage, "decide DEBATE takes --suggestion N (N >= 1) with --accept or --reject").
						WithHint("e.g. `proofloop decide ID --suggestion 1 --accept`; `proofloop debate show ID` lists the suggestions")
				}
				return a.withStore(func(s *store.Store) error {
					r, err := loop.DecideSuggestion(s, a.txOptions(cmd, ""), args[0], suggestion, accept)
					if err != nil {
						return err
					}
					return a.debateOK(r, fmt.Sprintf("Suggestion %d of %s: %s.", suggestion, args[0], decision(accept, a.txOptions(cmd, "").Lease == "", a.actor)))
				})
			}
			return a.withStore(func(s *store.Store) error {
				p := skills.DecideParams{ID: args[0], Accept: accept, Extend: extend}
				var err error
				if p.Reason, err = a.givenText(cmd, s, "reason", reason); err != nil {
					return err
				}
				r, err := skills.Decide(s, a.txOptions(cmd, ""), p)
				if err != nil {
					return err
				}
				return a.ok(r)
			})
		},
	}
	c.Flags().BoolVar(&accept, "accept", false, "apply the proposed claim and premises")
	c.Flags().BoolVar(&reject, "reject", false, "keep the statement as it was")
	c.Flags().IntVar(&extend, "extend", 0, "grant `N` more check/fix rounds to a statement that spent its budget")
	c.Flags().StringVar(&reason, "reason", "", "why (recorded in modification_history)")
	c.Flags().IntVar(&suggestion, "suggestion", 0, "on a dialectic debate: decide the partner's suggestion `N`")
	addExpectRevision(c)
	return c
}

// decideShort is decide's one line, in its help and in `prime --id`'s list
// of what the decider may do now.
const decideShort = "Resolve a proposed modification, or grant more rounds to a statement that spent its budget"

// decision says how decide recorded a suggestion: the user's consent
// without a lease, the lease holder's decision under one.
func decision(accept, byUser bool, actor string) string {
	switch {
	case byUser && accept:
		return "the user agreed (recorded by " + actor + ")"
	case byUser:
		return "the user declined (recorded by " + actor + ")"
	case accept:
		return "accepted by " + actor + " under a lease, not the user's consent"
	}
	return "rejected by " + actor + " under a lease"
}
