package store

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/schemas"
)

// LeaseDir holds one lease file per item that was ever claimed.
const LeaseDir = "leases"

// Lease is leases/<id>.json: who holds the turn on an item, until when.
// Leases live beside the documents, not in them, so claiming a turn does not
// bump the document's revision that checkers pass to --expect-revision.
type Lease struct {
	ID     string `json:"id"`
	Role   string `json:"role"`
	Holder string `json:"holder"`
	// Actor is who claimed the lease, in its normal form: whatever is done
	// under the lease is done by this actor. A lease written before leases
	// recorded it has none and binds no actor.
	Actor string `json:"actor,omitempty"`
	// Agent and Model name the agent of config.json that run claimed the
	// lease for, and its model label: every record written under the
	// lease carries them. Absent on a claim made by hand.
	Agent      string  `json:"agent,omitempty"`
	Model      string  `json:"model,omitempty"`
	Token      string  `json:"token"`
	ClaimedAt  string  `json:"claimed_at"`
	ExpiresAt  string  `json:"expires_at"`
	ReleasedAt *string `json:"released_at,omitempty"`
}

// leaseTime is the lease timestamp format: UTC to the millisecond, so that
// short test TTLs are exact.
const leaseTime = "2006-01-02T15:04:05.000Z"

// Live reports whether the lease holds at time now.
func (l *Lease) Live(now time.Time) bool {
	if l == nil || l.ReleasedAt != nil {
		return false
	}
	exp, err := time.Parse(time.RFC3339Nano, l.ExpiresAt)
	return err == nil && now.Before(exp)
}

// NewLease makes a lease with a fresh random token, claimed by actor.
func NewLease(id, role, holder, actor string, now time.Time, ttl time.Duration) *Lease {
	var b [16]byte
	rand.Read(b[:])
	return &Lease{ID: id, Role: role, Holder: holder, Actor: model.ActorKey(actor), Token: hex.EncodeToString(b[:]),
		ClaimedAt: Timestamp(now), ExpiresAt: now.Add(ttl).UTC().Format(leaseTime)}
}

// Extend moves the expiry to now+ttl.
func (l *Lease) Extend(now time.Time, ttl time.Duration) {
	l.ExpiresAt = now.Add(ttl).UTC().Format(leaseTime)
}

// HeldError is the lease_held refusal: someone else holds the item's turn,
// and token (the one the call gave, "" for none) is not its lease's. The
// hint says which: no token, or a token that is not this lease's (a typo,
// or a lease of the caller's that ended before another claimed the item).
func HeldError(l *Lease, token string) *Error {
	e := Errorf(CodeLeaseHeld, "%s is leased to %s (role %s) until %s", l.ID, l.Holder, l.Role, l.ExpiresAt)
	e.Held = &HeldBy{ID: l.ID, Holder: l.Holder, Role: l.Role, ExpiresAt: l.ExpiresAt}
	if token == "" {
		return e.WithHint(fmt.Sprintf("you gave no lease token: if you claimed %s, pass your token (--lease TOKEN or $PROOFLOOP_LEASE); "+
			"otherwise it is %s's turn until %s: take other work (`proofloop next --role %s --claim`) or end your turn", l.ID, l.Holder, l.ExpiresAt, l.Role))
	}
	return e.WithHint(fmt.Sprintf("the token you gave is not the live lease's (%s's, claimed at %s): a lease of yours on %s ended (expired or released) before %s claimed it, "+
		"or the token is mistyped; do not retry: take other work (`proofloop next --role %s --claim`) or end your turn", l.Holder, l.ClaimedAt, l.ID, l.Holder, l.Role))
}

// NoLiveLeaseError is the refusal of a refresh or release when the item
// has no live lease; it says whether the token given was that lease's, and
// when it ended.
func NoLiveLeaseError(id string, l *Lease, token string) *Error {
	e := Errorf(CodeConflict, "%s has no live lease (it expired or was released)", id)
	switch {
	case l == nil:
		return e.WithHint(fmt.Sprintf("%s was never claimed: claim it with `proofloop claim %s --role ROLE`", id, id))
	case token != "" && token == l.Token && l.ReleasedAt != nil:
		return e.WithHint(fmt.Sprintf("your lease was released at %s: claim it again (`proofloop claim %s --role %s`) if it is still your role's turn", *l.ReleasedAt, id, l.Role))
	case token != "" && token == l.Token:
		return e.WithHint(fmt.Sprintf("your lease expired at %s: claim it again (`proofloop claim %s --role %s`) if it is still your role's turn, and refresh it sooner", l.ExpiresAt, id, l.Role))
	case token != "":
		return e.WithHint(fmt.Sprintf("the token you gave is not %s's last lease (%s's, claimed at %s): check the token, or claim it again with `proofloop claim %s --role ROLE`", id, l.Holder, l.ClaimedAt, id))
	}
	return e.WithHint(fmt.Sprintf("claim it again with `proofloop claim %s --role ROLE` or `proofloop next --role ROLE --claim`", id))
}

