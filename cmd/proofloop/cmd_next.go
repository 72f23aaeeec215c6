package main

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/proofloop/proofloop/loop"
	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

func (a *app) nextCommand() *cobra.Command {
	var o nextOptions
	c := &cobra.Command{
		Use:   "next [--role R] [--claim --holder H [--ttl D]]",
		Short: "List the actionable items, deepest first; with --claim, lease the first free one in one step",
		Long: "next lists the items some role must act on, deepest first, then by id. With --claim it\n" +
			"finds the first one for --role that nobody holds and leases it to --holder in the same\n" +
			"transaction, so two workers never get the same item; --json then prints\n" +
			`{"ok":true,"item":{"id","kind","role","reason","lease","expires_at"}}, or "item":null.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.runNext(a.txOptions(cmd, ""), o) },
	}
	c.Flags().StringVar(&o.Role, "role", "", "only items for this role: solve, prove, check, fix, decide, a debate role or an open agora debate's position")
	c.Flags().BoolVar(&o.Claim, "claim", false, "lease the first free item to --holder")
	c.Flags().StringVar(&o.Holder, "holder", "", "who takes the lease (with --claim)")
	c.Flags().DurationVar(&o.TTL, "ttl", 0, "lease length (default: config.json lease_ttl)")
	c.Flags().StringVar(&o.Problem, "problem", "", "only items under this root problem")
	return c
}

// nextOptions are next's flags.
type nextOptions struct {
	Role, Holder, Problem string
	Claim                 bool
	TTL                   time.Duration
}

// runNext lists what o.Role may act on, or with o.Claim leases the first
// free item to o.Holder in transaction tx.
func (a *app) runNext(tx store.TxOptions, o nextOptions) error {
	s, r, err := a.openWithRole(o.Role)
	if err != nil {
		return err
	}
	defer s.Close()
	var roles []model.Role
	if r != "" {
		roles = []model.Role{r}
	}
	if !o.Claim {
		return a.listNext(s, r, roles, o.Problem)
	}
	if o.Holder == "" {
		return store.Errorf(store.CodeUsage, "--claim needs --holder NAME").WithHint("e.g. --holder check-1")
	}
	d, err := loop.LeaseTTL(s, o.TTL)
	if err != nil {
		return err
	}
	cl, busy, err := loop.ClaimNext(s, tx, roles, o.Problem, o.Holder, d)
	if err != nil {
		return err
	}
	if a.json {
		var item any
		if cl != nil {
			item = claimedJSON(cl)
		}
		out := map[string]any{"ok": true, "command": "next", "item": item}
		if busy != nil {
			out["busy"] = busy
		}
		return a.writeJSON(out)
	}
	switch {
	case cl == nil && busy != nil:
		fmt.Fprintf(a.stdout, "Nothing is free for %s: %s leased (%s); the first lease, on %s, ends at %s.\n",
			roleName(r), plural(busy.Leased, "actionable item is", "actionable items are"), holders(busy.Holders), busy.FirstItem, busy.NextFree)
	case cl == nil && r != "":
		others, err := otherRoles(s, o.Problem)
		if err != nil {
			return err
		}
		fmt.Fprintln(a.stdout, nothingFor(r, others))
	case cl == nil:
		fmt.Fprintln(a.stdout, "Nothing is actionable.")
	default:
		fmt.Fprintf(a.stdout, "Claimed %s for %s (%s) until %s; lease %s\n", cl.Item.ID, cl.Item.Role, cl.Item.Reason, cl.Lease.ExpiresAt, cl.Lease.Token)
	}
	return nil
}

// listNext prints the items roles may act on (every role's when none),
// and for a role with none, what the other roles have.
func (a *app) listNext(s *store.Store, r model.Role, roles []model.Role, problem string) error {
	items, err := loop.Actionable(s, roles, problem)
	if err != nil {
		return err
	}
	if a.actor != "" && !a.actorDefaulted {
		// A lone duellist's own duel waits for its peer: not offered.
		items = slices.DeleteFunc(items, func(it *loop.Item) bool {
			return it.Kind == model.KindDebate && loop.LoneInDuel(s, it.ID, a.actor)
		})
	}
	var others map[model.Role]int
	if len(items) == 0 && r != "" {
		if others, err = otherRoles(s, problem); err != nil {
			return err
		}
	}
	if a.json {
		out := map[string]any{"ok": true, "command": "next", "items": nonNilItems(items)}
		if others != nil {
			out["other_roles"] = others
		}
		return a.writeJSON(out)
	}
	for _, it := range items {
		fmt.Fprintf(a.stdout, "%-7s %s [%s]: %s\n", it.Role, it.ID, it.Status, it.Reason)
	}
	switch {
	case len(items) > 0:
	case r != "":
		fmt.Fprintln(a.stdout, nothingFor(r, others))
	default:
		fmt.Fprintln(a.stdout, "Nothing is actionable.")
	}
	return nil
}

// otherRoles counts the actionable items by role, for the answer of a
// --role that has none.
func otherRoles(s *store.Store, problem string) (map[model.Role]int, error) {
	items, err := loop.Actionable(s, nil, problem)
	if err != nil {
		return nil, err
	}
	n := map[model.Role]int{}
	for _, it := range items {
		n[it.Role]++
	}
	return n, nil
}

// nothingFor says that role r has nothing to do and what waits on the other
// roles: "nothing for check; 3 items wait on other roles (fix: 2, decide: 1)".
func nothingFor(r model.Role, others map[model.Role]int) string {
	total := 0
	roles := slices.Collect(maps.Keys(others))
	for _, o := range roles {
		total += others[o]
	}
	if total == 0 {
		return fmt.Sprintf("nothing for %s; nothing waits on any other role either.", r)
	}
	slices.SortFunc(roles, func(x, y model.Role) int {
		if others[x] != others[y] {
			return others[y] - others[x]
		}
		return strings.Compare(string(x), string(y))
	})
	parts := make([]string, len(roles))
	for i, o := range roles {
		parts[i] = fmt.Sprintf("%s: %d", o, others[o])
	}
	return fmt.Sprintf("nothing for %s; %s on other roles (%s)", r, plural(total, "item waits", "items wait"), strings.Join(parts, ", "))
}

// holders lists lease holders with their counts, by name.
func holders(h map[string]int) string {
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(h)) {
		parts = append(parts, fmt.Sprintf("%s holds %d", name, h[name]))
	}
	return strings.Join(parts, ", ")
}

// plural picks the singular or plural form for n: "1 item is", "3 items are".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func nonNilItems(items []*loop.Item) []*loop.Item {
	if items == nil {
		return []*loop.Item{}
	}
	return items
}

func claimedJSON(cl *loop.Claimed) map[string]any {
	return map[string]any{"id": cl.Item.ID, "kind": cl.Item.Kind, "role": cl.Item.Role, "reason": cl.Item.Reason,
		"lease": cl.Lease.Token, "expires_at": cl.Lease.ExpiresAt}
}

func roleName(r model.Role) string {
	if r == "" {
		return "any role"
	}
	return string(r)
}

// parseRole checks a --role value; empty is allowed when optional.
func parseRole(s string, optional bool) (model.Role, error) {
	if s == "" && optional {
		return "", nil
	}
	roles := fixedRoles()
	if s == "" {
		return "", store.Errorf(store.CodeUsage, "--role is required").
			WithHint("add --role ROLE, your role: one of " + strings.Join(roles, ", "))
	}
	if err := model.OneOf("role", s, roles); err != nil {
		return "", store.Errorf(store.CodeInvalidInput, "%v", err).WithHint(roleHint(s, roles))
	}
	return model.Role(s), nil
}

// fixedRoles are the roles a --role may name without a store: the proof
// roles, decide and the fixed debate roles (an agora position's own role is
// named only by its debate: claim takes it, next lists it without --role).
func fixedRoles() []string {
	return append([]string{"solve", "prove", "check", "fix", "decide"}, model.DebateRoles()...)
}

// roleHint names the roles nearest to an unknown role, then all of them.
func roleHint(s string, roles []string) string {
	hint := "--role is one of " + strings.Join(roles, ", ")
	if near := model.Nearest(s, roles, 2); len(near) > 0 {
		hint = "did you mean " + strings.Join(near, " or ") + "? (" + hint + ")"
	}
	return hint
}

// openWithRole opens the store and checks an optional --role value: a fixed
// role, or the position name of an open agora debate (a position is its
// participant's role, so only the store knows it). A bad role is refused
// with the positions named, and before the store's own errors.
func (a *app) openWithRole(role string) (*store.Store, model.Role, error) {
	r, rerr := parseRole(role, true)
	s, err := a.open()
	if err != nil {
		if rerr != nil {
			return nil, "", rerr
		}
		return nil, "", err
	}
	if rerr == nil {
		return s, r, nil
	}
	positions, err := loop.OpenPositions(s)
	if err != nil {
		s.Close()
		return nil, "", err
	}
	if slices.Contains(positions, role) {
		return s, model.Role(role), nil
	}
	s.Close()
	var e *store.Error
	if len(positions) > 0 && errors.As(rerr, &e) {
		return nil, "", e.WithHint(roleHint(role, append(fixedRoles(), positions...)) + "; the open agora debates' positions are roles too: " + strings.Join(positions, ", "))
	}
	return nil, "", rerr
}
