package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Protocol is one debate protocol as data: its roles, turn format, limit and
// terminal rules. One engine runs every protocol through the methods below;
// a fifth protocol is a new value in Protocols plus its tests (STYLE.md #13).
// The unexported functions are the protocol's rules, like a Guard's Check.
type Protocol struct {
	Name    string
	Seed    string // the seed document it comes from
	Summary string
	// Roles are the roles in join order; agora's come from the debate's
	// positions, so it lists none here. ExtraRoles are the roles of its own
	// outside the join order that its debates may seat (agora's mediator
	// and researcher).
	Roles      []string
	ExtraRoles []string
	Limit      Limit
	// Outcomes lists every stored outcome. Invalidated is the one that
	// leaves the debate invalidated; Timeout is the peer-never-joined one
	// ("" when the protocol has none).
	Outcomes    []string
	Invalidated string
	Timeout     string
	Fields      []Field

	// What readers see of it, so that nothing outside switches on a name.
	// Title is the transcript's heading ("Debate" when empty); with
	// SubjectTitle the heading names the debate's subject when it has one,
	// and a Topic line follows. Layout writes the turns of the transcript.
	Title        string
	SubjectTitle bool
	// Bare: the transcript is the title and the layout's sections, with no
	// metadata header (seed 003's shared file has none; the document keeps
	// the participants, the status and the dates).
	Bare   bool
	Layout func(b *strings.Builder, d *Debate)
	// Help is the protocol's line of `debate start --help`; StartFlags its
	// own flags of `debate start`, as the docs and prime show them.
	Help       string
	StartFlags string
	// CloseRules say what each outcome's rule needs: the hint of a refused
	// close, and the generated docs' outcome table.
	CloseRules map[string]string
	// Disputes: a debate of it may dispute a statement's issue (--about).
	// UserTurns: a person may add a turn (participant "user") that takes
	// no one's turn.
	Disputes  bool
	UserTurns bool
	// OnePerSource: at most one open debate of it per source and topic; a
	// start on the source and topic of an open one finds it and writes
	// nothing (seed 000's one active duel per source and topic).
	OnePerSource bool
	// TurnCommands, when set, are each role's own ways to write a turn
	// (else: one JSON object on standard input); MoreCommands come after
	// the shared ones.
	TurnCommands map[string][]Command
	MoreCommands map[string][]Command
	Doc          Doc
	// RoleDocs are files for one role each, besides Doc (dialectic's
	// partner agent: seed 001's dialectic-partner role).
	RoleDocs []Doc

	// roles returns the join order for a debate (nil: use Roles).
	roles func(d *Debate) []string
	// start checks the protocol's fields of a new debate.
	start func(d *Debate) error
	// validate checks a turn's content (the writer's role is known); p is
	// the protocol itself, whose Fields it may read.
	validate func(p *Protocol, d *Debate, participantID, role string, t *DebateTurn, source []byte) error
	// next refines the derived turn state (mediator, forced consensus,
	// soft-limit advice); it gets the plain alternation result.
	next func(d *Debate, s TurnState) TurnState
	// terminal evaluates the terminal rules and the reported flags.
	terminal func(d *Debate) Assessment
	// extraJoin names a role a joiner may take past the join order now
	// ("" for none): agora's mediator while one is needed.
	extraJoin func(d *Debate) string
	// closing says whether the layout's last section already is the
	// debate's conclusion (review's ## CONSENSUS, where the seed's file
	// ends): the outcome lines then follow it without a heading of their own.
	closing func(d *Debate) bool
}

// ClosingInLayout says whether d's transcript ends with the layout's own
// closing section, which then carries the outcome lines.
func (p *Protocol) ClosingInLayout(d *Debate) bool { return p.closing != nil && p.closing(d) }

// Limit is a protocol's bound on a debate: N turns or rounds; a soft limit
// only changes the advice.
type Limit struct {
	N    int
	Unit string // "turns" or "rounds"
	Soft bool
}

// Field documents one turn field for the generated agent docs and
// `proofloop transitions`.
type Field struct {
	Name string
	// In says where a nested item lives ("counterpoints[].support, ..."):
	// such a row describes an item inside other fields, not a key of the
	// turn. Empty for a key of the turn.
	In    string
	Type  string
	Roles []string // the roles that write it; empty: every role
	// Except names roles that never write it, though Roles is empty
	// (agora's researcher writes only evidence).
	Except   []string
	Required bool
	Enum     []string
	Rule     string
}

