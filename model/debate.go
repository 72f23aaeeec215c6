package model

import (
	"fmt"
	"strconv"
	"strings"
)

// Debate statuses. A debate is open until the engine or an accepted close
// gives it an outcome; INVALIDATED (and its lowercase twin) leaves it
// invalidated, every other outcome leaves it completed.
const (
	DebateOpen        Status = "open"
	DebateCompleted   Status = "completed"
	DebateInvalidated Status = "invalidated"
)

// DebateStatuses lists every debate status in workflow order.
var DebateStatuses = []Status{DebateOpen, DebateCompleted, DebateInvalidated}

// ParticipantUser is the participant_id of a dialectic user's interjection:
// the user never joins, and its turns take no one's turn.
const ParticipantUser = "user"

// Methodologies of an agora debate; fact-based needs evidence on every turn.
var Methodologies = []string{"opinion", "fact-based", "mixed"}

// Debate is a debate document, debate/<id>.json. The protocol named by
// Protocol says which turn fields are used and how the debate ends; the JSON
// Schema in schemas/ is the authority on the file format.
type Debate struct {
	ID        string `json:"id"`
	Status    Status `json:"status"`
	CreatedAt string `json:"created_at"`
	UpdatedAt string `json:"updated_at"`
	Revision  int    `json:"revision"`
	Protocol  string `json:"protocol"`
	Topic     string `json:"topic"`
	TopicSlug string `json:"topic_slug"`
	// Subject is what a review debate reviews (code-debate's subject line).
	Subject *string `json:"subject,omitempty"`
	// Methodology is agora's: opinion (the default), fact-based or mixed.
	Methodology string `json:"methodology,omitempty"`
	// MessageTokens is agora's bound on a turn's message, in estimated
	// tokens (seed 004: about 100, 2-4 sentences); 0 outside agora.
	MessageTokens int `json:"message_tokens,omitempty"`
	// Research is the number of agora research turns the debate opens
	// with (seed 004's research stage); 0 for none.
	Research int `json:"research,omitempty"`
	// EvidencePool is every evidence item of the research turns, numbered
	// pool-1, pool-2, ... in order; AppendTurn adds a research turn's.
	EvidencePool []PoolItem    `json:"evidence_pool,omitempty"`
	Source       *DebateSource `json:"source,omitempty"`
	// Positions are agora's starting positions; their roles are the
	// participants' roles, in join order.
	Positions []Position `json:"positions,omitempty"`
	// MaxTurns is the protocol's limit (turns, or rounds for review and
	// dialectic) unless start overrode it; dialectic's is a soft limit.
	MaxTurns     int           `json:"max_turns"`
	Participants []Participant `json:"participants"`
	Turns        []DebateTurn  `json:"turns"`
	// TurnDigests chain the turns as they were written (TurnDigests): a
	// turn edited since does not match, and the next write is refused.
	TurnDigests []string       `json:"turn_digests,omitempty"`
	Suggestions []Suggestion   `json:"suggestions,omitempty"`
	About       *DisputeLink   `json:"about,omitempty"`
	Outcome     *DebateOutcome `json:"outcome,omitempty"`
	Artifact    string         `json:"artifact"`
	// ProjectArtifact is a copy of the transcript in the project folder
	// (the folder holding the contents root), relative to it: `debate start
	// --artifact PATH` (seed 003's review file). Derived like Artifact.
	ProjectArtifact string       `json:"project_artifact,omitempty"`
	Flags           *DebateFlags `json:"flags,omitempty"`
}

// DebateSource is a Markdown file that support quotes are checked against;
// its SHA-256 is recorded at start so that a changed source is noticed.
type DebateSource struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// Position is one agora starting position.
type Position struct {
	Role string `json:"role"`
	Text string `json:"text"`
}

