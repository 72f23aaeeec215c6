package report

import (
	"fmt"
	"html/template"
	"slices"
	"strings"

	"github.com/proofloop/proofloop/loop"
	"github.com/proofloop/proofloop/model"
)

// The dependency graph of a page's problems and statements, drawn as an
// inline SVG laid out here (no script, no network, no layout library): each
// item a box in the row of its depth, a parent centred over its children
// (a tidy tree, in the order the parent lists them), an edge from each
// parent to each child, solid where the parent's proof relies on the child
// and dotted where it does not (a false sub-statement the proof avoids, a
// gap filler no patch used). A box's fill is its status; its border is the
// grade of a true statement (model.Grade): thick green for kernel-checked,
// blue for measured checkers, a thin dashed amber for the agents' word.
// leanblueprint's dependency graph is the model.

const (
	boxW, boxH   = 196, 42
	gapX, gapY   = 16, 34
	margin       = 8
	maxDAGNodes  = 400 // past it the page names `proofloop graph` instead
	maxLabelRune = 28
)

// statusFill is each status's fill; the legend lists them.
var statusFill = map[model.Status]string{
	model.StatementPending: "#f6f8fa", model.StatementAwaitingVerification: "#fff8c5", model.StatementHasGap: "#ffd8b5",
	model.StatementAwaitingSubstatement: "#ddf4ff", model.StatementTrue: "#dafbe1", model.StatementFalse: "#ffebe9",
	model.StatementNeedsModification: "#fbefff", model.ProblemSolved: "#dafbe1",
}

// gradeStroke is each grade's border: colour, width, dashes.
var gradeStroke = map[model.Grade][3]string{
	model.GradeKernel:   {"#1a7f37", "4", ""},
	model.GradeMeasured: {"#0969da", "3", ""},
	model.GradeAgents:   {"#9a6700", "1.5", "5 3"},
}

// dagNode is one box of the graph.
type dagNode struct {
	id       string
	it       *loop.Item
	x, y     float64 // the box's centre
	children []*dagNode
}

