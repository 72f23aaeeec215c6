package loop

import (
	"slices"
	"time"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// Claimed is a lease just taken on an item.
type Claimed struct {
	Item  *Item
	Lease *store.Lease
}

// LeaseTTL is config.json's lease_ttl, or ttl when it is not zero.
func LeaseTTL(s *store.Store, ttl time.Duration) (time.Duration, error) {
	if ttl > 0 {
		return ttl, nil
	}
	cfg, err := s.Config()
	if err != nil {
		return 0, err
	}
	return cfg.LeaseTTLDuration(), nil
}

// ClaimNext finds the first actionable item for one of roles (any role when
// empty; under root, if given) that nobody holds, and leases it to holder,
// in one transaction: two workers never get the same item. It returns nil
// when nothing is actionable.
//
// The whole-store scan that orders the candidates runs without the lock;
// under the lock each candidate in turn is derived again from its own
// document, children and lease, and the first one still actionable and
// free is claimed. So the lock is held for a few reads, not for a scan of
// the store, and a candidate another worker took meanwhile is skipped.
func ClaimNext(s *store.Store, opts store.TxOptions, roles []model.Role, root, holder string, ttl time.Duration) (*Claimed, error) {
	snap, err := Load(s)
	if err != nil {
		return nil, err
	}
	var cands []*Item
	for _, it := range snap.Actionable("", root) {
		if it.lease == nil && (len(roles) == 0 || slices.Contains(roles, it.Role)) {
			cands = append(cands, it)
		}
	}
	if len(cands) == 0 {
		return nil, nil
	}
	var out *Claimed
	_, err = s.Update(opts, func(tx *store.Tx) error {
		now := s.Now()
		for _, c := range cands {
			it, err := itemIn(s, tx, c.ID, now)
			if err != nil {
				return err
			}
			if it.lease != nil || it.Role != c.Role {
				continue
			}
			it.Depth, it.Root = c.Depth, c.Root
			l := store.NewLease(it.ID, string(it.Role), holder, now, ttl)
			tx.PutLease(l)
			tx.Detail("claim", map[string]any{"role": it.Role, "holder": holder, "expires_at": l.ExpiresAt})
			out = &Claimed{Item: it, Lease: l}
			return nil
		}
		return nil
	})
	return out, err
}

// Claim leases one item to holder for role. It is refused when it is not
// that role's turn (exit 4) or when a live lease exists (exit 5, naming its
// holder and expiry): a holder name is not a credential. Only the lease's
// own token (opts.Lease) proves the holder, and then the claim extends it.
func Claim(s *store.Store, opts store.TxOptions, id string, role model.Role, holder string, ttl time.Duration) (*Claimed, error) {
	var out *Claimed
	opts.Target = id
	_, err := s.Update(opts, func(tx *store.Tx) error {
		now := s.Now()
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
		l := it.lease
		switch {
		case l != nil && l.Token != opts.Lease:
			return store.HeldError(l)
		case l != nil:
			l.Extend(now, ttl)
		default:
			l = store.NewLease(id, string(role), holder, now, ttl)
		}
		tx.PutLease(l)
		tx.Detail("claim", map[string]any{"role": role, "holder": holder, "expires_at": l.ExpiresAt})
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
		l, err := ownLease(tx, id, token, s.Now())
		if err != nil {
			return err
		}
		l.Extend(s.Now(), ttl)
		tx.PutLease(l)
		tx.Detail("refresh", map[string]any{"expires_at": l.ExpiresAt})
		out = l
		return nil
	})
	return out, err
}

// Release ends a live lease; the token must be its own.
func Release(s *store.Store, opts store.TxOptions, id, token string) (*store.Lease, error) {
	var out *store.Lease
	opts.Target = id
	_, err := s.Update(opts, func(tx *store.Tx) error {
		l, err := ownLease(tx, id, token, s.Now())
		if err != nil {
			return err
		}
		at := store.Timestamp(s.Now())
		l.ReleasedAt = &at
		tx.PutLease(l)
		tx.Detail("release", map[string]any{"holder": l.Holder})
		out = l
		return nil
	})
	return out, err
}

func ownLease(tx *store.Tx, id, token string, now time.Time) (*store.Lease, error) {
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
	if l.Token != token {
		return nil, store.HeldError(l)
	}
	return l, nil
}

// itemIn derives one item's turn inside a transaction: it reads the item,
// its children and its lease, nothing else.
func itemIn(s *store.Store, tx *store.Tx, id string, now time.Time) (*Item, error) {
	cfg, err := s.Config()
	if err != nil {
		return nil, err
	}
	d, err := tx.Get(id)
	if err != nil {
		return nil, err
	}
	return newItem(d, tx, func(c string) (Child, error) {
		cd, err := tx.Get(c)
		if err != nil {
			return Child{}, err
		}
		return childOf(cd), nil
	}, cfg.MaxRounds, now)
}

// GuardLease is the lease rule of every skill call on an item: while a
// lease is live, the call needs its token. A call that ends the role's turn
// releases the lease. run is the skill's own work.
func GuardLease(s *store.Store, tx *store.Tx, id, token string, run func() error) error {
	now := s.Now()
	l, err := tx.Lease(id)
	if err != nil {
		return err
	}
	live := l.Live(now)
	if live && l.Token != token {
		return store.HeldError(l)
	}
	if live {
		tx.UseLease(l)
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
