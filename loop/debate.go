package loop

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// The store cannot import the loop; doctor renders transcripts through
// this hook to find and rewrite a missing or stale one.
func init() { store.RenderTranscript = RenderDebate }

// DebateResult is what a debate command reports: the facts a caller needs
// for its next step (DESIGN.md "Debates").
type DebateResult struct {
	ID       string       `json:"id"`
	Status   model.Status `json:"status"`
	Revision int          `json:"revision"`
	Protocol string       `json:"protocol"`
	// Artifact is the transcript's path under the contents root.
	Artifact string `json:"artifact"`
	// ParticipantID and Role are the caller's, after join or turn.
	ParticipantID    string `json:"participant_id,omitempty"`
	Role             string `json:"role,omitempty"`
	ParticipantCount int    `json:"participant_count"`
	// TurnNumber is the number of the turn just written (turn), else the
	// number of turns so far.
	TurnNumber           int                  `json:"turn_number"`
	WhoseTurn            model.TurnState      `json:"whose_turn"`
	CandidateConvergence bool                 `json:"candidate_convergence"`
	MediatorNeeded       bool                 `json:"mediator_needed"`
	Outcome              *model.DebateOutcome `json:"outcome,omitempty"`
	// Joined is false when join found the name already there (a resume).
	Joined *bool `json:"joined,omitempty"`
	// Existing is set when start found the active socratic duel on the same
	// source and topic and wrote nothing.
	Existing bool `json:"existing,omitempty"`
	// Discarded is set when close --discard removed the debate.
	Discarded bool `json:"discarded,omitempty"`
	// Withdrawn names the issue a dispute withdrew, as STMT#N.
	Withdrawn string `json:"withdrawn_issue,omitempty"`
}

// resultOf summarises d after a command.
func resultOf(d *model.Debate) *DebateResult {
	p, _ := model.LookupProtocol(d.Protocol)
	r := &DebateResult{ID: d.ID, Status: d.Status, Revision: d.Revision, Protocol: d.Protocol, Artifact: d.Artifact,
		ParticipantCount: len(d.Participants), TurnNumber: len(d.Turns), Outcome: d.Outcome}
	if p != nil {
		r.WhoseTurn = p.WhoseTurn(d)
		if !r.WhoseTurn.Closed {
			a := p.Terminal(d)
			r.CandidateConvergence, r.MediatorNeeded = a.CandidateConvergence, a.MediatorNeeded
		}
	}
	return r
}

// turnErr maps the protocol's errors to the contract's codes: a broken
// turn format is invalid input (exit 2), a refused action is an invalid
// transition (exit 4).
func turnErr(err error) error {
	var te *model.TurnError
	var re *model.RefusalError
	switch {
	case errors.As(err, &te) && te.Hint != "":
		return store.Errorf(store.CodeInvalidInput, "%s", te.Error()).WithHint(te.Hint)
	case errors.As(err, &te):
		return store.Errorf(store.CodeInvalidInput, "%s", te.Error()).WithHint("nothing was written; fix the field and send the turn again")
	case errors.As(err, &re):
		return store.Errorf(store.CodeInvalidTransition, "%s", re.Error()).WithHint(re.Next)
	}
	return err
}

// debateIn reads a debate inside a transaction.
func debateIn(tx *store.Tx, id string) (*store.Doc, *model.Debate, *model.Protocol, error) {
	k, err := model.KindOf(id)
	if err != nil {
		return nil, nil, nil, store.Errorf(store.CodeInvalidInput, "%v", err)
	}
	if k != model.KindDebate {
		return nil, nil, nil, store.Errorf(store.CodeInvalidInput, "%s is a %s, not a debate", id, k).WithHint("debate ids start with deb_")
	}
	doc, err := tx.Get(id)
	if err != nil {
		return nil, nil, nil, err
	}
	shared, err := doc.Debate()
	if err != nil {
		return nil, nil, nil, store.Errorf(store.CodeStoreDamaged, "%v", err)
	}
	// The decoded value is shared with the Doc: work on a deep copy.
	var d model.Debate
	raw, _ := json.Marshal(shared)
	if err := json.Unmarshal(raw, &d); err != nil {
		return nil, nil, nil, store.Errorf(store.CodeInternal, "copy %s", id).Wrap(err)
	}
	p, err := model.LookupProtocol(d.Protocol)
	if err != nil {
		return nil, nil, nil, store.Errorf(store.CodeStoreDamaged, "%s: %v", id, err)
	}
	return doc, &d, p, nil
}

