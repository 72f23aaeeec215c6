package loop

import (
	"fmt"
	"strings"
	"time"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// Claimed is a lease just taken on an item.
type Claimed struct {
	Item  *Item
	Lease *store.Lease
	// Acting is who run claimed it for (ActorFor); zero for other claims.
	Acting Acting
}

// LeaseTTL is config.json's lease_ttl, or ttl when it is not zero: a
// claim's or refresh's --ttl, which may be at most store.LeaseTTLCeiling
// times lease_ttl (issue 34, N5: a lease of ten years would hold an item
// for good). A negative or longer one is refused, not cut.
func LeaseTTL(s *store.Store, ttl time.Duration) (time.Duration, error) {
	cfg, err := s.Config()
	if err != nil {
		return 0, err
	}
	max := cfg.MaxLeaseTTL()
	switch {
	case ttl == 0:
		return cfg.LeaseTTLDuration(), nil
	case ttl < 0:
		return 0, store.Errorf(store.CodeUsage, "--ttl must be positive, got %s", ttl).
			WithHint("leave --ttl out for lease_ttl (" + cfg.LeaseTTL + "), or give a duration such as 30m")
	case ttl > max:
		return 0, store.Errorf(store.CodeUsage, "--ttl %s is longer than a lease may last: at most %s, %d times lease_ttl %s", ttl, max, store.LeaseTTLCeiling, cfg.LeaseTTL).
			WithHint(fmt.Sprintf("ask for %s or less and refresh the lease before it ends (`proofloop refresh ID --lease TOKEN`); lease_ttl is a person's setting", max))
	}
	return ttl, nil
}

// ClaimNext finds the first actionable item for one of roles (any role when
// empty; under root, if given) that nobody holds, and leases it to holder,
// in one transaction: two workers never get the same item. It returns nil
// when nothing is free; Busy then says what the leased ones are.
//
// Under the lock it walks the index's actionable keys, deepest first: O(the
// actionable items it passes over), never a scan of the store. The item it
// takes is derived again from its own document before it is leased.
func ClaimNext(s *store.Store, opts store.TxOptions, roles []model.Role, root, holder string, ttl time.Duration) (*Claimed, *Busy, error) {
	return claimNext(s, opts, roles, root, holder, nil, ttl)
}

// ActorFor names the actor a claim is made for, once the item is chosen
// (run: the agent that will take the turn). It runs inside the claim's
// transaction. ok false passes the item over: none of run's agents may
// take it (verify_distinct).
type ActorFor func(tx *store.Tx, it *Item) (a Acting, ok bool, err error)

// Acting is the agent of config.json a claim is made for: its actor, and
// its place in the role's list, name and model label.
type Acting struct {
	Actor string
	Key   string // its key below config.json's agents: judge, panel.judge
	Index int    // in the key's agents
	Agent string
	Model string
}

func claimNext(s *store.Store, opts store.TxOptions, roles []model.Role, root, holder string, actorFor ActorFor, ttl time.Duration) (*Claimed, *Busy, error) {
	var out *Claimed
	busy := &Busy{}
	_, err := s.Update(opts, func(tx *store.Tx) error {
		now := tx.Clock()
		return tx.Actionable(roles, func(r *store.Row) (bool, error) {
			if root != "" && r.Root != root {
				return true, nil
			}
			if r.Lease.Live(now) {
				busy.add(r, now)
				return true, nil
			}
			it, err := itemIn(s, tx, r.ID, now)
			if err != nil {
				return false, err
			}
			if it.leased {
				// Another claimer got it since the index was read (a
				// backend's readers take no lock): it is busy now.
				l, err := tx.Lease(r.ID)
				if err != nil {
					return false, err
				}
				rr := *r
				rr.Lease = &store.RowLease{Holder: l.Holder, Role: l.Role, ExpiresAt: l.ExpiresAt}
				busy.add(&rr, now)
				return true, nil
			}
			if it.Role != r.Role && s.Backend() != nil {
				// The item moved on since its index key was read (a
				// backend's index is read without locks): not ours to take.
				return true, nil
			}
			if it.Role != r.Role {
				return false, store.Errorf(store.CodeStoreDamaged, "the index says %s is %s's turn, its document says %q: run `proofloop doctor --reindex`", r.ID, r.Role, it.Role)
			}
			if r.Kind == model.KindDebate && actorFor == nil {
				// A debate goes only to the participant whose turn it is.
				if err := claimDebate(tx, r.ID, claimActor(tx, opts, holder), false); store.CodeOf(err) == store.CodeInvalidTransition {
					return true, nil
				} else if err != nil {
					return false, err
				}
			}
			it.Depth, it.Root = r.Depth, r.Root
			var acting Acting
			if actorFor != nil {
				a, ok, err := actorFor(tx, it)
				if err != nil || !ok {
					return err == nil, err
				}
				if r.Kind == model.KindDebate {
					if err := claimDebate(tx, r.ID, a.Actor, true); store.CodeOf(err) == store.CodeInvalidTransition {
						return true, nil
					} else if err != nil {
						return false, err
					}
				}
				tx.ActAsAgent(a.Actor, a.Agent, a.Model)
				acting = a
			}
			l := store.NewLease(it.ID, string(it.Role), holder, claimActor(tx, opts, holder), now, ttl)
			l.Agent, l.Model = acting.Agent, acting.Model
			tx.PutLease(l)
			tx.Detail("claim", claimDetail(l))
			out = &Claimed{Item: it, Lease: l, Acting: acting}
			return false, nil
		})
	})
	if err != nil {
		return nil, nil, err
	}
	if out != nil || busy.Leased == 0 {
		busy = nil
	}
	return out, busy, nil
}

// Busy describes actionable items that are all leased by others: how many,
// by whom, and when the first lease ends.
type Busy struct {
	Leased    int            `json:"leased"`
	Holders   map[string]int `json:"holders"`
	NextFree  string         `json:"next_free_at"`
	FirstItem string         `json:"first_item"`
}

func (b *Busy) add(r *store.Row, now time.Time) {
	if b.Holders == nil {
		b.Holders = map[string]int{}
	}
	b.Leased++
	b.Holders[r.Lease.Holder]++
	if b.NextFree == "" || r.Lease.ExpiresAt < b.NextFree {
		b.NextFree, b.FirstItem = r.Lease.ExpiresAt, r.ID
	}
}

// Claim leases one item to holder for role. It is refused when it is not
// that role's turn (exit 4) or when a live lease exists (exit 5, naming its
// holder and expiry): a holder name is not a credential. Only the lease's
// own token (opts.Lease) proves the holder, and then the claim extends it.
func Claim(s *store.Store, opts store.TxOptions, id string, role model.Role, holder string, ttl time.Duration) (*Claimed, error) {
	var out *Claimed
	opts.Target = id
	_, err := s.Update(opts, func(tx *store.Tx) error {
		now := tx.Clock()
		it, err := itemIn(s, tx, id, now)
		if err != nil {
			return err
		}
		if it.Role != role {
			who := "nobody"
			if it.Role != "" {
				who = string(it.Role)
			}
			return store.Errorf(store.CodeInvalidTransition, "it is not %s's turn on %s: it is %s's (%s)", role, id, who, it.Reason).
				WithHint("`proofloop next --role " + string(role) + "` lists the items waiting for " + string(role))
		}
		if err := claimDebate(tx, id, claimActor(tx, opts, holder), false); err != nil {
			return err
		}
		if err := voidDebateLease(tx, id); err != nil {
			return err
		}
		var l *store.Lease
		if it.leased {
			if l, err = tx.Lease(id); err != nil {
				return err
			}
			if !l.Live(now) {
				l = nil // a lease that may not stand on the debate, just ended
			}
		}
		switch {
		case l != nil && l.Token != opts.Lease:
			return store.HeldError(l, opts.Lease)
		case l != nil:
			if err := tx.UseLease(l); err != nil {
				return err
			}
			l.Extend(now, ttl)
		default:
			l = store.NewLease(id, string(role), holder, claimActor(tx, opts, holder), now, ttl)
		}
		tx.PutLease(l)
		tx.Detail("claim", claimDetail(l))
		out = &Claimed{Item: it, Lease: l}
		return nil
	})
	return out, err
}

// Refresh extends a live lease; the token must be its own.
func Refresh(s *store.Store, opts store.TxOptions, id, token string, ttl time.Duration) (*store.Lease, error) {
	var out *store.Lease
	opts.Target = id
	_, err := s.Update(opts, func(tx *store.Tx) error {
		l, err := ownLease(tx, id, token, tx.Clock())
		if err != nil {
			return err
		}
		l.Extend(tx.Clock(), ttl)
		tx.PutLease(l)
		tx.Detail("refresh", map[string]any{"expires_at": l.ExpiresAt})
		out = l
		return nil
	})
	return out, err
}

// Release ends a live lease; the token must be its own. With force, a
// person or an orchestrator ends another's lease without its token; the
// event records the actor who forced it and the holder it took it from.
func Release(s *store.Store, opts store.TxOptions, id, token string, force bool) (*store.Lease, error) {
	var out *store.Lease
	opts.Target = id
	_, err := s.Update(opts, func(tx *store.Tx) error {
		var l *store.Lease
		var err error
		if force {
			l, err = liveLease(tx, id, tx.Clock())
		} else {
			l, err = ownLease(tx, id, token, tx.Clock())
		}
		if err != nil {
			return err
		}
		at := store.Timestamp(tx.Clock())
		l.ReleasedAt = &at
		tx.PutLease(l)
		tx.Detail("release", map[string]any{"holder": l.Holder, "forced": force})
		out = l
		return nil
	})
	return out, err
}

func ownLease(tx *store.Tx, id, token string, now time.Time) (*store.Lease, error) {
	l, err := liveLease(tx, id, now)
	if store.CodeOf(err) == store.CodeConflict {
		// Say whether the lease that ended was the caller's.
		last, lerr := tx.Lease(id)
		if lerr != nil {
			return nil, lerr
		}
		return nil, store.NoLiveLeaseError(id, last, token)
	}
	if err != nil {
		return nil, err
	}
	if l.Token != token {
		return nil, store.HeldError(l, token)
	}
	return l, tx.UseLease(l)
}

// claimActor is the actor a new lease binds: the claim's declared actor
// (--actor, $PROOFLOOP_ACTOR, or the one run names), else its holder. So
// `claim --holder check-1` makes check-1 the actor of every call under the
// lease, and the operating-system user never stands in for an agent.
func claimActor(tx *store.Tx, opts store.TxOptions, holder string) string {
	if opts.ActorDefaulted || tx.Actor() == "" {
		a := model.ActorKey(holder)
		tx.ActAs(a)
		return a
	}
	return model.ActorKey(tx.Actor())
}

// claimDetail is a claim event's detail: the lease's role, holder, actor
// and expiry, from which the lease can be derived again.
func claimDetail(l *store.Lease) map[string]any {
	d := map[string]any{"role": l.Role, "holder": l.Holder, "actor": l.Actor, "expires_at": l.ExpiresAt}
	if l.Agent != "" {
		d["agent"] = l.Agent
	}
	if l.Model != "" {
		d["model"] = l.Model
	}
	return d
}

// liveLease is the item's live lease, or a conflict when it has none.
func liveLease(tx *store.Tx, id string, now time.Time) (*store.Lease, error) {
	if _, err := tx.Get(id); err != nil {
		return nil, err
	}
	l, err := tx.Lease(id)
	if err != nil {
		return nil, err
	}
	if !l.Live(now) {
		return nil, store.Errorf(store.CodeConflict, "%s has no live lease (it expired or was released)", id).
			WithHint("claim it again with `proofloop claim` or `proofloop next --claim`")
	}
	return l, nil
}

// GuardLease is the lease rule of every skill call on an item: while a
// lease is live, the call needs its token, and it acts as the lease's actor
// (store.Tx.UseLease); with config.json's require_lease it needs a live
// lease at all. A call that ends the role's turn releases the lease. run is
// the skill's own work.
func GuardLease(s *store.Store, tx *store.Tx, id, token string, run func() error) error {
	now := tx.Clock()
	l, err := tx.Lease(id)
	if err != nil {
		return err
	}
	live := l.Live(now)
	if live && l.Token != token {
		return store.HeldError(l, token)
	}
	if live {
		if err := tx.UseLease(l); err != nil {
			return err
		}
	} else if err := requireLease(tx, id, l, token); err != nil {
		return err
	}
	if err := run(); err != nil {
		return err
	}
	if !live {
		return nil
	}
	it, err := itemIn(s, tx, id, now)
	if err != nil {
		return err
	}
	if string(it.Role) != l.Role {
		at := store.Timestamp(now)
		l.ReleasedAt = &at
		tx.PutLease(l)
	}
	return nil
}

// requireLease refuses a change of id without a live lease when config.json
// says require_lease: every change then has an actor bound by a lease. last
// is the item's last lease (nil if none) and token the one the call gave:
// the hint says whether that token was released, expired or never this
// item's, as a refresh's refusal does.
//
// A token given that is no live lease of id (released, expired, another
// item's, mistyped) is refused without require_lease too (issue 34, N16):
// ignoring it would record the call under the declared actor, as if no
// lease had been presented.
func requireLease(tx *store.Tx, id string, last *store.Lease, token string) error {
	cfg, err := tx.Config()
	if err != nil || !cfg.RequireLease && token == "" {
		return err
	}
	// A mistyped id is not_found (with the nearest ids), not a lease to
	// claim on a document that does not exist.
	if ok, err := tx.Exists(id); err != nil || !ok {
		if err == nil {
			_, err = tx.Get(id)
		}
		return err
	}
	role := "ROLE"
	if it, err := itemIn(nil, tx, id, tx.Clock()); err == nil && it.Role != "" {
		role = string(it.Role)
	}
	claim := fmt.Sprintf("`proofloop claim %s --role %s --holder NAME` (or `proofloop next --role %s --claim --holder NAME`), then pass the token with --lease or PROOFLOOP_LEASE", id, role, role)
	hint := "claim it first: " + claim
	switch {
	case token == "":
	case last != nil && token == last.Token && last.ReleasedAt != nil:
		hint = fmt.Sprintf("the lease token you gave was released at %s: claim it again if it is still your role's turn: %s", *last.ReleasedAt, claim)
	case last != nil && token == last.Token:
		hint = fmt.Sprintf("the lease token you gave expired at %s: claim it again if it is still your role's turn (and refresh sooner): %s", last.ExpiresAt, claim)
	case last == nil:
		hint = fmt.Sprintf("the lease token you gave was never a lease of %s, which was never claimed: claim it first: %s", id, claim)
	default:
		hint = fmt.Sprintf("the lease token you gave is not the last lease of %s (an older one, mistyped, or another item's): claim it first: %s", id, claim)
	}
	if !cfg.RequireLease {
		return store.Errorf(store.CodeUsage, "the lease token you gave is no live lease of %s: a dead token is refused, not ignored", id).
			WithHint(strings.Replace(hint, ": claim it", ": act without a lease (drop --lease and unset PROOFLOOP_LEASE), or claim it", 1))
	}
	return store.Errorf(store.CodeUsage, "%s needs a live lease: config.json sets require_lease, so every change is made under a lease that names its actor", id).
		WithHint(hint)
}
