package loop

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// Graph is the dependency graph of problems and statements: each item, the
// tree edges (a problem's subproblems and wrap-up statements, a statement's
// sub-statements) and the relies-on edges that are not tree edges (a solved
// problem's key statement, a patch's gap-filling sub-statement).
type Graph struct {
	Nodes []GraphNode `json:"nodes"`
	Edges []GraphEdge `json:"edges"`
}

// GraphNode is one item of the graph.
type GraphNode struct {
	ID          string       `json:"id"`
	Kind        model.Kind   `json:"kind"`
	Status      model.Status `json:"status"`
	FullyProved bool         `json:"fully_proved"`
	NotProved   string       `json:"not_proved,omitempty"` // why not, in words
	Grade       model.Grade  `json:"grade,omitempty"`      // what stands behind a true statement or a solved problem
}

// GraphEdge is one edge: Kind "contains" (the tree) or "relies_on".
type GraphEdge struct {
	From string `json:"from"`
	To   string `json:"to"`
	Kind string `json:"kind"`
}

// NewGraph builds the graph of items (in their order), with reliesOn[id]
// the statements each item's proof relies on; edges to items outside the
// set are left out.
func NewGraph(items []*Item, reliesOn map[string][]string) *Graph {
	g := &Graph{Nodes: []GraphNode{}, Edges: []GraphEdge{}}
	in := map[string]bool{}
	for _, it := range items {
		in[it.ID] = true
	}
	for _, it := range items {
		n := GraphNode{ID: it.ID, Kind: it.Kind, Status: it.Status}
		if it.Proved != nil {
			n.FullyProved, n.NotProved, n.Grade = it.FullyProved, it.Why(), it.Grade
		}
		g.Nodes = append(g.Nodes, n)
		for _, c := range it.Children {
			if in[c] {
				g.Edges = append(g.Edges, GraphEdge{it.ID, c, "contains"})
			}
		}
		for _, r := range reliesOn[it.ID] {
			if in[r] && !slices.Contains(it.Children, r) {
				g.Edges = append(g.Edges, GraphEdge{it.ID, r, "relies_on"})
			}
		}
	}
	return g
}

// statusColors fills each status's nodes; the same palette in both formats.
var statusColors = map[model.Status]string{
	model.ProblemSolved:                 "#b7e1cd",
	model.StatementTrue:                 "#b7e1cd",
	model.StatementFalse:                "#f4c7c3",
	model.StatementHasGap:               "#fce8b2",
	model.StatementAwaitingVerification: "#fff2cc",
	model.StatementAwaitingSubstatement: "#cfe2f3",
	model.StatementNeedsModification:    "#d9d2e9",
}

func colorOf(s model.Status) string {
	if c, ok := statusColors[s]; ok {
		return c
	}
	return "#eeeeee" // pending, and anything new
}

// label is a node's text: its id, kind and status, and whether it is fully
// proved (for a problem: soundly solved).
func (n GraphNode) label(sep string) string {
	parts := []string{n.ID, string(n.Kind) + ": " + string(n.Status)}
	switch {
	case n.FullyProved && n.Kind == model.KindProblem:
		parts = append(parts, "soundly solved")
	case n.FullyProved:
		parts = append(parts, "fully proved")
	case n.NotProved != "" && (n.Status == model.StatementTrue || n.Status == model.ProblemSolved):
		parts = append(parts, "not fully proved: "+n.NotProved)
	}
	return strings.Join(parts, sep)
}

// DOT renders the graph for Graphviz (`dot -Tsvg`): filled by status, a
// thick border when fully proved, relies-on edges dashed.
func (g *Graph) DOT() []byte {
	var b bytes.Buffer
	b.WriteString("digraph proofloop {\n  rankdir=TB;\n  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\"];\n")
	for _, n := range g.Nodes {
		width := 1
		if n.FullyProved {
			width = 3
		}
		fmt.Fprintf(&b, "  %q [label=%q, fillcolor=%q, penwidth=%d];\n", n.ID, n.label("\n"), colorOf(n.Status), width)
	}
	for _, e := range g.Edges {
		if e.Kind == "relies_on" {
			fmt.Fprintf(&b, "  %q -> %q [style=dashed, label=\"relies on\"];\n", e.From, e.To)
		} else {
			fmt.Fprintf(&b, "  %q -> %q;\n", e.From, e.To)
		}
	}
	b.WriteString("}\n")
	return b.Bytes()
}

// Mermaid renders the graph as a Mermaid flowchart, which GitHub draws in a
// ```mermaid block. Ids are [a-z0-9_], so they are valid node names.
func (g *Graph) Mermaid() []byte {
	var b bytes.Buffer
	b.WriteString("flowchart TD\n")
	classes := map[string][]string{}
	for _, n := range g.Nodes {
		fmt.Fprintf(&b, "  %s[\"%s\"]\n", n.ID, n.label("<br/>"))
		cls := "s_" + string(n.Status)
		if n.FullyProved {
			cls += "_proved"
		}
		classes[cls] = append(classes[cls], n.ID)
	}
	for _, e := range g.Edges {
		if e.Kind == "relies_on" {
			fmt.Fprintf(&b, "  %s -.->|relies on| %s\n", e.From, e.To)
		} else {
			fmt.Fprintf(&b, "  %s --> %s\n", e.From, e.To)
		}
	}
	for _, cls := range slices.Sorted(func(yield func(string) bool) {
		for c := range classes {
			if !yield(c) {
				return
			}
		}
	}) {
		st := strings.TrimSuffix(strings.TrimPrefix(cls, "s_"), "_proved")
		width := "1px"
		if strings.HasSuffix(cls, "_proved") {
			width = "3px"
		}
		fmt.Fprintf(&b, "  classDef %s fill:%s,stroke:#333,stroke-width:%s\n", cls, colorOf(model.Status(st)), width)
		fmt.Fprintf(&b, "  class %s %s\n", strings.Join(classes[cls], ","), cls)
	}
	return b.Bytes()
}

// ReliesOn reads, for each item, the statements its proof relies on, from
// the index rows.
func ReliesOn(s *store.Store, items []*Item) (map[string][]string, error) {
	out := map[string][]string{}
	err := s.View(func(v *store.IndexView) error {
		for _, it := range items {
			r, err := v.Row(it.ID)
			if err != nil {
				return err
			}
			if r != nil && len(r.ReliesOn) > 0 {
				out[it.ID] = r.ReliesOn
			}
		}
		return nil
	})
	return out, err
}
