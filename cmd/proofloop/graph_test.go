package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/graph/formats/dot"
	"gonum.org/v1/gonum/graph/formats/dot/ast"
)

// graphStore builds a solved problem whose wrap-up statement rests on two
// true sub-statements, beside a second problem with a pending statement.
func graphStore(t *testing.T) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "contents")
	for _, args := range [][]string{
		{"init"},
		{"new-problem", "--name", "sq", "--objective", "Squares.", "--actor", "sol"},
		{"prob-wrapup-statement", "--problem-path", "prob_sq", "--claim", "It holds.", "--purpose", "The objective.", "--actor", "sol"},
		{"state-setup-substatement", "--parent-statement-path", "stmt_sq_wrap", "--sub-statements", `[{"claim": "Base."}, {"claim": "Step."}]`, "--rationale", "Induction.", "--actor", "pro"},
		{"state-complete-proof", "--statement-path", "stmt_sq_wrap_sub1", "--proof-text", "Clear.", "--strategy", "direct", "--actor", "pro"},
		{"check-confirm-proof", "--statement-path", "stmt_sq_wrap_sub1", "--actor", "chk"},
		{"state-complete-proof", "--statement-path", "stmt_sq_wrap_sub2", "--proof-text", "Clear too.", "--strategy", "direct", "--actor", "pro"},
		{"check-confirm-proof", "--statement-path", "stmt_sq_wrap_sub2", "--actor", "chk"},
		{"state-complete-proof", "--statement-path", "stmt_sq_wrap", "--proof-text", "By stmt_sq_wrap_sub1 and stmt_sq_wrap_sub2.", "--strategy", "induction", "--actor", "pro"},
		{"check-confirm-proof", "--statement-path", "stmt_sq_wrap", "--actor", "chk"},
		{"prob-finish-up", "--problem-path", "prob_sq", "--key-statement-id", "stmt_sq_wrap", "--resolution", "Done.", "--actor", "sol"},
		{"new-problem", "--name", "other", "--objective", "Other.", "--actor", "sol"},
		{"prob-wrapup-statement", "--problem-path", "prob_other", "--claim", "Open.", "--purpose", "p", "--actor", "sol"},
	} {
		var out, errb bytes.Buffer
		if code := run(append([]string{"--root", root}, args...), strings.NewReader(""), &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
	}
	return root
}

func graphRun(t *testing.T, root string, args ...string) (string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(append([]string{"--root", root, "graph"}, args...), strings.NewReader(""), &out, &errb)
	return out.String() + errb.String(), code
}

// TestGraphDOT parses the DOT output with a DOT parser (gonum's): every
// item is a node, every tree edge is there, fully proved nodes have the
// thick border and the solved problem says it is soundly solved.
func TestGraphDOT(t *testing.T) {
	root := graphStore(t)
	out, code := graphRun(t, root)
	if code != 0 {
		t.Fatalf("graph: exit %d: %s", code, out)
	}
	f, err := dot.ParseString(out)
	if err != nil {
		t.Fatalf("the DOT does not parse: %v\n%s", err, out)
	}
	if len(f.Graphs) != 1 || !f.Graphs[0].Directed {
		t.Fatalf("want one directed graph, got %+v", f.Graphs)
	}
	nodes := map[string]map[string]string{}
	var edges []string
	for _, st := range f.Graphs[0].Stmts {
		switch st := st.(type) {
		case *ast.NodeStmt:
			attrs := map[string]string{}
			for _, a := range st.Attrs {
				attrs[a.Key] = strings.Trim(a.Val, `"`)
			}
			nodes[strings.Trim(st.Node.ID, `"`)] = attrs
		case *ast.EdgeStmt:
			edges = append(edges, strings.Trim(st.From.(*ast.Node).ID, `"`)+"->"+strings.Trim(st.To.Vertex.(*ast.Node).ID, `"`))
		}
	}
	for _, id := range []string{"prob_sq", "stmt_sq_wrap", "stmt_sq_wrap_sub1", "stmt_sq_wrap_sub2", "prob_other", "stmt_other_wrap"} {
		if _, ok := nodes[id]; !ok {
			t.Errorf("no node %s in\n%s", id, out)
		}
	}
	slices.Sort(edges)
	want := []string{"prob_other->stmt_other_wrap", "prob_sq->stmt_sq_wrap", "stmt_sq_wrap->stmt_sq_wrap_sub1", "stmt_sq_wrap->stmt_sq_wrap_sub2"}
	if !slices.Equal(edges, want) {
		t.Errorf("edges %v; want %v", edges, want)
	}
	if n := nodes["stmt_sq_wrap"]; n["penwidth"] != "3" || n["fillcolor"] != "#b7e1cd" || !strings.Contains(n["label"], "fully proved") {
		t.Errorf("stmt_sq_wrap: %v; want a thick green fully proved node", n)
	}
	if n := nodes["prob_sq"]; !strings.Contains(n["label"], "soundly solved") {
		t.Errorf("prob_sq: %v; want soundly solved", n)
	}
	if n := nodes["stmt_other_wrap"]; n["penwidth"] != "1" || strings.Contains(n["label"], "proved") {
		t.Errorf("stmt_other_wrap: %v; want a thin pending node", n)
	}
}

func TestGraphMermaidJSONAndRefusals(t *testing.T) {
	root := graphStore(t)
	out, code := graphRun(t, root, "--format", "mermaid", "--problem", "prob_sq")
	if code != 0 {
		t.Fatalf("graph --format mermaid: exit %d: %s", code, out)
	}
	for _, line := range []string{"flowchart TD", `  stmt_sq_wrap["stmt_sq_wrap<br/>statement: true<br/>fully proved"]`,
		"  stmt_sq_wrap --> stmt_sq_wrap_sub1", "  class stmt_sq_wrap,stmt_sq_wrap_sub1,stmt_sq_wrap_sub2 s_true_proved"} {
		if !strings.Contains(out, line+"\n") {
			t.Errorf("no line %q in\n%s", line, out)
		}
	}
	if strings.Contains(out, "prob_other") {
		t.Errorf("--problem prob_sq shows prob_other:\n%s", out)
	}

	out, code = graphRun(t, root, "--json")
	var g struct {
		OK    bool
		Nodes []struct {
			ID          string
			FullyProved bool `json:"fully_proved"`
		}
		Edges []struct{ From, To, Kind string }
	}
	if err := json.Unmarshal([]byte(out), &g); code != 0 || err != nil || !g.OK || len(g.Nodes) != 6 || len(g.Edges) != 4 {
		t.Fatalf("graph --json: exit %d, %v: %s", code, err, out)
	}
	for _, n := range g.Nodes {
		if want := strings.HasPrefix(n.ID, "stmt_sq") || n.ID == "prob_sq"; n.FullyProved != want {
			t.Errorf("%s fully_proved %v; want %v", n.ID, n.FullyProved, want)
		}
	}

	if out, code := graphRun(t, root, "--format", "svg"); code != 2 || !strings.Contains(out, `--format "svg" is not dot, mermaid or json`) {
		t.Errorf("--format svg: exit %d, %s; want 2 naming the formats", code, out)
	}
	if out, code := graphRun(t, root, "--problem", "prob_nope"); code != 3 {
		t.Errorf("--problem prob_nope: exit %d, %s; want 3", code, out)
	}
}
