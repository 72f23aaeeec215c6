package loop

import (
	"fmt"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// A debate's close: by its terminal rule after a turn (closeDebate), or
// explicitly (CloseDebate), and the timeout of a duel whose peer never
// joined (waitsForPeer).

// closeDebate gives d its outcome and status, settles a dispute, and
// writes the document and the transcript. It returns the issue a dispute
// withdrew, as STMT#N, or "".
func closeDebate(tx *store.Tx, doc *store.Doc, d *model.Debate, p *model.Protocol, outcome, reason string, summary *string, actor string) (string, error) {
	d.Status = p.ClosedStatus(outcome)
	d.Outcome = &model.DebateOutcome{Outcome: outcome, Reason: reason, At: tx.Now(), Summary: summary}
	if actor != "" {
		d.Outcome.Actor = &actor
	}

	tx.Detail("outcome", outcome)
	tx.Detail("reason", reason)
	withdrawn := ""
	if d.About != nil {
		w, err := settleDispute(tx, d)
		if err != nil {
			return "", err
		}
		if w {
			withdrawn = fmt.Sprintf("%s#%d", d.About.Statement, d.About.IssueNumber)
			tx.Detail("withdrawn_issue", withdrawn)
		}
	}
	return withdrawn, putDebate(tx, doc, d)
}

// DebateClose describes an explicit close.
type DebateClose struct {
	ID, Outcome string
	Summary     *string
	Discard     bool
}

// CloseDebate closes a debate explicitly: only with an outcome whose rule
// holds, TIMEOUT after a --for-timeout claim (its lease token given), or the
// invalidated outcome with a reason (--summary). With Discard it removes the
// debate and its transcript instead; the event log keeps that it existed.
func CloseDebate(s *store.Store, opts store.TxOptions, in DebateClose) (*DebateResult, error) {
	opts.Target = in.ID
	var out *DebateResult
	_, err := s.Update(opts, func(tx *store.Tx) error {
		doc, d, p, err := debateIn(tx, in.ID)
		if err != nil {
			return err
		}
		if err := voidLease(tx, d, p, false); err != nil {
			return err
		}
		l, err := tx.Lease(in.ID)
		if err != nil {
			return err
		}
		live := l.Live(s.Now())
		if live && l.Token != opts.Lease {
			return store.HeldError(l, opts.Lease)
		}
		if live {
			if err := tx.UseLease(l); err != nil {
				return err
			}
		} else if opts.Lease != "" {
			return requireLease(tx, in.ID, l, opts.Lease) // a dead token is refused (N16)
		}
		if in.Discard && d.Status != model.DebateOpen {
			// A completed debate is a record: a dispute's outcome may have
			// withdrawn an issue that links to it, and doctor would find the
			// link dangling. Only an open debate that nobody keeps goes.
			return store.Errorf(store.CodeInvalidTransition, "%s is %s: --discard removes only an open debate; a completed one is kept as the record of its outcome", in.ID, d.Status).
				WithHint("leave it; `proofloop debate show " + in.ID + " --transcript` reads it, and `proofloop debate list --status open` lists the debates that can be discarded")
		}
		if in.Discard {
			if d.About != nil {
				if _, err := settleDispute(tx, d); err != nil {
					return err
				}
			}
			if err := tx.Delete(in.ID); err != nil {
				return err
			}
			tx.Detail("discarded", true)
			tx.Detail("artifact", d.Artifact)
			out = resultOf(d)
			out.Discarded = true
			return tx.RemoveFile(d.Artifact)
		}
		forTimeout := live && l.Role == TimeoutRole
		reason := ""
		if in.Summary != nil {
			reason = *in.Summary
		}
		if err := p.CheckClose(d, in.Outcome, reason, forTimeout); err != nil {
			return turnErr(err)
		}
		why := "closed by " + tx.Actor()
		switch in.Outcome {
		case p.Invalidated:
			why = reason
		case p.Timeout:
			why = "a participant never joined; closed after a --for-timeout claim"
		default:
			if a := p.Terminal(d); a.Closed {
				why = a.Reason
			}
		}
		if live {
			at := tx.Now()
			l.ReleasedAt = &at
			tx.PutLease(l)
		}
		// An explicit close records who closed it; the engine's own
		// decision after a turn comes from the turns, not from a person.
		withdrawn, err := closeDebate(tx, doc, d, p, in.Outcome, why, in.Summary, tx.Actor())
		if err != nil {
			return err
		}
		out = resultOf(d)
		out.Withdrawn = withdrawn
		return nil
	})
	return out, err
}

// waitsForPeer reports whether d, on a protocol with a timeout outcome,
// waits for a participant to join while actor already sits in it: such a
// participant gets no turn and no lease (seed 000), only `claim --for-timeout`.
func waitsForPeer(d *model.Debate, p *model.Protocol, actor string) bool {
	if p.Timeout == "" || d.Status != model.DebateOpen || len(d.Participants) == 0 || len(d.Participants) >= p.Needs(d) {
		return false
	}
	for _, m := range d.Participants {
		if m.Actor != "" && model.SameActor(m.Actor, actor) {
			return true
		}
	}
	return false
}

// LoneInDuel reports whether actor sits alone in debate id, which waits
// for its second participant: `next` does not offer it to that actor.
func LoneInDuel(s *store.Store, id, actor string) bool {
	d, _, err := ShowDebate(s, id)
	if err != nil {
		return false
	}
	p, err := model.LookupProtocol(d.Protocol)
	return err == nil && waitsForPeer(d, p, actor)
}
