package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/proofloop/proofloop/loop"
	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// The lease commands: claim, refresh and release. While a lease is live, a
// skill on that item needs its token (--lease or PROOFLOOP_LEASE).

func (a *app) claimCommand() *cobra.Command {
	var role, holder string
	var ttl time.Duration
	var forTimeout bool
	c := &cobra.Command{
		Use:   "claim ID (--role R | --for-timeout) --holder H [--ttl D]",
		Short: "Lease an item for a role's turn; prints the token skills on it then need",
		Long: "claim leases an item for the role whose turn it is (on a debate: the role of the participant\n" +
			"who writes next, or the role that must join). The lease binds its actor: --actor or\n" +
			"$PROOFLOOP_ACTOR, else --holder. Every call that presents it acts as that actor, and another\n" +
			"declared actor with it is refused (exit 2).\n\n" +
			"--for-timeout (socratic debates, rp1's timeout path) leases a debate whose peer never joined,\n" +
			"after re-checking that it is still missing; then `debate close ID --outcome TIMEOUT --lease\n" +
			"TOKEN` closes it.",
		Args: oneID,
		RunE: func(cmd *cobra.Command, args []string) error {
			if forTimeout {
				if role != "" || holder == "" {
					return store.Errorf(store.CodeUsage, "claim --for-timeout takes --holder NAME and no --role")
				}
				return a.withStore(func(s *store.Store) error {
					l, err := loop.ClaimForTimeout(s, a.txOptions(cmd, args[0]), args[0], holder)
					if err != nil {
						return err
					}
					return a.leaseOut(l, fmt.Sprintf("Claimed %s for its timeout until %s; lease %s", args[0], l.ExpiresAt, l.Token))
				})
			}
			r, err := parseRole(role, false)
			if k, _ := model.KindOf(args[0]); k == model.KindDebate && role != "" {
				// A debate's roles include agora's own position names.
				r, err = model.Role(role), nil
			}
			if err != nil {
				return err
			}
			if holder == "" {
				return store.Errorf(store.CodeUsage, "claim needs --holder NAME").WithHint("e.g. --holder check-1")
			}
			return a.withRef(args[0], func(s *store.Store, id string) error {
				d, err := loop.LeaseTTL(s, ttl)
				if err != nil {
					return err
				}
				cl, err := loop.Claim(s, a.txOptions(cmd, id), id, r, holder, d)
				if err != nil {
					return err
				}
				return a.leaseOut(cl.Lease, fmt.Sprintf("Claimed %s for %s until %s; lease %s", id, r, cl.Lease.ExpiresAt, cl.Lease.Token))
			})
		},
	}
	c.Flags().StringVar(&role, "role", "", "the role whose turn it is: solve, prove, check, fix or decide (on a debate: its role)")
	c.Flags().StringVar(&holder, "holder", "", "who takes the lease, e.g. check-1; also the lease's actor unless --actor or $PROOFLOOP_ACTOR names one")
	c.Flags().DurationVar(&ttl, "ttl", 0, "lease length (default: config.json lease_ttl)")
	c.Flags().BoolVar(&forTimeout, "for-timeout", false, "lease a socratic debate whose peer never joined, to close it TIMEOUT")
	addExpectRevision(c)
	return c
}

func (a *app) refreshCommand() *cobra.Command {
	var ttl time.Duration
	c := &cobra.Command{
		Use:   "refresh ID [--lease TOKEN] [--ttl D]",
		Short: "Extend a live lease",
		Args:  oneID,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := leaseGiven(a.lease, args[0]); err != nil {
				return err
			}
			return a.withRef(args[0], func(s *store.Store, id string) error {
				d, err := loop.LeaseTTL(s, ttl)
				if err != nil {
					return err
				}
				l, err := loop.Refresh(s, a.txOptions(cmd, id), id, a.lease, d)
				if err != nil {
					return err
				}
				return a.leaseOut(l, fmt.Sprintf("Extended the lease on %s until %s.", id, l.ExpiresAt))
			})
		},
	}
	c.Flags().DurationVar(&ttl, "ttl", 0, "new lease length from now (default: config.json lease_ttl)")
	addExpectRevision(c)
	return c
}

func (a *app) releaseCommand() *cobra.Command {
	var force bool
	c := &cobra.Command{
		Use:   "release ID [--lease TOKEN | --force]",
		Short: "End a live lease (with its token, or --force as a person or orchestrator)",
		Long: "release ends the live lease on an item. The holder passes the lease's token (--lease or\n" +
			"PROOFLOOP_LEASE).\n\n" +
			"--force ends someone else's lease without the token, for a person or an orchestrator clearing\n" +
			"a stuck agent; the event records who forced it (--actor) and from whom.",
		Args: oneID,
		RunE: func(cmd *cobra.Command, args []string) error {
			if force {
				// Ending another's lease is a person's or run's act, never
				// an agent's in its turn.
				if err := a.personOnly("release --force"); err != nil {
					return err
				}
				a.lease = ""
			} else if a.lease == "" {
				msg, hint := "give the lease token with --lease or PROOFLOOP_LEASE, or --force", fmt.Sprintf("pass the token that `proofloop claim %s` or `proofloop next --claim` returned as `lease` (--lease TOKEN or $PROOFLOOP_LEASE)", args[0])
				if a.project != "" {
					msg = "give the lease token with --lease" // an MCP call has no --force
				} else {
					hint += "; a person or orchestrator ending another's lease uses --force, which records who did"
				}
				return store.Errorf(store.CodeUsage, "%s", msg).WithHint(hint)
			}
			return a.withRef(args[0], func(s *store.Store, id string) error {
				l, err := loop.Release(s, a.txOptions(cmd, id), id, a.lease, force)
				if err != nil {
					return err
				}
				text := fmt.Sprintf("Released the lease on %s.", id)
				if force {
					text = fmt.Sprintf("Released %s's lease on %s by force; the event log records it.", l.Holder, id)
				}
				return a.leaseOut(l, text)
			})
		},
	}
	c.Flags().BoolVar(&force, "force", false, "end another's lease without its token (recorded with your --actor)")
	addExpectRevision(c)
	return c
}

// leaseGiven refuses refresh without a lease token, before the store is
// opened.
func leaseGiven(lease, ref string) error {
	if lease == "" {
		return store.Errorf(store.CodeUsage, "give the lease token with --lease or PROOFLOOP_LEASE").
			WithHint(fmt.Sprintf("refresh extends a lease you hold: pass the token that `proofloop claim %s` or `proofloop next --claim` returned as `lease` (--lease TOKEN or $PROOFLOOP_LEASE); holding none, claim it first: `proofloop claim %s --role ROLE --holder NAME`", ref, ref))
	}
	return nil
}

func (a *app) leaseOut(l *store.Lease, text string) error {
	if a.text != nil {
		fmt.Fprintln(a.text, text)
	}
	if !a.json {
		fmt.Fprintln(a.stdout, text)
		return nil
	}
	out := map[string]any{"ok": true, "command": a.command, "id": l.ID, "role": l.Role, "holder": l.Holder,
		"lease": l.Token, "expires_at": l.ExpiresAt, "released_at": l.ReleasedAt}
	if l.Actor != "" {
		out["actor"] = l.Actor // who acts under the lease
	}
	return a.writeJSON(out)
}