// putDebate writes d back into its document, field by field, and rewrites
// its transcript in the same transaction. The store sets revision and
// updated_at at commit; the transcript does not show them.
func putDebate(tx *store.Tx, doc *store.Doc, d *model.Debate) error {
	d.UpdatedAt, d.Revision = tx.Now(), doc.Revision()+1
	raw, err := store.Marshal(d)
	if err != nil {
		return store.Errorf(store.CodeInternal, "encode %s", d.ID).Wrap(err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return store.Errorf(store.CodeInternal, "encode %s", d.ID).Wrap(err)
	}
	for _, k := range slices.Sorted(mapsKeys(fields)) {
		switch k {
		case "id", "created_at", "updated_at", "revision":
			continue
		}
		if err := doc.SetRaw(k, fields[k]); err != nil {
			return store.Errorf(store.CodeInternal, "%v", err)
		}
	}
	return writeTranscripts(tx, d)
}

// writeTranscripts writes a debate's transcript under .debates/ in the
// transaction and, with --artifact, its copy in the project folder once the
// transaction commits (a derived copy doctor rewrites: docs/decisions.md).
func writeTranscripts(tx *store.Tx, d *model.Debate) error {
	md := RenderDebate(d)
	if d.ProjectArtifact != "" {
		tx.WriteProjectFile(d.ProjectArtifact, md)
	}
	return tx.WriteFile(d.Artifact, md)
}

func mapsKeys(m map[string]json.RawMessage) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// DebateJoin describes a participant joining. With Start and no ID, the
// join finds the open debate Start describes (review: the same subject;
// socratic: the same source and topic) or starts it, in the same
// transaction: role by arrival, as in seed 003, with no id passed around.
type DebateJoin struct {
	ID, Name, Harness, ModelID string
	// AgentType, FallbackFrom and FallbackReason record the agent type
	// and a fallback from another type, with its reason.
	AgentType, FallbackFrom, FallbackReason string
	Start                                   *DebateStart
}

// JoinDebate adds a participant in the role the protocol gives the next
// joiner. It is idempotent per name: a name that already joined gets its
// participant back and nothing is written, so that a participant can resume
// in a new session.
func JoinDebate(s *store.Store, opts store.TxOptions, in DebateJoin) (*DebateResult, error) {
	if strings.TrimSpace(in.Name) == "" {
		return nil, store.Errorf(store.CodeInvalidInput, "--participant-name must not be empty").
			WithHint("give the name you take part under, e.g. --participant-name alice")
	}
	if err := checkAgentType(&in); err != nil {
		return nil, err
	}
	var plan *startPlan
	if in.ID == "" && in.Start != nil {
		var err error
		if plan, err = planStart(*in.Start); err != nil {
			return nil, err
		}
	}
	opts.Target = in.ID
	var out *DebateResult
	_, err := s.Update(opts, func(tx *store.Tx) error {
		if plan != nil {
			d, _, err := plan.create(tx, true)
			if err != nil {
				return err
			}
			in.ID = d.ID
		}
		doc, d, p, err := debateIn(tx, in.ID)
		if err != nil {
			return err
		}
		joined := false
		me := d.ParticipantByName(in.Name)
		if me == nil {
			// A new participant changes the debate: the lease rule of every
			// item applies (a resume by name writes nothing and needs none).
			// The seat is the actor's: one seat per actor per debate.
			guard := GuardLease
			if pendingTimeout(tx, in.ID, opts.Lease) {
				// A late joiner wins over a pending timeout (seed 000): the
				// timeout claim does not keep the peer out; the claimer's
				// re-check then finds two participants and the duel goes on.
				guard = func(_ *store.Store, _ *store.Tx, _, _ string, run func() error) error { return run() }
			}
			err := guard(s, tx, in.ID, opts.Lease, func() error {
				actor, err := takeSeat(tx, d)
				if err != nil {
					return err
				}
				role, err := p.JoinRole(d)
				if err != nil {
					return turnErr(err)
				}
				d.Participants = append(d.Participants, model.Participant{ParticipantID: d.NextParticipantID(), Name: in.Name,
					Role: role, Actor: actor, Harness: in.Harness, ModelID: in.ModelID,
					AgentType: in.AgentType, FallbackFrom: in.FallbackFrom, FallbackReason: in.FallbackReason, JoinedAt: tx.Now()})
				me = &d.Participants[len(d.Participants)-1]
				if err := checkDisputeSeats(tx, d); err != nil {
					return err
				}
				tx.Detail("participant_id", me.ParticipantID)
				tx.Detail("role", me.Role)
				return putDebate(tx, doc, d)
			})
			if err != nil {
				return err
			}
			joined = true
		} else {
			// A resume is the seat's own actor's.
			if _, err := presentLease(tx, in.ID, opts.Lease); err != nil {
				return err
			}
			if me.Actor != "" && !model.SameActor(me.Actor, tx.Actor()) {
				return seatRefusal(d, me, model.ActorKey(tx.Actor()))
			}
			d.Revision = doc.Revision()
		}
		out = resultOf(d)
		out.ParticipantID, out.Role, out.Joined = me.ParticipantID, me.Role, &joined
		return nil
	})
	return out, err
}

// errSourceChanged is the refusal of a turn on a debate whose source file
// changed since start: the debate was invalidated in its own transaction.
const errSourceChanged = "the source %s changed since the debate started (sha256 %s, now %s); the debate was closed INVALIDATED"

// TurnDebate validates a turn against the protocol and, only when it
// passes, appends it, lets the engine decide the outcome and rewrites the
// transcript, all in one transaction. A turn while another holds the
// debate's lease is refused (exit 5), as on every item.
func TurnDebate(s *store.Store, opts store.TxOptions, id, participantID string, raw []byte) (*DebateResult, error) {
	t, err := model.ParseTurn(raw)
	if err != nil {
		return nil, turnErr(err)
	}
	opts.Target = id
	var out *DebateResult
	var changed error
	_, err = s.Update(opts, func(tx *store.Tx) error {
		doc, d, p, err := debateIn(tx, id)
		if err != nil {
			return err
		}
		return GuardLease(s, tx, id, opts.Lease, func() error {
			var source []byte
			if d.Source != nil && d.Status == model.DebateOpen {
				source, err = os.ReadFile(d.Source.Path)
				sum := sha256.Sum256(source)
				if now := hex.EncodeToString(sum[:]); err != nil || now != d.Source.SHA256 {
					if err != nil {
						now = "unreadable"
					}
					changed = store.Errorf(store.CodeInvalidTransition, errSourceChanged, d.Source.Path, short(d.Source.SHA256), short(now)).
						WithHint("start a new debate on the current source")
					_, err := closeDebate(tx, doc, d, p, p.Invalidated, "the source file changed", nil, "")
					return err
				}
			}
			if err := p.ValidateTurn(d, participantID, t, source); err != nil {
				return turnErr(err)
			}
			if err := checkCitedFiles(s, model.CitedFiles(d, t)); err != nil {
				return err
			}
			if err := ownSeat(tx, d, participantID); err != nil {
				return err
			}
			role := p.WhoseTurn(d).Role
			if participantID == model.ParticipantUser && p.UserTurns {
				role = model.RoleUser
			}
			written := d.AppendTurn(*t, participantID, role, tx.Now())
			tx.Detail("turn_number", written.TurnNumber)
			tx.Detail("participant_id", participantID)
			a := p.Terminal(d)
			if a.CandidateConvergence {
				tx.Detail("candidate_convergence", true)
			}
			for _, f := range d.NoteFlags(a, tx.Now()) {
				tx.Detail(f, true)
			}
			var withdrawn string
			if a.Closed {
				if withdrawn, err = closeDebate(tx, doc, d, p, a.Outcome, a.Reason, nil, ""); err != nil {
					return err
				}
			} else if err := putDebate(tx, doc, d); err != nil {
				return err
			}
			out = resultOf(d)
			out.ParticipantID, out.Role, out.TurnNumber = participantID, role, written.TurnNumber
			out.CandidateConvergence, out.MediatorNeeded = a.CandidateConvergence, a.MediatorNeeded
			out.Withdrawn = withdrawn
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	if changed != nil {
		return nil, changed
	}
	return out, nil
}

func short(h string) string { return h[:min(len(h), 12)] }

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

// pendingTimeout reports whether id's live lease is someone else's
// `claim --for-timeout`: a join may then go ahead without it.
func pendingTimeout(tx *store.Tx, id, token string) bool {
	l, err := tx.Lease(id)
	return err == nil && l.Live(tx.Clock()) && l.Role == TimeoutRole && l.Token != token
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

// loneClaim refuses a claim of item id by actor, who sits alone in a duel
// that waits for its peer (exit 4, nothing written).
func loneClaim(tx *store.Tx, id, actor string) error {
	if k, err := model.KindOf(id); err != nil || k != model.KindDebate {
		return nil
	}
	_, d, p, err := debateIn(tx, id)
	if err != nil || !waitsForPeer(d, p, actor) {
		return err
	}
	return store.Errorf(store.CodeInvalidTransition, "claim refused: %s waits for its second participant; no turn and no lease before it joins", id).
		WithHint("wait for the peer with `proofloop debate wait " + id + " --participant-id P` (bounded); after the wait, `proofloop claim " + id + " --for-timeout --holder H` re-checks and leases it for a TIMEOUT close")
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

// ShowDebate reads a debate without a transaction.
func ShowDebate(s *store.Store, id string) (*model.Debate, *DebateResult, error) {
	if k, err := model.KindOf(id); err != nil {
		return nil, nil, store.Errorf(store.CodeInvalidInput, "%v", err)
	} else if k != model.KindDebate {
		return nil, nil, store.Errorf(store.CodeInvalidInput, "%s is a %s, not a debate", id, k).WithHint("debate ids start with deb_")
	}
	doc, err := s.Read(id)
	if err != nil {
		return nil, nil, err
	}
	d, err := doc.Debate()
	if err != nil {
		return nil, nil, store.Errorf(store.CodeStoreDamaged, "%v", err)
	}
	return d, resultOf(d), nil
}

// ListDebates lists the debates, optionally of one status, in id order.
func ListDebates(s *store.Store, status model.Status) ([]*DebateResult, error) {
	ids, err := s.List(model.KindDebate)
	if err != nil {
		return nil, err
	}
	slices.Sort(ids)
	out := []*DebateResult{}
	for _, id := range ids {
		_, r, err := ShowDebate(s, id)
		if err != nil {
			return nil, err
		}
		if status == "" || r.Status == status {
			out = append(out, r)
		}
	}
	return out, nil
}

// DecideSuggestion records a person's decision on a dialectic partner's
// suggestion n (decide ID --suggestion N --accept|--reject): who decided
// (the actor) and when. A decided suggestion cannot be decided again.
func DecideSuggestion(s *store.Store, opts store.TxOptions, id string, n int, accept bool) (*DebateResult, error) {
	opts.Target = id
	var out *DebateResult
	_, err := s.Update(opts, func(tx *store.Tx) error {
		doc, d, _, err := debateIn(tx, id)
		if err != nil {
			return err
		}
		// Consent given under a participant's lease is that participant's:
		// its lease does not lend it another's name.
		if _, err := presentLease(tx, id, opts.Lease); err != nil {
			return err
		}
		if err := d.DecideSuggestion(n, accept, tx.Actor(), tx.Now()); err != nil {
			return turnErr(err)
		}
		tx.Detail("suggestion", n)
		tx.Detail("state", d.Suggestions[n-1].State)
		if err := putDebate(tx, doc, d); err != nil {
			return err
		}
		out = resultOf(d)
		return nil
	})
	return out, err
}

// Transcript renders a debate's transcript, or a statement's check/fix
// thread in the same shape (statements are debates too).
func Transcript(s *store.Store, id string) ([]byte, error) {
	k, err := model.KindOf(id)
	if err != nil {
		return nil, store.Errorf(store.CodeInvalidInput, "%v", err)
	}
	switch k {
	case model.KindDebate:
		d, _, err := ShowDebate(s, id)
		if err != nil {
			return nil, err
		}
		return RenderDebate(d), nil
	case model.KindStatement:
		doc, err := s.Read(id)
		if err != nil {
			return nil, err
		}
		st, err := doc.Statement()
		if err != nil {
			return nil, store.Errorf(store.CodeStoreDamaged, "%v", err)
		}
		kept, err := s.ProofRevisions(id)
		if err != nil {
			return nil, err
		}
		views := make([]ProofRevisionView, 0, len(kept))
		for _, r := range kept {
			v := ProofRevisionView{Revision: r.Revision, Text: r.Text, At: r.At}
			if r.Strategy != nil {
				v.Strategy = *r.Strategy
			}
			if r.Actor != nil {
				v.Author = *r.Actor
			}
			views = append(views, v)
		}
		return RenderStatementThread(st, views), nil
	}
	return nil, store.Errorf(store.CodeInvalidInput, "%s is a %s: a transcript is of a debate or a statement", id, k)
}

// OpenPositions returns the position names (the roles) of the open agora
// debates, sorted and without repeats: the roles `next --role` and `list
// --role` accept besides the fixed ones.
func OpenPositions(s *store.Store) ([]string, error) {
	ids, err := s.List(model.KindDebate)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, id := range ids {
		d, _, err := ShowDebate(s, id)
		if err != nil {
			return nil, err
		}
		if d.Status != model.DebateOpen {
			continue
		}
		for _, p := range d.Positions {
			out = append(out, p.Role)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// DebatePool is the evidence pool of one open debate, as prime shows it.
type DebatePool struct {
	ID       string           `json:"id"`
	Research int              `json:"research"`
	Pool     []model.PoolItem `json:"evidence_pool"`
}

// EvidencePools returns the evidence pools of the open debates with a
// research stage in which role takes part (a position, the researcher or
// the mediator): every participant reads the pool (seed 004's EVIDENCE
// POOL), so prime shows it.
func EvidencePools(s *store.Store, role string) ([]DebatePool, error) {
	ids, err := s.List(model.KindDebate)
	if err != nil {
		return nil, err
	}
	out := []DebatePool{}
	for _, id := range ids {
		d, _, err := ShowDebate(s, id)
		if err != nil {
			return nil, err
		}
		if d.Status != model.DebateOpen || d.Research == 0 {
			continue
		}
		p, err := model.LookupProtocol(d.Protocol)
		if err != nil || !slices.Contains(p.JoinOrder(d), role) && role != model.RoleResearcher && role != model.RoleMediator {
			continue
		}
		out = append(out, DebatePool{ID: d.ID, Research: d.Research, Pool: append([]model.PoolItem{}, d.EvidencePool...)})
	}
	return out, nil
}

// checkAgentType checks join's agent type and fallback: a fallback names the
// type used (--agent-type), the type first chosen and a reason.
func checkAgentType(in *DebateJoin) error {
	in.AgentType = strings.TrimSpace(in.AgentType)
	in.FallbackFrom = strings.TrimSpace(in.FallbackFrom)
	in.FallbackReason = strings.TrimSpace(in.FallbackReason)
	hint := "e.g. --agent-type general-purpose --fallback-from code-reviewer --fallback-reason 'code-reviewer is not installed'"
	switch {
	case len(in.AgentType) > 200 || len(in.FallbackFrom) > 200 || len(in.FallbackReason) > 2000:
		return store.Errorf(store.CodeInvalidInput, "--agent-type and --fallback-from are at most 200 bytes, --fallback-reason 2000").WithHint(hint)
	case (in.FallbackFrom != "" || in.FallbackReason != "") && in.AgentType == "":
		return store.Errorf(store.CodeInvalidInput, "a fallback needs --agent-type, the type used instead").WithHint(hint)
	case in.FallbackFrom != "" && in.FallbackReason == "":
		return store.Errorf(store.CodeInvalidInput, "--fallback-from needs --fallback-reason, why that type was not used").WithHint(hint)
	case in.FallbackReason != "" && in.FallbackFrom == "":
		return store.Errorf(store.CodeInvalidInput, "--fallback-reason needs --fallback-from, the type first chosen").WithHint(hint)
	case in.FallbackFrom != "" && in.FallbackFrom == in.AgentType:
		return store.Errorf(store.CodeInvalidInput, "--fallback-from names the type used itself: %s", in.AgentType).WithHint(hint)
	}
	return nil
}
