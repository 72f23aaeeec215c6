package model

import (
	"slices"
	"strings"
)

// ReliesOn lists the statements a statement's proof relies on, in
// sub_statements order: its sub-statements, and the gap-filling _fix
// sub-statements that a patch used (a patch that answered the issue the
// fix sub-statement was made for). A fix sub-statement no patch used is
// not relied on: the gap was closed some other way, or not yet. A
// sub-statement found false is a dead end, not relied on, unless the proof
// cites it by id: uncited lists the sub-statements it relies on only if they
// are not false.
func ReliesOn(st *Statement) (relies, uncited []string) {
	fills := map[string]int{} // fix sub-statement -> the issue it fills
	patched := map[int]bool{} // issues a live patch answered
	for _, r := range st.Validate.Responses {
		switch {
		case r.Type == "substatement" && r.SubStatementID != "":
			fills[r.SubStatementID] = r.IssueAddressed
		case r.Type == "patch" && r.RejectedAt == nil:
			patched[r.IssueAddressed] = true
			for _, n := range r.IssuesAddressed {
				patched[n] = true
			}
		}
	}
	proof := ""
	if st.Proof != nil {
		proof = *st.Proof
	}
	relies = []string{}
	for _, id := range st.SubStatements {
		if n, ok := fills[id]; ok {
			if patched[n] {
				relies = append(relies, id)
			}
			continue
		}
		relies = append(relies, id)
		if !Cites(proof, id) {
			uncited = append(uncited, id)
		}
	}
	return relies, uncited
}

// Cites reports whether text names id as a whole word: stmt_a_sub1 is not
// cited by a mention of stmt_a_sub10.
func Cites(text, id string) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], id)
		if j < 0 {
			return false
		}
		at, end := i+j, i+j+len(id)
		if (at == 0 || !idByte(text[at-1])) && (end == len(text) || !idByte(text[end])) {
			return true
		}
		i = at + 1
	}
}

func idByte(b byte) bool { return b == '_' || b >= 'a' && b <= 'z' || b >= '0' && b <= '9' }

// Node is what the fully-proved derivation knows of one item: its status,
// whether it was ever verified (a statement that was true and is not any
// more was reopened), and what it relies on (for a solved problem, its key
// statement).
type Node struct {
	Status   Status
	Verified bool
	ReliesOn []string
	// Uncited are the sub-statements of ReliesOn that the proof does not
	// cite: one of them that is false is a dead end, not relied on.
	Uncited []string
	// Backing is what a statement's own grade comes from (grade.go).
	Backing Backing
}

// Proved is the derived verdict on one item. NotProved is the first item
// (depth first, in relies-on order) that keeps it from being fully proved,
// "" when it is: a statement that is not true, or the item itself (a
// problem that is not solved). Reopened says that statement was true once.
type Proved struct {
	FullyProved bool   `json:"fully_proved"`
	NotProved   string `json:"not_proved,omitempty"`
	Status      Status `json:"not_proved_status,omitempty"`
	Reopened    bool   `json:"reopened,omitempty"`
	// Grade is what stands behind the item (grade.go), for a fully proved
	// item and a kernel-checked statement; Weakest is the first statement
	// (depth first, in relies-on order) whose own evidence is that grade,
	// when it is not the kernel's: where the tree rests on less.
	Grade   Grade  `json:"grade,omitempty"`
	Weakest string `json:"weakest,omitempty"`
}

// Why says in words why the item is not fully proved: "stmt_x reopened",
// "stmt_x is has_gap"; "" when it is.
func (v Proved) Why() string {
	switch {
	case v.FullyProved:
		return ""
	case v.Reopened:
		return v.NotProved + " reopened"
	}
	return v.NotProved + " is " + string(v.Status)
}

