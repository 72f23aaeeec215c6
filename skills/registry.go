// Package skills holds the skills of the proof workflow, one file each:
// the seed's eleven, reopen (the check role's late finding) and
// check-withdraw-issue (a checker takes back its own issue), and the
// registry that the CLI, its help, the catalog and the generated .claude/
// files all read.
package skills

import (
	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// ParamType is the type of a skill parameter.
type ParamType string

// Parameter types. A ref is a document: a bare id or a path inside the root.
const (
	TypeRef   ParamType = "ref"
	TypeText  ParamType = "text"
	TypeTexts ParamType = "texts" // a list of texts; the flag repeats
	TypeInt   ParamType = "int"
	TypeInts  ParamType = "ints" // a list of integers; the flag repeats
	TypeEnum  ParamType = "enum"
	TypeRange ParamType = "range"         // sentences "3-5" or "4", or {start, end}
	TypeSubs  ParamType = "substatements" // a JSON array of {claim, premises}
)

// Param is one parameter of a skill, named as the seed names it.
type Param struct {
	Name     string // snake_case: the --input key; the flag is its kebab-case
	Type     ParamType
	Enum     []string
	Required bool
	Help     string
}

// Skill is one entry of the registry.
type Skill struct {
	Name    string
	Purpose string
	Params  []Param
	// Target is the parameter naming the document the skill acts on; it is
	// what --expect-revision and leases refer to.
	Target string
	// Example is a complete argument list for `proofloop <name>`.
	Example string
	Run     func(tx *store.Tx, in *Input) (*Result, error)
	// Prepare, when set, runs before the skill's transaction, outside the
	// store's lock: work too long to hold every other caller up for
	// (check-formal runs a proof checker for up to formal.timeout). What
	// it found reaches Run in the Input (Prepared); Run checks that what
	// Prepare read is still what its transaction reads.
	Prepare func(s *store.Store, in *Input) error

	// The texts below feed the catalog and the generated .claude/ files.

	// When says when to use the skill; WhenNot when not to, and what to
	// use instead. Both are sentences.
	When, WhenNot string
	// Output says what the --json result carries besides ok, command, id,
	// status, revision and created.
	Output string
	// ExampleAfter names the skill whose example, run first (with its own
	// ExampleAfter before it, and so on), sets up what Example acts on. The
	// chain starts from a fresh root holding ExampleProblem. "" when the
	// problem alone suffices.
	ExampleAfter string
	// ExampleOutput is what Example prints with --json after that chain.
	// A test runs it and compares.
	ExampleOutput string
	// Transition is the skill's row of the transition table when the skill
	// brings its own, as a skill added after the seed's does: it is added
	// to model.Table when the package starts (nil: the row is in model's
	// table already).
	Transition *model.Rule
	// Refusals are the refusals particular to the skill: one for each guard
	// of its rule, and any other check of its own. The refusals every skill
	// can give are in CommonRefusals.
	Refusals []Refusal
}

// Refusal is a way a skill call can be refused, and what an agent should
// do about it.
type Refusal struct {
	Code  store.Code `json:"code"`
	Guard string     `json:"guard,omitempty"` // the guard that failed, for guard_failed
	When  string     `json:"when"`
	Do    string     `json:"do"`
}

// guardRefusal is the refusal of a call that a guard of the skill's row
// stops (guard_failed): when it fails, and what to do then.
func guardRefusal(guard, when, do string) Refusal {
	return Refusal{Code: store.CodeGuardFailed, Guard: guard, When: when, Do: do}
}

// Rule is the skill's row of the transition table.
func (s *Skill) Rule() *model.Rule {
	r, _ := model.Lookup(s.Name)
	return r
}

// Created names a document a command created.
type Created struct {
	ID   string `json:"id"`
	Path string `json:"path"`
}

// Result is what a command reports: the document it acted on, what it
// created, extra facts for --json, and one or two sentences for a person.
type Result struct {
	ID       string         `json:"id"`
	Status   model.Status   `json:"status"`
	Revision int            `json:"revision"`
	Created  []Created      `json:"created"`
	Extra    map[string]any `json:"-"`
	Text     string         `json:"-"`
}

// Registry lists every skill, in the seed's order. It is the one source of
// truth: add a skill here and it gets its command, flags, help, catalog
// entry and generated docs.
var Registry = []*Skill{
	probFinishUp, probSetupSubgoal, probWrapupStatement,
	stateCompleteProof, stateSetupSubstatement, stateMarkFalse, stateProposeModification,
	checkConfirmProof, checkRejectProof,
	fixPatchProof, fixCreateSubstatement,
	// Not a seed skill: the check role's late finding against a true statement.
	reopen,
	checkWithdrawIssue,
	checkReviewStatement,
	// The formal track (docs/formal.md): a formal statement, a checker's
	// confirmation of it, a formal proof, and the kernel's verdict.
	stateFormalize, checkConfirmFormalization, checkRejectFormalization, stateCompleteFormalProof, checkFormal,
}

// The rows that skills bring themselves join the transition table.
func init() {
	for _, s := range Registry {
		if s.Transition != nil {
			model.AddRule(*s.Transition)
		}
	}
}

// Find returns the skill called name.
func Find(name string) (*Skill, bool) {
	for _, s := range Registry {
		if s.Name == name {
			return s, true
		}
	}
	return nil, false
}
