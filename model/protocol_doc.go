package model

import (
	"fmt"
	"slices"
)

// The protocols in the shape the generated agent docs, `skills` and `prime`
// read them: the same values the engine runs on, never a retyped copy.

// OutcomeDoc is one outcome of a protocol and what its rule needs.
type OutcomeDoc struct {
	Outcome string `json:"outcome"`
	Rule    string `json:"rule"`
}

// OutcomeDocs lists p's outcomes with their rules: the close hints the
// engine gives when an explicit close is refused, and for the timeout and
// invalidated outcomes the conditions CheckClose checks.
func (p *Protocol) OutcomeDocs() []OutcomeDoc {
	var out []OutcomeDoc
	for _, o := range p.Outcomes {
		rule := p.CloseRules[o]
		switch o {
		case p.Invalidated:
			rule = "an explicit `debate close --outcome " + o + " --summary REASON`: the reason is required; a changed source invalidates the debate too"
		case p.Timeout:
			rule = "a peer never joined: claim the debate with `proofloop claim ID --for-timeout`, which re-checks that, then close with that claim's lease"
		}
		out = append(out, OutcomeDoc{o, rule})
	}
	return out
}

// LimitText says p's limit for a reader: "6 turns", "10 rounds (soft)".
func (p *Protocol) LimitText() string {
	s := fmt.Sprintf("%d %s", p.Limit.N, p.Limit.Unit)
	if p.Limit.Soft {
		s += " (soft: past it a summary is advised, nothing closes)"
	}
	return s
}

// FieldsOf returns the turn fields role writes in p: those with no Roles
// (every role writes them, but those in Except) and those that list it.
func (p *Protocol) FieldsOf(role string) []Field {
	var out []Field
	for _, f := range p.Fields {
		if (len(f.Roles) == 0 || slices.Contains(f.Roles, role)) && !slices.Contains(f.Except, role) {
			out = append(out, f)
		}
	}
	return out
}

// fieldNamesOf names the keys of a turn role writes in p.
func (p *Protocol) fieldNamesOf(role string) []string {
	var out []string
	for _, f := range p.FieldsOf(role) {
		if f.In == "" {
			out = append(out, f.Name)
		}
	}
	return out
}

// ProtocolsOfRole returns the protocols in which role takes part: those
// that list it among their Roles, and those whose roles come from their
// debates' positions (no Roles: agora), which the mediator joins too. A
// position's role is named by its debate, not by the protocol, so a name
// no protocol lists is taken as one when agora is true.
func ProtocolsOfRole(role string, agora bool) []*Protocol {
	var out []*Protocol
	for _, p := range Protocols {
		if slices.Contains(p.Roles, role) {
			out = append(out, p)
		}
	}
	positional := role == RoleMediator || role == RoleResearcher || (len(out) == 0 && agora)
	for _, p := range Protocols {
		if positional && p.Roles == nil {
			out = append(out, p)
		}
	}
	return out
}

// Doc is a protocol's generated file for agents (gen-claude), a skill or a
// participant agent, and its worked example, which `proofloop debate
// example P` prints and a test runs through the real CLI. The file says
// what Guide says (the discipline of the protocol's roles, in Markdown),
// then what the protocol's values say; the turn format and commands are
// printed by `proofloop prime --role R`, once for every protocol.
type Doc struct {
	Path        string // slash-separated, under the output directory
	Name        string // front matter name: the skill's folder or the agent's file name
	Agent       bool   // an agent file (front matter with tools), else a skill
	Description string // front matter description
	// Role, when set, is the one role the file is for (a Protocol's
	// RoleDocs); the protocol's own Doc serves every role.
	Role    string
	Guide   string
	Example Example
}

// DocOf returns the file a participant of role reads: the role's own file
// (RoleDocs) if it has one, else the protocol's.
func (p *Protocol) DocOf(role string) Doc {
	for _, d := range p.RoleDocs {
		if d.Role == role {
			return d
		}
	}
	return p.Doc
}

// Example is a worked example: command lines run in order in an empty
// folder, ending with `proofloop debate list`, whose output the file shows,
// so that it states where the debate ends.
type Example struct {
	ID      string // the debate the example starts
	Steps   []ExampleStep
	Outcome string // the outcome the last turn leaves
}

// ExampleStep is one command of an example: Args after "proofloop", and
// Input, when set, given on standard input by a quoted heredoc.
type ExampleStep struct {
	Note  string // a comment line before it
	Args  string
	Input string
}

// Command is one command a debate role runs, with what it does.
type Command struct {
	Run  string `json:"run"`
	What string `json:"what"`
}

// exampleTurn is a turn of seat pid, written by the actor who holds it: a
// seat belongs to the actor who joined it.
func exampleTurn(id, pid, actor string) string {
	return "debate turn " + id + " --participant-id " + pid + " --actor " + actor + " --input -"
}

func exampleWait(id, pid string) string {
	return "debate wait " + id + " --participant-id " + pid + " --timeout 5m"
}

// HasField reports whether p's turns have a field called name.
func (p *Protocol) HasField(name string) bool {
	return slices.ContainsFunc(p.Fields, func(f Field) bool { return f.Name == name })
}

// exampleOpening is an example's first steps: init, the debate's start
// (`debate start ARGS`, with its note), and each name's join in order, the
// name its own actor.
func exampleOpening(id, note, start string, names ...string) []ExampleStep {
	steps := []ExampleStep{{Args: "init"}, {Note: note, Args: "debate start " + start}}
	for _, n := range names {
		steps = append(steps, ExampleStep{Args: "debate join " + id + " --participant-name " + n + " --actor " + n})
	}
	return steps
}
