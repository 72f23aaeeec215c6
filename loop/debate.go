package loop

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
	"github.com/proofloop/proofloop/store/doctor"
)

// The store cannot import the loop; doctor renders transcripts through
// this hook to find and rewrite a missing or stale one.
func init() { doctor.RenderTranscript = RenderDebate }

// DebateResult is what a debate command reports: the facts a caller needs
// for its next step (DESIGN.md "Debates").
type DebateResult struct {
	ID       string       `json:"id"`
	Status   model.Status `json:"status"`
	Revision int          `json:"revision"`
	Protocol string       `json:"protocol"`
	// Topic and TopicSlug name what the debate is about; SourcePath is its
	// source file, when it has one (seed 000's join gives all three).
	Topic      string `json:"topic"`
	TopicSlug  string `json:"topic_slug"`
	SourcePath string `json:"source_path,omitempty"`
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
		Topic: d.Topic, TopicSlug: d.TopicSlug, ParticipantCount: len(d.Participants), TurnNumber: len(d.Turns), Outcome: d.Outcome}
	if d.Source != nil {
		r.SourcePath = d.Source.Path
	}
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
// updated_at at commit; the transcript does not show them. A document whose
// turns no longer match their digests (a turn edited by hand) is not
// written on (checkTurns), and d's digests are recorded afresh.
func putDebate(tx *store.Tx, doc *store.Doc, d *model.Debate) error {
	if err := checkTurns(doc); err != nil {
		return err
	}
	turns, err := json.Marshal(d.Turns)
	if err == nil {
		d.TurnDigests, err = model.TurnDigests(turns)
	}
	if err != nil {
		return store.Errorf(store.CodeInternal, "encode %s", d.ID).Wrap(err)
	}
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

// checkTurns refuses a write on a debate document whose turns, as read,
// fail their own integrity check: an earlier turn edited, dropped or added
// by hand since the engine last wrote it (issue 37 S26; `doctor` reports
// the same edit from the event log, exit 6). Nothing is written; the
// debate's record is no longer what its participants wrote.
func checkTurns(doc *store.Doc) error {
	recorded := doc.Get("turn_digests")
	if doc.Revision() == 0 || !recorded.Exists() {
		return nil // a new debate, or one written before digests were kept
	}
	var digests []string
	got, err := model.TurnDigests([]byte(doc.Get("turns").Raw))
	if err != nil || json.Unmarshal([]byte(recorded.Raw), &digests) != nil {
		return nil // a document that does not decode was refused on read
	}
	n := model.EditedTurn(got, digests)
	if n == 0 {
		return nil
	}
	return store.Errorf(store.CodeStoreDamaged, "%s: turn %d is not as it was written (its digest in turn_digests no longer matches): an earlier turn was edited outside proofloop, so no turn is added on top of it; nothing was written", doc.ID, n).
		WithHint("run `proofloop doctor`, which names the change against the event log; restore the debate file from a backup, or discard an open debate (`proofloop debate close " + doc.ID + " --discard`) and start it again")
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
			// Joining never needs the lease (seed 000): no lease can be
			// taken before the seats are full but run's for the agent it
			// starts to join, and a pending timeout's, and neither keeps a
			// joiner out (a late joiner wins over a pending timeout; the
			// claimer's re-check then finds the peer). A presented token
			// binds its actor, and a dead one is refused. The seat is the
			// actor's: one seat per actor per debate.
			if _, err := presentLease(tx, in.ID, opts.Lease); err != nil {
				return err
			}
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
			// A lease that may not stand once the seat is taken (a joiner's
			// whose seat another took) ends with the join.
			if err := voidLease(tx, d, p, true); err != nil {
				return err
			}
			if err := putDebate(tx, doc, d); err != nil {
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
		// A lease that may not stand (not the writer's seat's) keeps
		// nobody out; the turn's own rules say who writes.
		if err := voidLease(tx, d, p, false); err != nil {
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
			// The turn passes: the writer's lease ends unless the next turn
			// is its seat's too (socratic's two seats share a role, so the
			// role's change alone does not say).
			if err := voidLease(tx, d, p, true); err != nil {
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

// DecideSuggestion records a person's decision on a dialectic partner's
// suggestion n (decide ID --suggestion N --accept|--reject): who decided
// (the actor), when, and whether it is the user's consent (no lease
// presented). A decided suggestion cannot be decided again.
func DecideSuggestion(s *store.Store, opts store.TxOptions, id string, n int, accept bool) (*DebateResult, error) {
	opts.Target = id
	var out *DebateResult
	_, err := s.Update(opts, func(tx *store.Tx) error {
		doc, d, p, err := debateIn(tx, id)
		if err != nil {
			return err
		}
		if err := voidLease(tx, d, p, false); err != nil {
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
		// Without a lease, the decision is a person's: the user's consent
		// (seed 001 records "user agreed"), whoever typed it.
		d.Suggestions[n-1].ByUser = opts.Lease == ""
		tx.Detail("by_user", d.Suggestions[n-1].ByUser)
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