// Participant is one party of a debate. Ids are p1, p2, ... in join order.
type Participant struct {
	ParticipantID string `json:"participant_id"`
	Name          string `json:"name"`
	Role          string `json:"role"`
	// Actor is who joined the seat, in its normal form: only this actor
	// writes the seat's turns. A seat joined before seats recorded it has
	// none, and is bound to the actor of its next turn.
	Actor   string `json:"actor,omitempty"`
	Harness string `json:"harness,omitempty"`
	ModelID string `json:"model_id,omitempty"`
	// AgentType is the host's agent type the participant runs as (seed
	// 001: the partner's subagent type); FallbackFrom and FallbackReason
	// record the type first chosen and why it was not used.
	AgentType      string `json:"agent_type,omitempty"`
	FallbackFrom   string `json:"fallback_from,omitempty"`
	FallbackReason string `json:"fallback_reason,omitempty"`
	JoinedAt       string `json:"joined_at"`
}

// DisputeLink ties a socratic debate to the statement issue it disputes.
type DisputeLink struct {
	Statement   string `json:"statement"`
	IssueNumber int    `json:"issue_number"`
}

// DebateOutcome is how a debate ended, decided by the engine (or an
// accepted explicit close).
type DebateOutcome struct {
	Outcome string  `json:"outcome"`
	Reason  string  `json:"reason"`
	At      string  `json:"at"`
	Summary *string `json:"summary,omitempty"`
	Actor   *string `json:"actor,omitempty"`
}

// DebateFlags are the reported, non-terminal conditions the engine records
// the first time they hold (each is also logged as an event).
type DebateFlags struct {
	CandidateConvergenceAt *string `json:"candidate_convergence_at,omitempty"`
	MediatorNeededAt       *string `json:"mediator_needed_at,omitempty"`
	SoftLimitReachedAt     *string `json:"soft_limit_reached_at,omitempty"`
}

// Suggestion is a dialectic partner's suggestion, numbered 1.. across the
// debate. It stays pending until a person decides it.
type Suggestion struct {
	Number     int     `json:"number"`
	TurnNumber int     `json:"turn_number"`
	Text       string  `json:"text"`
	State      string  `json:"state"` // pending, accepted or rejected
	DecidedBy  *string `json:"decided_by,omitempty"`
	DecidedAt  *string `json:"decided_at,omitempty"`
	// ByUser: the decision is the user's consent (seed 001: the record says
	// "user agreed"), given without a lease, by a person at a terminal or
	// by main relaying the user's answer; DecidedBy then names who recorded
	// it. Under a lease the decision is the lease holder's, and ByUser is
	// false.
	ByUser bool `json:"by_user,omitempty"`
}

// Suggestion states.
const (
	SuggestionPending  = "pending"
	SuggestionAccepted = "accepted"
	SuggestionRejected = "rejected"
)

// SuggestionStates lists the states of a dialectic suggestion.
var SuggestionStates = []string{SuggestionPending, SuggestionAccepted, SuggestionRejected}

// DebateTurn is one turn. Only the fields of the debate's protocol are set;
// the protocol's ValidateTurn says which are required.
type DebateTurn struct {
	TurnNumber    int    `json:"turn_number"`
	ParticipantID string `json:"participant_id"`
	Role          string `json:"role"`
	At            string `json:"at"`

	// socratic
	Stance                string           `json:"stance,omitempty"`
	Position              string           `json:"position,omitempty"`
	Counterpoints         []Counterpoint   `json:"counterpoints,omitempty"`
	Agreements            []string         `json:"agreements,omitempty"`
	NovelArgument         *NovelArgument   `json:"novel_argument,omitempty"`
	Unresolved            []UnresolvedItem `json:"unresolved,omitempty"`
	StanceRevisionSupport []Support        `json:"stance_revision_support,omitempty"`
	Verdict               string           `json:"verdict,omitempty"`

	// review
	Points    []ReviewPoint    `json:"points,omitempty"`
	FollowUps []ReviewPoint    `json:"follow_ups,omitempty"`
	Replies   []ReviewReply    `json:"replies,omitempty"`
	Consensus *ReviewConsensus `json:"consensus,omitempty"`

	// agora
	Signal     string     `json:"signal,omitempty"`
	Message    string     `json:"message,omitempty"`
	Confidence *float64   `json:"confidence,omitempty"`
	Target     *string    `json:"target,omitempty"`
	Evidence   []Evidence `json:"evidence,omitempty"`

	// dialectic
	Body        string            `json:"body,omitempty"`
	Suggestions []SuggestionInput `json:"suggestions,omitempty"`
	Conclusion  *Conclusion       `json:"conclusion,omitempty"`
}