// LeasePath is the root-relative path of id's lease file.
func LeasePath(id string) string { return LeaseDir + "/" + id + ".json" }

// Lease reads the lease of an item; nil when it never had one.
func (tx *Tx) Lease(id string) (*Lease, error) {
	if l, ok := tx.leases[id]; ok {
		return l, nil
	}
	l, err := readLease(tx.src(), id)
	if err != nil {
		return nil, err
	}
	if tx.leases == nil {
		tx.leases = map[string]*Lease{}
	}
	tx.leases[id] = l
	return l, nil
}

// PutLease writes the lease when the transaction commits.
func (tx *Tx) PutLease(l *Lease) {
	if tx.leases == nil {
		tx.leases = map[string]*Lease{}
	}
	tx.leases[l.ID] = l
	tx.dirtyLeases = append(tx.dirtyLeases, l.ID)
	if tx.opts.LeaseHolder == "" {
		tx.opts.LeaseHolder = l.Holder
	}
}

// UseLease makes the transaction act under the lease a call presented:
// the event records its holder, and the transaction's actor becomes the
// lease's. A declared actor (--actor, $PROOFLOOP_ACTOR) other than the
// lease's is refused (exit 2): a lease is not lent to someone else.
func (tx *Tx) UseLease(l *Lease) error {
	if l.Actor != "" {
		if err := ActorMismatch(tx.opts, l); err != nil {
			return err
		}
		tx.opts.Actor = l.Actor
	}
	tx.opts.Agent, tx.opts.Model = l.Agent, l.Model
	tx.opts.LeaseHolder = l.Holder
	return nil
}

// ActorMismatch is the refusal of a declared actor other than the actor of
// the lease presented with it; nil when they agree, when the actor was not
// declared, or when the lease names none (written before leases did).
func ActorMismatch(opts TxOptions, l *Lease) error {
	if l.Actor == "" || opts.ActorDefaulted || opts.Actor == "" || model.SameActor(opts.Actor, l.Actor) {
		return nil
	}
	return Errorf(CodeUsage, "the lease on %s was claimed by %s: it cannot act as %s", l.ID, l.Actor, model.ActorKey(opts.Actor)).
		WithHint(fmt.Sprintf("drop --actor and $PROOFLOOP_ACTOR (the lease acts as %s), or claim the item in your own name", l.Actor))
}

// ActAs makes the transaction act for actor from now on (its event and
// every record it writes): run claims an item in the name of the agent
// that will take the turn, known only once the item is chosen.
func (tx *Tx) ActAs(actor string) { tx.opts.Actor = model.ActorKey(actor) }

// ActAsAgent is ActAs for an agent of config.json, with its name and model.
func (tx *Tx) ActAsAgent(actor, agent, modelLabel string) {
	tx.ActAs(actor)
	tx.opts.Agent, tx.opts.Model = agent, modelLabel
}

// ReadLease reads an item's lease without the lock; nil when none.
func (s *Store) ReadLease(id string) (*Lease, error) { return readLease(s.src(), id) }

// leaseWrites are the journal writes of the leases the transaction changed.
func (tx *Tx) leaseWrites() ([]journalWrite, error) {
	var out []journalWrite
	seen := map[string]bool{}
	for _, id := range tx.dirtyLeases {
		if seen[id] {
			continue
		}
		seen[id] = true
		b, err := json.MarshalIndent(tx.leases[id], "", "  ")
		if err != nil {
			return nil, err
		}
		if err := schemas.Validate(schemas.Lease, b); err != nil {
			return nil, Errorf(CodeInternal, "lease of %s would not pass its schema; nothing was written", id).Wrap(err)
		}
		out = append(out, journalWrite{Path: LeasePath(id), Content: string(b) + "\n"})
	}
	return out, nil
}

// LeasesDetail is the event detail that records every lease a transaction
// wrote, as the lease file holds it but with the token's SHA-256 in place
// of the token: the log then implies every lease file, and doctor compares
// them (a lease written by hand, or a changed holder, token or expiry, is
// damage), while the log gives away no token.
const LeasesDetail = "leases"

// LeaseRecord is a lease as the event log records it: every field of the
// lease file, whatever it holds, with "token" replaced by "token_sha256".
func LeaseRecord(raw []byte) (map[string]any, error) {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	if tok, ok := m["token"].(string); ok {
		sum := sha256.Sum256([]byte(tok))
		m["token_sha256"] = hex.EncodeToString(sum[:])
		delete(m, "token")
	}
	return m, nil
}

// leaseRecords are the records of the leases the transaction writes, by
// item id; nil when it writes none.
func (tx *Tx) leaseRecords() map[string]any {
	if len(tx.dirtyLeases) == 0 {
		return nil
	}
	out := map[string]any{}
	for _, id := range tx.dirtyLeases {
		b, err := json.Marshal(tx.leases[id])
		if err != nil {
			continue // leaseWrites reported it
		}
		if rec, err := LeaseRecord(b); err == nil {
			out[id] = rec
		}
	}
	return out
}