// TurnState is who must act next on a debate, derived from its document. It
// is the one derivation the turn loop, `next` and `debate wait` use.
type TurnState struct {
	Closed bool `json:"closed"`
	// ParticipantID and Role name the participant who writes next; both are
	// "" when a join is needed or the debate is closed.
	ParticipantID string `json:"participant_id,omitempty"`
	Role          string `json:"role,omitempty"`
	// JoinRole is the role the next joiner gets when one is needed first.
	JoinRole string `json:"join_role,omitempty"`
	// TurnNumber is the number the next turn will get.
	TurnNumber int `json:"turn_number"`
	// Require names a turn field the next turn must carry (review's
	// "consensus" past the round limit).
	Require string `json:"require,omitempty"`
	Advice  string `json:"advice,omitempty"`
}

// Assessment is the protocol's verdict on a debate after a turn: whether it
// ends (and how), plus the reported, non-terminal flags.
type Assessment struct {
	Closed               bool   `json:"closed"`
	Outcome              string `json:"outcome,omitempty"`
	Reason               string `json:"reason,omitempty"`
	CandidateConvergence bool   `json:"candidate_convergence,omitempty"`
	MediatorNeeded       bool   `json:"mediator_needed,omitempty"`
	SoftLimitReached     bool   `json:"soft_limit_reached,omitempty"`
}

// TurnError is a turn (or start) input that breaks a protocol rule: the
// engine maps it to invalid_input (exit 2). Field is a JSON path into the
// turn, such as counterpoints[0].addresses.
type TurnError struct{ Field, Rule, Hint string }

func (e *TurnError) Error() string { return e.Field + ": " + e.Rule }

// RefusalError is an action the debate's state does not allow now: a turn
// out of order or on a closed debate, a join on a full debate, a close whose
// rule does not hold. The engine maps it to invalid_transition (exit 4).
type RefusalError struct{ Action, Why, Next string } // Next: what to do now, the refusal's hint

func (e *RefusalError) Error() string { return e.Action + " refused: " + e.Why }

// Protocols lists the protocols in a fixed order.
var Protocols = []*Protocol{&Socratic, &Review, &Agora, &Dialectic, &Panel}

// AddProtocol puts p after the protocols of Protocols and returns the undo.
// The binary's protocols are Protocols' literal; a test adds one with it (a
// protocol that reuses panel's judge, internal/protocoltest). A name
// already taken panics: two protocols of one name would shadow each other.
func AddProtocol(p *Protocol) (undo func()) {
	if _, err := LookupProtocol(p.Name); err == nil {
		panic("model.AddProtocol: " + p.Name + " is a protocol already")
	}
	n := len(Protocols)
	Protocols = append(Protocols[:n:n], p)
	return func() { Protocols = Protocols[:n:n] }
}

// ProtocolNames lists the protocol names in order.
func ProtocolNames() []string {
	var out []string
	for _, p := range Protocols {
		out = append(out, p.Name)
	}
	return out
}

// LookupProtocol returns the protocol called name, or a TurnError listing
// the known ones.
func LookupProtocol(name string) (*Protocol, error) {
	for _, p := range Protocols {
		if p.Name == name {
			return p, nil
		}
	}
	return nil, &TurnError{Field: "protocol", Rule: fmt.Sprintf("%q is not a protocol; use one of %v", name, ProtocolNames()), Hint: "nothing was written; `proofloop transitions --protocols` describes each protocol"}
}

