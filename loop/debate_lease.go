package loop

import (
	"fmt"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// A debate's lease goes only to the participant whose turn it is (issue
// 34; issue 37 S7/new-4, new-2, new-3, after seed 000's claim-lock): a
// stranger, or the participant whose turn it is not, cannot take it and
// keep the rightful writer out. While a seat is still to be joined the
// lease is nobody's: joining never needs it, and a lease taken before the
// join (run's, for the agent it starts to join; a pending timeout's) keeps
// nobody out. The rules:
//   - claimDebate refuses a claim (claim, next --claim) by anyone but the
//     seat whose turn it is, and next --claim passes the debate over;
//   - rightful says whether a lease may stand on the debate now, and
//     voidLease ends one that may not (a lease taken before these rules, a
//     joiner's whose seat another took), so it never blocks the writer;
//   - settleLease ends the lease when the turn passes to another seat.

// turnSeat is the participant whose turn it is on d, nil when a join is
// needed or d is closed, and its actor (a seat from before seats recorded
// their actor answers to its name).
func turnSeat(d *model.Debate, p *model.Protocol) (*model.Participant, string, model.TurnState) {
	w := p.WhoseTurn(d)
	me := d.ParticipantByID(w.ParticipantID)
	if me == nil {
		return nil, "", w
	}
	if me.Actor != "" {
		return me, me.Actor, w
	}
	return me, model.ActorKey(me.Name), w
}

// claimDebate refuses a claim of debate id by actor (exit 4, nothing
// written) unless actor holds the seat whose turn it is. joiner is run's
// claim for the agent it starts to join: allowed while a join is needed, in
// the seat's name (JoinName), since the join itself needs no lease.
func claimDebate(tx *store.Tx, id, actor string, joiner bool) error {
	if k, err := model.KindOf(id); err != nil || k != model.KindDebate {
		return nil
	}
	_, d, p, err := debateIn(tx, id)
	if err != nil {
		return err
	}
	if waitsForPeer(d, p, actor) {
		return store.Errorf(store.CodeInvalidTransition, "claim refused: %s waits for its second participant; no turn and no lease before it joins", id).
			WithHint("wait for the peer with `proofloop debate wait " + id + " --participant-id P` (bounded); after the wait, `proofloop claim " + id + " --for-timeout --holder H` re-checks and leases it for a TIMEOUT close")
	}
	me, owner, w := turnSeat(d, p)
	switch {
	case w.Closed:
		return nil // the item's own rule refuses it: no role has a turn
	case me == nil && joiner && model.SameActor(actor, JoinName(d, w.JoinRole)):
		return nil
	case me == nil:
		return store.Errorf(store.CodeInvalidTransition, "claim refused: %s waits for %s to join, and a debate is leased only to the participant whose turn it is", id, model.A(w.JoinRole)).
			WithHint(fmt.Sprintf("joining needs no lease: `proofloop debate join %s --participant-name NAME`; then claim it when it is your turn", id))
	case model.SameActor(actor, owner):
		return nil
	}
	who := fmt.Sprintf("%s (%s, %s)", me.ParticipantID, me.Name, owner)
	if mine := d.ParticipantByActor(model.ActorKey(actor)); mine != nil {
		return store.Errorf(store.CodeInvalidTransition, "claim refused: it is %s's turn on %s, not yours (%s): a debate is leased only to the participant whose turn it is", who, id, mine.ParticipantID).
			WithHint(fmt.Sprintf("wait for your turn: `proofloop debate wait %s --participant-id %s` returns when it is yours", id, mine.ParticipantID))
	}
	return store.Errorf(store.CodeInvalidTransition, "claim refused: %s is no participant of %s, and only the participant whose turn it is may lease it: %s", model.ActorKey(actor), id, who).
		WithHint(fmt.Sprintf("only %s claims it now; join an open seat of a debate with `proofloop debate join ID --participant-name NAME`, or take other work (`proofloop next --role %s --claim`)", owner, me.Role))
}

// rightful reports whether lease l may stand on d now: it is the seat's
// whose turn it is; or, while a seat is to be joined, a pending timeout's
// or the joiner's that run claimed for it.
func rightful(d *model.Debate, p *model.Protocol, l *store.Lease) bool {
	me, owner, w := turnSeat(d, p)
	switch {
	case w.Closed:
		return true // closing rules of their own decide (CloseDebate)
	case me != nil:
		return model.SameActor(l.Actor, owner) || l.Actor == "" && l.Role != TimeoutRole
	}
	return l.Role == TimeoutRole || model.SameActor(l.Actor, JoinName(d, w.JoinRole))
}

// voidLease ends, in tx, a live lease of debate d that may not stand
// (rightful): before a change, one that would keep the rightful writer out
// (recorded as lease_voided in the change's event); after one, the lease
// of a seat whose turn has passed (settle).
func voidLease(tx *store.Tx, d *model.Debate, p *model.Protocol, settle bool) error {
	l, err := tx.Lease(d.ID)
	if err != nil || l == nil || !l.Live(tx.Clock()) || rightful(d, p, l) {
		return err
	}
	at := store.Timestamp(tx.Clock())
	l.ReleasedAt = &at
	tx.PutLease(l)
	if !settle {
		tx.Detail("lease_voided", map[string]any{"holder": l.Holder, "actor": l.Actor})
	}
	return nil
}

// voidDebateLease is voidLease on the debate id names (nothing for another
// kind of item).
func voidDebateLease(tx *store.Tx, id string) error {
	if k, err := model.KindOf(id); err != nil || k != model.KindDebate {
		return nil
	}
	_, d, p, err := debateIn(tx, id)
	if err != nil {
		return err
	}
	return voidLease(tx, d, p, false)
}

// TimeoutRole is the lease role of a `claim --for-timeout` on a debate: the
// claimer waited for a peer that never joined and may now close it TIMEOUT.
const TimeoutRole = "timeout"

// ClaimForTimeout leases a debate for closing it TIMEOUT (rp1's timeout
// path): it re-checks, under the lock, that a participant is still
// missing, and refuses otherwise (exit 4).
func ClaimForTimeout(s *store.Store, opts store.TxOptions, id, holder string) (*store.Lease, error) {
	opts.Target = id
	ttl, err := LeaseTTL(s, 0)
	if err != nil {
		return nil, err
	}
	var out *store.Lease
	_, err = s.Update(opts, func(tx *store.Tx) error {
		_, d, p, err := debateIn(tx, id)
		if err != nil {
			return err
		}
		if p.Timeout == "" {
			return store.Errorf(store.CodeInvalidTransition, "claim --for-timeout refused: the %s protocol has no timeout outcome", p.Name)
		}
		if d.Status != model.DebateOpen {
			return store.Errorf(store.CodeInvalidTransition, "claim --for-timeout refused: the debate is %s", d.Status)
		}
		if len(d.Participants) >= p.Needs(d) {
			return store.Errorf(store.CodeInvalidTransition, "claim --for-timeout refused: all %d participants joined", p.Needs(d)).
				WithHint("the peer joined, so the debate goes on: wait for your turn with `proofloop debate wait ID --participant-id P`")
		}
		l, err := tx.Lease(id)
		if err != nil {
			return err
		}
		if l.Live(s.Now()) && l.Token != opts.Lease {
			return store.HeldError(l, opts.Lease)
		}
		if l.Live(s.Now()) {
			if err := tx.UseLease(l); err != nil {
				return err
			}
		}
		nl := store.NewLease(id, TimeoutRole, holder, claimActor(tx, opts, holder), s.Now(), ttl)
		tx.PutLease(nl)
		tx.Detail("claim", claimDetail(nl))
		out = nl
		return nil
	})
	return out, err
}