// dagSVG draws d's items as an SVG, or a note when there are none or too
// many to draw.
func dagSVG(d *Data) template.HTML {
	all, count, w, h := dagLayout(d)
	switch {
	case count == 0:
		return ""
	case count > maxDAGNodes:
		return template.HTML(fmt.Sprintf(`<p class="muted">The graph has %d problems and statements, more than this page draws (%d): <code>proofloop graph --format dot</code> draws it whole.</p>`, count, maxDAGNodes))
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="dag" xmlns="http://www.w3.org/2000/svg" role="img" aria-label="dependency graph of %d problems and statements" viewBox="0 0 %d %d" width="%d" height="%d">`, count, w, h, w, h)
	for _, n := range all {
		relies, uncited := n.it.ReliesOnIDs()
		for _, c := range n.children {
			dash := ` stroke-dasharray="2 4"`
			deadEnd := slices.Contains(uncited, c.id) && c.it.Status == model.StatementFalse
			if n.it.Kind == model.KindProblem || slices.Contains(relies, c.id) && !deadEnd {
				dash = ""
			}
			fmt.Fprintf(&b, `<line class="edge" x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="#8c959f" stroke-width="1.5"%s/>`,
				n.x, n.y+boxH/2, c.x, c.y-boxH/2, dash)
		}
	}
	for _, n := range all {
		dagBox(&b, d, n)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// dagLayout places d's problems and statements: each in the row of its
// depth from its root, a leaf in the next free column, a parent centred
// over its first and last child. It returns them depth first, how many,
// and the drawing's width and height (nothing is placed past maxDAGNodes).
func dagLayout(d *Data) (all []*dagNode, count, w, h int) {
	seen := map[string]bool{}
	var build func(id string, depth int) *dagNode
	build = func(id string, depth int) *dagNode {
		it := d.Items[id]
		if it == nil || seen[id] || (it.Kind != model.KindProblem && it.Kind != model.KindStatement) {
			return nil
		}
		seen[id] = true
		count++
		n := &dagNode{id: id, it: it, y: float64(margin + depth*(boxH+gapY) + boxH/2)}
		for _, c := range it.Children {
			if cn := build(c, depth+1); cn != nil {
				n.children = append(n.children, cn)
			}
		}
		return n
	}
	var roots []*dagNode
	for _, r := range d.Roots {
		if n := build(r, 0); n != nil {
			roots = append(roots, n)
		}
	}
	if count == 0 || count > maxDAGNodes {
		return nil, count, 0, 0
	}
	slot, maxY := 0, 0
	var place func(n *dagNode)
	place = func(n *dagNode) {
		all = append(all, n)
		maxY = max(maxY, int(n.y))
		for _, c := range n.children {
			place(c)
		}
		if len(n.children) == 0 {
			n.x = float64(margin + slot*(boxW+gapX) + boxW/2)
			slot++
			return
		}
		n.x = (n.children[0].x + n.children[len(n.children)-1].x) / 2
	}
	for _, r := range roots {
		place(r)
	}
	return all, count, margin*2 + slot*(boxW+gapX) - gapX, maxY + boxH/2 + margin
}

// dagBox draws one item: a box linked to its section when the page has
// one, its id, its status and grade, and a tooltip with its claim.
func dagBox(b *strings.Builder, d *Data, n *dagNode) {
	it := n.it
	grade := model.Grade("")
	if it.Proved != nil {
		grade = it.Grade
	}
	stroke, width, dash := "#8c959f", "1", ""
	if s, ok := gradeStroke[grade]; ok {
		stroke, width, dash = s[0], s[1], s[2]
	}
	fill := statusFill[it.Status]
	if fill == "" {
		fill = "#f6f8fa"
	}
	title := string(it.Status)
	if grade != "" {
		title += ", " + gradeWords(it)
	}
	text := ""
	if st := d.Statements[n.id]; st != nil {
		text = st.Claim
	} else if p := d.Problems[n.id]; p != nil {
		text = p.Objective
	}
	label := string(it.Status)
	if grade != "" {
		label += " · " + gradeWords(it)
	}
	open, closing := "", ""
	if d.Statements[n.id] != nil {
		open, closing = fmt.Sprintf(`<a href="#st-%s">`, n.id), `</a>`
	}
	fmt.Fprintf(b, `<g class="node st-%s grade-%s" data-id="%s">%s<title>%s: %s. %s</title>`, template.HTMLEscapeString(string(it.Status)),
		template.HTMLEscapeString(string(grade)), template.HTMLEscapeString(n.id), open, template.HTMLEscapeString(n.id), template.HTMLEscapeString(title), template.HTMLEscapeString(cut(text, 300)))
	dashAttr := ""
	if dash != "" {
		dashAttr = ` stroke-dasharray="` + dash + `"`
	}
	fmt.Fprintf(b, `<rect x="%.0f" y="%.0f" width="%d" height="%d" rx="6" fill="%s" stroke="%s" stroke-width="%s"%s/>`,
		n.x-boxW/2, n.y-boxH/2, boxW, boxH, fill, stroke, width, dashAttr)
	fmt.Fprintf(b, `<text x="%.0f" y="%.0f" text-anchor="middle" font-size="11" font-family="monospace">%s</text>`, n.x, n.y-4, template.HTMLEscapeString(cutLeft(n.id, maxLabelRune)))
	fmt.Fprintf(b, `<text x="%.0f" y="%.0f" text-anchor="middle" font-size="10" fill="#57606a">%s</text>%s</g>`, n.x, n.y+12, template.HTMLEscapeString(label), closing)
}

// gradeWords is an item's grade in words: a problem's "formally verified".
func gradeWords(it *loop.Item) string {
	if it.Kind == model.KindProblem {
		return it.Grade.ProblemText()
	}
	return it.Grade.Text()
}

// cutLeft shortens an id to its last n runes: ids share their start
// (stmt_x_wrap_sub2, stmt_x_wrap_sub3), and their end tells them apart.
func cutLeft(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return "…" + string(r[len(r)-n+1:])
}

// cut shortens s to n runes, marking the cut.
func cut(s string, n int) string {
	r := []rune(strings.Join(strings.Fields(s), " "))
	if len(r) <= n {
		return string(r)
	}
	return string(r[:n-1]) + "…"
}

// dagLegend says what the graph's fills and borders mean, each with a
// swatch drawn as the graph draws it; the items wrap with the page.
func dagLegend() template.HTML {
	var b strings.Builder
	b.WriteString(`<p class="legend">`)
	swatch := func(fill, stroke, width, dash, text string) {
		if dash != "" {
			dash = ` stroke-dasharray="` + dash + `"`
		}
		fmt.Fprintf(&b, `<span><svg xmlns="http://www.w3.org/2000/svg" width="24" height="16" aria-hidden="true"><rect x="2" y="2" width="20" height="12" rx="3" fill="%s" stroke="%s" stroke-width="%s"%s/></svg> %s</span> `,
			fill, stroke, width, dash, template.HTMLEscapeString(text))
	}
	for _, st := range []model.Status{model.StatementPending, model.StatementAwaitingVerification, model.StatementHasGap,
		model.StatementAwaitingSubstatement, model.StatementTrue, model.StatementFalse, model.StatementNeedsModification} {
		swatch(statusFill[st], "#8c959f", "1", "", string(st))
	}
	for _, g := range model.Grades {
		s := gradeStroke[g]
		swatch("#dafbe1", s[0], s[1], s[2], "true, "+g.Text())
	}
	b.WriteString(`<span class="muted">A dotted edge: not relied on (a dead end, or a gap filler no patch used).</span></p>`)
	return template.HTML(b.String())
}