// Support is evidence for a socratic claim, in one of seed 000's forms
// (supportForm): a quote of the debate's source (Quote, which must occur
// in it), an earlier turn (Turn, "turn-N"), a URL, or an argument from a
// principle (Text starting "Principle:").
type Support struct {
	Text  string  `json:"text"`
	Quote *string `json:"quote,omitempty"`
	Turn  string  `json:"turn,omitempty"`
	URL   string  `json:"url,omitempty"`
}

// Counterpoint answers an earlier turn ("turn-N"), the source ("source") or
// the topic itself ("topic", for a first turn without a source).
type Counterpoint struct {
	Addresses string    `json:"addresses"`
	Claim     string    `json:"claim"`
	Support   []Support `json:"support,omitempty"`
}

// NovelArgument is the new argument a socratic turn brings.
type NovelArgument struct {
	Text    string    `json:"text"`
	Support []Support `json:"support,omitempty"`
}

// UnresolvedItem is an open question; a blocking one prevents consensus.
type UnresolvedItem struct {
	Text     string `json:"text"`
	Blocking bool   `json:"blocking"`
}

// ReviewPoint is a numbered review point, or a follow-up on one.
type ReviewPoint struct {
	Point int    `json:"point"`
	Text  string `json:"text"`
}

// ReviewReply is the responder's verdict on one point.
type ReviewReply struct {
	Point     int    `json:"point"`
	Verdict   string `json:"verdict"`
	Reasoning string `json:"reasoning,omitempty"`
}

// ReviewConsensus is the reviewer's closing turn.
type ReviewConsensus struct {
	Agreed        []int          `json:"agreed"`
	ActionItems   []string       `json:"action_items"`
	Disagreements []Disagreement `json:"disagreements"`
}

// Disagreement is a point left unresolved in a review's consensus.
type Disagreement struct {
	Point int    `json:"point"`
	Text  string `json:"text"`
}

// Evidence backs an agora turn.
type Evidence struct {
	Source     string  `json:"source"`
	Content    string  `json:"content"`
	Confidence float64 `json:"confidence"`
}

// PoolItem is one item of an agora debate's evidence pool: a research
// turn's evidence item under the id later turns cite it by (pool-N).
type PoolItem struct {
	ID         string  `json:"id"`
	TurnNumber int     `json:"turn_number"`
	Source     string  `json:"source"`
	Content    string  `json:"content"`
	Confidence float64 `json:"confidence"`
}

// SuggestionInput is a suggestion as a partner writes it in a turn.
type SuggestionInput struct {
	Text string `json:"text"`
}

// Conclusion is the dialectic main participant's closing statement.
type Conclusion struct {
	Outcome string `json:"outcome"`
	Text    string `json:"text"`
	// The dialectic summary seed 001 asks for (checkSummary): the agreed
	// points and key insights of a consensus, each side's position and the
	// open points of a disagreement, agreed and open points of a partial.
	Agreed     []string   `json:"agreed,omitempty"`
	Insights   []string   `json:"insights,omitempty"`
	Positions  []Position `json:"positions,omitempty"`
	OpenPoints []string   `json:"open_points,omitempty"`
	// LeftOpen names the pending suggestions the conclusion leaves
	// undecided; every other pending one must be decided first.
	LeftOpen []int `json:"left_open,omitempty"`
}

// NewDebate is the n-th open debate on topic (deb_<slug>, then _2, ...),
// of protocol p, with the protocol's limit, its slug and transcript path
// (the n-th takes -n), and empty lists (so that they marshal as []). The
// caller sets the protocol's start fields (positions, source, ...) and then
// calls p.CheckStart; the store sets the revision.
func NewDebate(p *Protocol, topic string, n int, createdAt string) *Debate {
	slug, file := TopicSlug(topic), FileSlug(topic)
	if n > 1 {
		suffix := []rune("-" + strconv.Itoa(n))
		r := []rune(file)
		file = strings.TrimRight(string(r[:min(len(r), maxSlugLen-len(suffix))]), "-") + string(suffix)
	}
	return &Debate{
		ID: DebateID(slug, n), Status: DebateOpen, CreatedAt: createdAt, UpdatedAt: createdAt,
		Protocol: p.Name, Topic: topic, TopicSlug: slug, MaxTurns: p.Limit.N,
		Participants: []Participant{}, Turns: []DebateTurn{}, Artifact: ArtifactPath(createdAt, file),
	}
}