// OwnRoles are the roles p itself defines, in every debate of it: its
// join order's and ExtraRoles. A plain agents.<role> of config.json serves
// them; a role a debate names (an agora position) is served only by
// agents.<protocol>.<role>.
func (p *Protocol) OwnRoles() []string {
	var out []string
	for _, r := range append(slices.Clone(p.Roles), p.ExtraRoles...) {
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

// NamedRoles reports whether each debate of p names roles of its own at
// start (agora's --position ROLE=TEXT), besides OwnRoles.
func (p *Protocol) NamedRoles() bool { return p.roles != nil }

// JoinOrder returns the roles of d's participants in join order.
func (p *Protocol) JoinOrder(d *Debate) []string {
	if p.roles != nil {
		return p.roles(d)
	}
	return p.Roles
}

// Needs is how many participants the debate needs.
func (p *Protocol) Needs(d *Debate) int { return len(p.JoinOrder(d)) }

// CheckStart checks a new debate's protocol fields (positions, methodology,
// limit) before the engine creates it.
func (p *Protocol) CheckStart(d *Debate) error {
	if strings.TrimSpace(d.Topic) == "" {
		return &TurnError{Field: "topic", Rule: "a debate needs a non-empty topic", Hint: "nothing was written; give --topic TEXT"}
	}
	if d.MaxTurns < 1 {
		return &TurnError{Field: "max_turns", Rule: fmt.Sprintf("must be at least 1, not %d", d.MaxTurns), Hint: "nothing was written; give --max-turns N with N >= 1, or leave it out for the protocol's limit"}
	}
	if d.MessageTokens != 0 && p.field("message") == nil {
		return &TurnError{Field: "message_tokens", Rule: "only a protocol whose turns have a message (agora) takes a message limit", Hint: "nothing was written; leave --message-tokens out"}
	}
	if d.Research != 0 && p.field("evidence") == nil {
		return &TurnError{Field: "research", Rule: "only a protocol whose turns carry evidence (" + strings.Join(protocolsWith("evidence"), ", ") + ") has a research stage", Hint: "nothing was written; leave --research out"}
	}
	if d.About != nil && !p.Disputes {
		return &TurnError{Field: "about", Rule: "only a " + strings.Join(disputing(), " or ") + " debate can dispute an issue", Hint: "nothing was written; start a dispute with --protocol " + strings.Join(disputing(), "|") + " --about STMT#ISSUE"}
	}
	if p.start != nil {
		return p.start(d)
	}
	return nil
}

// JoinRole returns the role a new participant gets, or a RefusalError when
// the debate is closed or needs nobody. Callers look the name up with
// ParticipantByName first: join is idempotent per name.
func (p *Protocol) JoinRole(d *Debate) (string, error) {
	if d.Status != DebateOpen {
		return "", &RefusalError{Action: "join", Why: fmt.Sprintf("the debate is %s", d.Status),
			Next: "a closed debate takes no one: read it with `proofloop debate show ID`, or start another with `proofloop debate start`"}
	}
	if s := p.WhoseTurn(d); s.JoinRole != "" {
		return s.JoinRole, nil
	}
	order := p.JoinOrder(d)
	if seats := d.seated(); len(seats) < len(order) {
		return order[len(seats)], nil
	}
	if p.extraJoin != nil {
		if r := p.extraJoin(d); r != "" {
			return r, nil
		}
	}
	return "", &RefusalError{Action: "join", Why: fmt.Sprintf("the debate already has its %d participants", len(order)),
		Next: "only its participants write turns: read it with `proofloop debate show ID`, or start another with `proofloop debate start`"}
}

// WhoseTurn derives who writes next. Participants alternate in join order,
// turn k (0-based, counting only turns that take a turn) going to the
// (k mod n)-th participant; when that participant has not joined yet, the
// next joiner's role is asked for. The first participant may therefore
// write turn 1 before the second joins, as in rp1.
func (p *Protocol) WhoseTurn(d *Debate) TurnState {
	s := TurnState{TurnNumber: len(d.Turns) + 1}
	if d.Status != DebateOpen {
		s.Closed = true
		return s
	}
	order := p.JoinOrder(d)
	k := 0
	for _, t := range d.Turns {
		if takesTurn(t) {
			k++
		}
	}
	i := k % len(order)
	if seats := d.seated(); i < len(seats) {
		s.ParticipantID, s.Role = seats[i].ParticipantID, seats[i].Role
	} else {
		s.JoinRole = order[len(seats)]
	}
	if p.next != nil {
		s = p.next(d, s)
	}
	return s
}

// takesTurn reports whether a turn counts in the alternation: a dialectic
// user's interjection, an agora mediator's turn and a research turn do not.
func takesTurn(t DebateTurn) bool { return !offOrder(t.Role) }

// offOrder reports whether role stands outside the join order: the user,
// agora's mediator (joins after the positions) and researcher (joins
// before them, while the research stage lasts).
func offOrder(role string) bool {
	return role == RoleUser || role == RoleMediator || role == RoleResearcher
}

// seated returns d's participants in the join order, those of the roles
// outside it left out: the i-th seat holds the i-th role of the order.
func (d *Debate) seated() []Participant {
	var out []Participant
	for _, p := range d.Participants {
		if !offOrder(p.Role) {
			out = append(out, p)
		}
	}
	return out
}

// ValidateTurn checks that participantID may write t now (a RefusalError
// otherwise) and that t keeps the protocol's turn format (a TurnError naming
// the field and the rule). source is the text of the debate's source file,
// or nil. It changes nothing; AppendTurn does.
func (p *Protocol) ValidateTurn(d *Debate, participantID string, t *DebateTurn, source []byte) error {
	s := p.WhoseTurn(d)
	if s.Closed {
		return &RefusalError{Action: "turn", Why: fmt.Sprintf("the debate is %s", d.Status),
			Next: "the debate is over and takes no more turns: end your turn"}
	}
	role := ""
	switch {
	case participantID == ParticipantUser && p.UserTurns:
		role = RoleUser
	case participantID == s.ParticipantID:
		role = s.Role
	case d.ParticipantByID(participantID) == nil:
		return &RefusalError{Action: "turn", Why: fmt.Sprintf("%q is not a participant of this debate", participantID),
			Next: "join it first (`proofloop debate join ID --participant-name NAME`) and write with the participant_id it returns"}
	case s.JoinRole != "":
		return &RefusalError{Action: "turn", Why: fmt.Sprintf("it is not %s's turn: the debate waits for %s to join", participantID, A(s.JoinRole)),
			Next: fmt.Sprintf("wait until %s has joined and written: `proofloop debate wait ID --participant-id %s` returns when it is your turn", A(s.JoinRole), participantID)}
	default:
		return &RefusalError{Action: "turn", Why: fmt.Sprintf("it is not %s's turn: %s (%s) writes turn %d", participantID, s.ParticipantID, s.Role, s.TurnNumber),
			Next: fmt.Sprintf("wait for %s's turn to land: `proofloop debate wait ID --participant-id %s` returns when it is yours", s.ParticipantID, participantID)}
	}
	err := p.checkFields(role, t)
	if err == nil {
		err = p.validate(p, d, participantID, role, t, source)
	}
	var te *TurnError
	if errors.As(err, &te) && te.Hint == "" {
		te.Hint = "nothing was written; " + p.TurnShape(role) + "; fix the field and send the turn again"
	}
	return err
}

// TurnShape says what a turn of role holds in p, nested items where they
// live: "a socratic turn is a JSON object (--input FILE|-) with stance,
// position, counterpoints [{addresses, claim, support [{text, quote?, turn?, url?}]}],
// ...". It is the hint of every refused turn.
func (p *Protocol) TurnShape(role string) string {
	var req, opt, typed []string
	for _, f := range p.FieldsOf(role) {
		if f.In != "" {
			continue
		}
		typed = append(typed, f.Name+" "+f.Type)
		if f.Required {
			req = append(req, f.Name+" "+f.Type)
		} else {
			opt = append(opt, f.Name)
		}
	}
	form := "a JSON object (--input FILE|-)"
	if f := p.field("body"); f != nil && f.Required {
		// A protocol whose turns are a body (dialectic) takes --body; review's
		// optional free-form body does not make its turns prose.
		form = "--body TEXT (or --input FILE|- with the same keys)"
	}
	s := fmt.Sprintf("%s turn is %s", A(p.Name), form)
	switch {
	case len(req) > 0 && len(opt) > 0:
		s += " with " + strings.Join(req, ", ") + "; optional: " + strings.Join(opt, ", ")
	case len(req) > 0:
		s += " with " + strings.Join(req, ", ")
	case len(typed) > 0:
		// Every field is optional (review's reviewer; agora's researcher,
		// whose rule asks for evidence): name them with their types, as
		// such, not after an empty "with".
		s += " with any of: " + strings.Join(typed, ", ")
	}
	return s
}

// field returns p's turn field called name, or nil.
func (p *Protocol) field(name string) *Field {
	for i := range p.Fields {
		if p.Fields[i].Name == name {
			return &p.Fields[i]
		}
	}
	return nil
}

// stamped are the turn fields the engine sets (AppendTurn), not the writer.
var stamped = []string{"turn_number", "participant_id", "role", "at"}

// checkFields refuses a turn field that is not in the protocol's Fields, or
// that the writer's role does not write: Fields is the one list the docs,
// `proofloop transitions` and this check read.
func (p *Protocol) checkFields(role string, t *DebateTurn) error {
	raw, err := json.Marshal(t)
	if err != nil {
		return &TurnError{Field: "input", Rule: err.Error()}
	}
	var set map[string]json.RawMessage
	if err := json.Unmarshal(raw, &set); err != nil {
		return &TurnError{Field: "input", Rule: err.Error()}
	}
	var names []string
	var top []Field
	for _, f := range p.Fields {
		if f.In == "" {
			names = append(names, f.Name)
			top = append(top, f)
		}
	}
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if slices.Contains(stamped, k) {
			continue
		}
		i := slices.Index(names, k)
		switch {
		case i < 0 && k == "body":
			return &TurnError{Field: k, Rule: fmt.Sprintf("%s turn is a JSON object, not --body text: send it with --input FILE|- (--body is for %s)", A(p.Name), strings.Join(protocolsWith("body"), ", "))}
		case i < 0 && slices.ContainsFunc(p.Fields, func(f Field) bool { return f.Name == k }):
			f := p.Fields[slices.IndexFunc(p.Fields, func(f Field) bool { return f.Name == k })]
			return &TurnError{Field: k, Rule: fmt.Sprintf("is not a key of the turn: it goes inside %s", f.In)}
		case i < 0:
			return &TurnError{Field: k, Rule: fmt.Sprintf("is not a field of the %s protocol; its fields are %v", p.Name, names)}
		}
		if r := top[i].Roles; len(r) > 0 && !slices.Contains(r, role) {
			return &TurnError{Field: k, Rule: fmt.Sprintf("only the %s role writes it, not %s", strings.Join(r, " or "), role)}
		}
		if slices.Contains(top[i].Except, role) {
			return &TurnError{Field: k, Rule: fmt.Sprintf("the %s role does not write it: its turns carry only %s", role, strings.Join(p.fieldNamesOf(role), ", "))}
		}
	}
	return nil
}

// disputing names the protocols that may dispute a statement's issue.
func disputing() []string {
	var out []string
	for _, p := range Protocols {
		if p.Disputes {
			out = append(out, p.Name)
		}
	}
	return out
}

// protocolsWith names the protocols whose turns have field.
func protocolsWith(field string) []string {
	var out []string
	for _, p := range Protocols {
		if p.HasField(field) {
			out = append(out, p.Name)
		}
	}
	return out
}

// Terminal evaluates the protocol's terminal rules after a turn. The engine
// closes the debate in the same transaction when Closed is set.
func (p *Protocol) Terminal(d *Debate) Assessment { return p.terminal(d) }

// CheckClose says whether an explicit close with outcome may be accepted:
// when the outcome's rule holds now; when outcome is the protocol's Timeout,
// the debate still lacks a participant and the caller holds a --for-timeout
// claim whose re-check passed (forTimeout); or when outcome is Invalidated
// and a reason is given. Otherwise it returns a RefusalError saying what is
// missing (a TurnError for an outcome the protocol does not know).
func (p *Protocol) CheckClose(d *Debate, outcome, reason string, forTimeout bool) error {
	if !slices.Contains(p.Outcomes, outcome) {
		return &TurnError{Field: "outcome", Rule: fmt.Sprintf("%q is not an outcome of %s; use one of %v", outcome, p.Name, p.Outcomes), Hint: "nothing was written; `proofloop transitions --protocols` gives each outcome's rule"}
	}
	refuse := func(why string) error {
		return &RefusalError{Action: "close --outcome " + outcome, Why: why,
			Next: "the outcome's rule must hold first: keep debating (`proofloop debate show ID` shows the state), or close with an outcome whose rule holds"}
	}
	if d.Status != DebateOpen {
		return refuse(fmt.Sprintf("the debate is already %s", d.Status))
	}
	switch outcome {
	case p.Invalidated:
		if strings.TrimSpace(reason) == "" {
			return refuse("an invalidation needs a reason")
		}
		return nil
	case p.Timeout:
		if len(d.Participants) >= p.Needs(d) {
			// A late joiner wins over a pending timeout (seed 000): the
			// re-check after the claim finds the peer, and the duel goes on.
			return &RefusalError{Action: "close --outcome " + outcome,
				Why:  fmt.Sprintf("all %d participants joined; a timeout is only for a peer that never joined", p.Needs(d)),
				Next: "the peer joined, so the duel goes on: write your turn with the lease you hold (`proofloop --lease TOKEN debate turn ID --participant-id P --input FILE`), or wait for it with `proofloop debate wait ID --participant-id P`"}
		}
		if !forTimeout {
			return refuse("claim the debate with --for-timeout after the wait, and re-check, first")
		}
		return nil
	}
	a := p.Terminal(d)
	if a.Closed && a.Outcome == outcome {
		return nil
	}
	why := fmt.Sprintf("the rule of %s does not hold", outcome)
	if a.Closed {
		why += fmt.Sprintf("; the turns give %s (%s)", a.Outcome, a.Reason)
	}
	if r, ok := p.CloseRules[outcome]; ok {
		why += ": " + r
	}
	return refuse(why)
}

// ClosedStatus is the status a debate gets with outcome.
func (p *Protocol) ClosedStatus(outcome string) Status {
	if outcome == p.Invalidated {
		return DebateInvalidated
	}
	return DebateCompleted
}

// Debate roles besides the protocols' fixed ones.
const (
	RoleUser     = "user"     // dialectic: interjections that take no turn
	RoleMediator = "mediator" // agora: asked for after 4 consecutive counters
	// RoleResearcher writes an agora debate's research turns (seed 004's
	// research drones), before the positions debate.
	RoleResearcher = "researcher"
)
