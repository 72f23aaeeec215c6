package loop

import (
	"fmt"
	"strconv"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// Seats: a debate seat belongs to the actor who joined it (DESIGN.md
// "Identity"). Only that actor writes the seat's turns, one actor holds one
// seat of a debate, and a dispute's two seats are two parties, one of them
// on the checking side. The actor is the transaction's, after a presented
// lease bound it (store.Tx.UseLease).

// takeSeat is the actor who may join d as a new participant: refused when
// the actor already holds a seat of d.
func takeSeat(tx *store.Tx, d *model.Debate) (string, error) {
	actor := model.ActorKey(tx.Actor())
	if held := d.ParticipantByActor(actor); held != nil {
		return "", seatErr("%s already holds seat %s (%s, role %s) of %s, and one actor holds one seat of a debate",
			actor, held.ParticipantID, held.Name, held.Role, d.ID).
			WithHint(fmt.Sprintf("write that seat's turns with `proofloop debate turn %s --participant-id %s`; another seat is another actor's: a second session of the same user joins as its own actor, with --actor NAME on every call (or PROOFLOOP_ACTOR=NAME)", d.ID, held.ParticipantID))
	}
	return actor, nil
}

// ownSeat refuses a turn for seat pid by an actor who does not hold it. A
// seat joined before seats recorded their actor is bound to the actor of its
// next turn, under the same rules as a join.
func ownSeat(tx *store.Tx, d *model.Debate, pid string) error {
	me := d.ParticipantByID(pid)
	if me == nil {
		return nil // not a seat (a dialectic user's turn) or unknown: ValidateTurn says which
	}
	actor := model.ActorKey(tx.Actor())
	switch {
	case me.Actor != "" && !model.SameActor(me.Actor, actor):
		return seatRefusal(d, me, actor)
	case me.Actor != "" || actor == "":
		return nil
	}
	if held := d.ParticipantByActor(actor); held != nil {
		return seatRefusal(d, me, actor)
	}
	me.Actor = actor
	return checkDisputeSeats(tx, d)
}

func seatRefusal(d *model.Debate, me *model.Participant, actor string) error {
	who := me.Actor
	if who == "" {
		who = "another actor"
	}
	return seatErr("seat %s (%s) of %s belongs to %s; %s may not write its turns", me.ParticipantID, me.Name, d.ID, who, actor).
		WithHint(fmt.Sprintf("act as %s (its lease, or --actor %s), or write the turns of your own seat", who, who))
}

// checkDisputeSeats: one party cannot settle a dispute. Once both seats of a
// dispute are held, one of them must be on the checking side: the issue's
// author, or another checker of the statement (who recorded an issue or a
// confirmation on it) who did not write its proof.
func checkDisputeSeats(tx *store.Tx, d *model.Debate) error {
	if d.About == nil || len(d.Participants) < 2 {
		return nil
	}
	for _, p := range d.Participants {
		if p.Actor == "" {
			return nil // a seat from before seats had actors: its first turn decides
		}
	}
	_, st, i, err := disputedIssue(tx, d.About)
	if err != nil {
		return err
	}
	is := st.Validate.Issues[i]
	for _, p := range d.Participants {
		if checkingSide(st, is, p.Actor) {
			return nil
		}
	}
	author := "unknown"
	if is.Actor != nil {
		author = *is.Actor
	}
	ref := fmt.Sprintf("%s#%d", st.ID, is.IssueNumber)
	return seatErr("the dispute of %s needs two parties: neither %s nor %s is the issue's author (%s) or another checker of %s who did not write its proof",
		ref, d.Participants[0].Actor, d.Participants[1].Actor, author, st.ID).
		WithHint(fmt.Sprintf("the checking side joins: the issue's author (%s) or another checker, with `proofloop debate join %s --participant-name NAME`", author, d.ID))
}

// checkingSide reports whether actor may hold a dispute's checking seat.
func checkingSide(st *model.Statement, is model.Issue, actor string) bool {
	if is.Actor != nil && model.SameActor(*is.Actor, actor) {
		return true
	}
	if st.ProofAuthor != nil && model.SameActor(*st.ProofAuthor, actor) {
		return false
	}
	for _, x := range st.Validate.Issues {
		if x.Actor != nil && model.SameActor(*x.Actor, actor) {
			return true
		}
	}
	for _, c := range st.Validate.Confirmations {
		if c.Actor != nil && model.SameActor(*c.Actor, actor) {
			return true
		}
	}
	return false
}

// presentLease makes tx act under the item's live lease when the call
// presented its token (a join or a resume, a suggestion's decision); it
// refuses a declared actor other than the lease's, a token of another's
// live lease (lease_held), and a token that is no live lease at all (N16:
// a dead token is refused, not ignored).
func presentLease(tx *store.Tx, id, token string) (*store.Lease, error) {
	l, err := tx.Lease(id)
	switch {
	case err != nil || token == "":
		return l, err
	case l.Live(tx.Clock()) && l.Token != token:
		return l, store.HeldError(l, token)
	case !l.Live(tx.Clock()):
		return l, requireLease(tx, id, l, token)
	}
	return l, tx.UseLease(l)
}

// JoinName is the participant name, and the actor, that run gives the
// agent joining d as role: <role>-<n>, n the seat's number.
func JoinName(d *model.Debate, role string) string {
	return role + "-" + strconv.Itoa(len(d.Participants)+1)
}

// seat is the seat run claims a debate's turn for (seatActor).
type seat struct {
	actor    string
	place    int    // among its role's seats, 0 for the role's first
	protocol string // the debate's, which picks the agents key
}

// seatActor is the actor run claims a debate's turn for: the actor of the
// seat that writes next, or the name of the seat to be joined; the seat's
// place among its role's seats (0 for the role's first), which picks the
// role's agent that sits in it (runner.seatAgent); and the debate's
// protocol.
func seatActor(tx *store.Tx, id string) (seat, error) {
	_, d, p, err := debateIn(tx, id)
	if err != nil {
		return seat{}, err
	}
	w := p.WhoseTurn(d)
	if me := d.ParticipantByID(w.ParticipantID); me != nil {
		place := 0
		for _, q := range d.Participants {
			if q.ParticipantID == me.ParticipantID {
				break
			}
			if q.Role == me.Role {
				place++
			}
		}
		if me.Actor != "" {
			return seat{me.Actor, place, d.Protocol}, nil
		}
		return seat{model.ActorKey(me.Name), place, d.Protocol}, nil
	}
	if w.JoinRole != "" {
		place := 0
		for _, q := range d.Participants {
			if q.Role == w.JoinRole {
				place++
			}
		}
		return seat{model.ActorKey(JoinName(d, w.JoinRole)), place, d.Protocol}, nil
	}
	return seat{protocol: d.Protocol}, nil
}

// seatErr is a seat refusal: a workflow rule, exit 4.
func seatErr(format string, args ...any) *store.Error {
	return store.Errorf(store.CodeInvalidTransition, "seat refused: "+format, args...)
}