// TranscriptDir is the folder of the debate transcripts under the root.
const TranscriptDir = ".debates"

// ProjectDebatesDir is the folder of the project (beside the root) under
// which a debate's artifact named over MCP must lie: an agent's copy of a
// transcript goes there, never over the project's own files.
const ProjectDebatesDir = "debates"

// ArtifactPath is the transcript path of a debate created at createdAt (an
// ISO 8601 timestamp) whose file slug is slug (FileSlug):
// .debates/YYYY-MM-DD-topic-slug.md, with hyphens, as the three Markdown
// seeds name their files.
func ArtifactPath(createdAt, slug string) string {
	date := createdAt
	if len(date) > 10 {
		date = date[:10]
	}
	return TranscriptDir + "/" + date + "-" + strings.ReplaceAll(slug, "_", "-") + ".md"
}

// ParticipantByName returns the participant called name, or nil; join uses
// it to stay idempotent per name.
func (d *Debate) ParticipantByName(name string) *Participant {
	for i := range d.Participants {
		if d.Participants[i].Name == name {
			return &d.Participants[i]
		}
	}
	return nil
}

// ParticipantByID returns the participant with that id, or nil.
func (d *Debate) ParticipantByID(id string) *Participant {
	for i := range d.Participants {
		if d.Participants[i].ParticipantID == id {
			return &d.Participants[i]
		}
	}
	return nil
}

// ParticipantByActor returns the seat an actor holds, or nil: one actor
// holds at most one seat of a debate. Unknown ("") holds none.
func (d *Debate) ParticipantByActor(actor string) *Participant {
	for i := range d.Participants {
		if SameActor(d.Participants[i].Actor, actor) {
			return &d.Participants[i]
		}
	}
	return nil
}

// NextParticipantID is the id the next joiner gets: p1, p2, ...
func (d *Debate) NextParticipantID() string {
	return "p" + strconv.Itoa(len(d.Participants)+1)
}

// LastTurnOf returns the latest turn of a participant, or nil.
func (d *Debate) LastTurnOf(participantID string) *DebateTurn {
	for i := len(d.Turns) - 1; i >= 0; i-- {
		if d.Turns[i].ParticipantID == participantID {
			return &d.Turns[i]
		}
	}
	return nil
}

// turnRef parses "turn-N" and reports N when that turn exists before the
// turn being written.
func (d *Debate) turnRef(ref string) (int, bool) {
	s, ok := strings.CutPrefix(ref, "turn-")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > len(d.Turns) || strconv.Itoa(n) != s {
		return 0, false
	}
	return n, true
}

// AppendTurn numbers t as the next turn, stamps it, appends it, registers
// a dialectic partner's suggestions as pending and adds a research turn's
// evidence to the pool. Call it only after ValidateTurn accepted t.
func (d *Debate) AppendTurn(t DebateTurn, participantID, role, at string) *DebateTurn {
	t.TurnNumber = len(d.Turns) + 1
	t.ParticipantID, t.Role, t.At = participantID, role, at
	d.Turns = append(d.Turns, t)
	for _, s := range t.Suggestions {
		d.Suggestions = append(d.Suggestions, Suggestion{
			Number: len(d.Suggestions) + 1, TurnNumber: t.TurnNumber, Text: s.Text, State: SuggestionPending,
		})
	}
	if role == RoleResearcher {
		for _, e := range t.Evidence {
			d.EvidencePool = append(d.EvidencePool, PoolItem{ID: PoolPrefix + strconv.Itoa(len(d.EvidencePool)+1),
				TurnNumber: t.TurnNumber, Source: e.Source, Content: e.Content, Confidence: e.Confidence})
		}
	}
	return &d.Turns[len(d.Turns)-1]
}