// Prover derives fully_proved over a graph of nodes, remembering what it
// derived. A statement is fully proved when it is true and everything it
// relies on is fully proved; a problem (soundly solved) when it is solved
// and its key statement is fully proved. Nothing of it is stored.
type Prover struct {
	node func(id string) (*Node, error)
	// memo holds each verdict derived, and marks an item whose derivation
	// is under way (busy): one map, so that an item costs three lookups of
	// its id, not five (status at 100k spent a third of its time hashing).
	memo map[string]verdict
}

type verdict struct {
	Proved
	busy bool
}

// NewProver derives over node, which returns nil for an unknown id.
func NewProver(node func(id string) (*Node, error)) *Prover {
	return &Prover{node: node, memo: map[string]verdict{}}
}

// Of derives the verdict on id. A cycle (impossible by construction;
// doctor reports a hand-made one) counts as not proved.
func (p *Prover) Of(id string) (Proved, error) {
	if v, ok := p.memo[id]; ok {
		if v.busy {
			return Proved{NotProved: id, Status: "in a dependency cycle"}, nil
		}
		return v.Proved, nil
	}
	n, err := p.node(id)
	if err != nil {
		return Proved{}, err
	}
	if n == nil {
		return Proved{NotProved: id, Status: "missing"}, nil
	}
	p.memo[id] = verdict{busy: true}
	v, err := p.derive(id, n)
	if err != nil {
		delete(p.memo, id) // not busy any more, and nothing derived
		return Proved{}, err
	}
	p.memo[id] = verdict{Proved: v}
	return v, nil
}

// derive is Of's verdict on the node n of id, whose derivation is marked
// under way.
func (p *Prover) derive(id string, n *Node) (Proved, error) {
	// The id is a node's, so it is well formed: its prefix says its kind
	// (KindOf would match it against the id pattern again).
	problem := strings.HasPrefix(id, "prob_")
	if problem && n.Status != ProblemSolved || !problem && n.Status != StatementTrue {
		return Proved{NotProved: id, Status: n.Status, Reopened: n.Verified}, nil
	}
	// A problem has no evidence of its own: its key statement's is its.
	kernel := !problem && n.Backing.Kernel
	v := Proved{FullyProved: true, Grade: GradeKernel}
	if !problem && !kernel {
		v.Grade, v.Weakest = n.Backing.Own(), id
	}
	for _, c := range n.ReliesOn {
		if slices.Contains(n.Uncited, c) {
			cn, err := p.node(c)
			if err != nil {
				return Proved{}, err
			}
			if cn != nil && cn.Status == StatementFalse {
				continue
			}
		}
		cv, err := p.Of(c)
		if err != nil {
			return cv, err
		}
		if !cv.FullyProved {
			// The first item that keeps it from being fully proved; a
			// kernel-checked statement keeps its grade all the same.
			cv.Grade, cv.Weakest = "", ""
			if kernel {
				cv.Grade = GradeKernel
			}
			return cv, nil
		}
		if !kernel && weaker(cv.Grade, v.Grade) {
			v.Grade, v.Weakest = cv.Grade, cv.Weakest
		}
	}
	if v.Grade == GradeKernel {
		v.Weakest = ""
	}
	return v, nil
}

// FindCycle returns a cycle of the graph as the ids along it (the first
// repeated at the end), or nil. edges lists each id's successors.
func FindCycle(edges map[string][]string) []string {
	const (
		white = iota
		grey
		black
	)
	color := map[string]int{}
	var stack []string
	var found []string
	var visit func(id string) bool
	visit = func(id string) bool {
		color[id] = grey
		stack = append(stack, id)
		for _, c := range edges[id] {
			switch color[c] {
			case grey:
				i := slices.Index(stack, c)
				found = append(slices.Clone(stack[i:]), c)
				return true
			case white:
				if visit(c) {
					return true
				}
			}
		}
		stack = stack[:len(stack)-1]
		color[id] = black
		return false
	}
	ids := make([]string, 0, len(edges))
	for id := range edges {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		if color[id] == white && visit(id) {
			return found
		}
	}
	return nil
}
