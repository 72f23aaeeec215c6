// Package skills holds the eleven skills of the proof workflow, one file
// each, and the registry that the CLI, its help, the catalog and the
// generated .claude/ files all read.
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