// DecideSuggestion records a person's decision on suggestion n. A decided
// suggestion cannot be decided again.
func (d *Debate) DecideSuggestion(n int, accept bool, actor, at string) error {
	if n < 1 || n > len(d.Suggestions) {
		var pending []string
		for i, s := range d.Suggestions {
			if s.State == SuggestionPending {
				pending = append(pending, strconv.Itoa(i+1))
			}
		}
		hint := "nothing was written; this debate has no suggestion to decide: a dialectic partner makes one with `debate turn ID --suggestion TEXT`"
		switch {
		case len(pending) > 0:
			hint = fmt.Sprintf("nothing was written; pending now: %s; `proofloop debate show %s` lists every suggestion with its number", strings.Join(pending, ", "), d.ID)
		case len(d.Suggestions) > 0:
			hint = fmt.Sprintf("nothing was written; every suggestion of %s is decided; `proofloop debate show %s` lists them", d.ID, d.ID)
		}
		return &TurnError{Field: "suggestion", Rule: fmt.Sprintf("suggestion %d does not exist; this debate has %d", n, len(d.Suggestions)), Hint: hint}
	}
	s := &d.Suggestions[n-1]
	if s.State != SuggestionPending {
		return &RefusalError{Action: "decide", Why: fmt.Sprintf("suggestion %d was already %s", n, s.State),
			Next: "nothing left to decide on it: `proofloop debate show ID` lists the suggestions still pending"}
	}
	// Consent is the reader's: the suggestion's author may neither accept
	// nor reject its own (issue 34, N8).
	if author := d.suggestionAuthor(s); author != nil && SameActor(author.Actor, actor) {
		return &RefusalError{Action: "decide", Why: fmt.Sprintf("suggestion %d is %s's own (%s, turn %d): its author may not decide it", n, ActorKey(actor), author.ParticipantID, s.TurnNumber),
			Next: "consent is another's to give: the person who runs the debate, or main, decides it (`proofloop decide ID --suggestion N --accept|--reject`, without your lease); end your turn"}
	}
	s.State = SuggestionRejected
	if accept {
		s.State = SuggestionAccepted
	}
	s.DecidedBy, s.DecidedAt = &actor, &at
	return nil
}

// suggestionAuthor is the participant whose turn made suggestion s, when
// that seat records its actor.
func (d *Debate) suggestionAuthor(s *Suggestion) *Participant {
	for _, t := range d.Turns {
		if t.TurnNumber == s.TurnNumber {
			if p := d.ParticipantByID(t.ParticipantID); p != nil && p.Actor != "" {
				return p
			}
		}
	}
	return nil
}

// Flag names, as NoteFlags returns them (and the engine logs them).
const (
	FlagCandidateConvergence = "candidate_convergence"
	FlagMediatorNeeded       = "mediator_needed"
	FlagSoftLimitReached     = "soft_limit_reached"
)

// NoteFlags records, at time at, each reported flag of a that holds for the
// first time, and returns the names of those it newly set (in a fixed
// order) so that the engine can log one event for each.
func (d *Debate) NoteFlags(a Assessment, at string) []string {
	var set []string
	note := func(holds bool, field **string, name string) {
		if !holds {
			return
		}
		if *field == nil {
			*field = &at
			set = append(set, name)
		}
	}
	if a.CandidateConvergence || a.MediatorNeeded || a.SoftLimitReached {
		if d.Flags == nil {
			d.Flags = &DebateFlags{}
		}
		note(a.CandidateConvergence, &d.Flags.CandidateConvergenceAt, FlagCandidateConvergence)
		note(a.MediatorNeeded, &d.Flags.MediatorNeededAt, FlagMediatorNeeded)
		note(a.SoftLimitReached, &d.Flags.SoftLimitReachedAt, FlagSoftLimitReached)
	}
	return set
}

// DisputeWithdrawn reports whether a closed dispute debate withdraws its
// issue: it ended in ACCEPTED_CONSENSUS and both participants' latest
// verdicts are withdrawn. Any other outcome leaves the issue standing.
func DisputeWithdrawn(d *Debate) bool {
	if d.About == nil || d.Outcome == nil || d.Outcome.Outcome != SocraticAcceptedConsensus || len(d.Participants) < 2 {
		return false
	}
	for _, p := range d.Participants {
		if t := d.LastTurnOf(p.ParticipantID); t == nil || t.Verdict != VerdictWithdrawn {
			return false
		}
	}
	return true
}
