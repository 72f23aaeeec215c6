package report

import (
	"bytes"
	"crypto/rand"
	_ "embed"
	"encoding/base64"
	"html/template"
	"slices"
	"strings"
	"sync"

	"github.com/proofloop/proofloop/loop"
	"github.com/proofloop/proofloop/model"
)

// katexJS is KaTeX's katex.min.js (MIT, assets/KATEX_LICENSE), inlined in
// every page so that math renders offline and no script comes from the
// network.
//
//go:embed assets/katex.min.js
var katexJS string

//go:embed assets/page.js
var pageJS string

//go:embed assets/page.css
var pageCSS string

//go:embed page.tmpl
var pageTmpl string

// tmpl is parsed on first use: a command that renders no page (a skill
// call) does not pay for it at start.
var tmpl = sync.OnceValue(func() *template.Template { return template.Must(template.New("page").Parse(pageTmpl)) })

// DefaultSplitOver is the number of statements above which a report of
// several root problems becomes an index page and one page per root: about
// 1000 statements make a page of a few MB, which a browser still opens
// quickly; ten times that does not.
const DefaultSplitOver = 1000

// Options say how to render.
type Options struct {
	// Live makes the page follow the store: served by Serve, it reloads
	// its <main> on each event.
	Live bool
	// Nonce is the CSP nonce of the page's own script and style; "" draws
	// a random one.
	Nonce string
	// SplitOver overrides DefaultSplitOver (tests).
	SplitOver int
	// MainOnly renders only the page's <main> element: what a live page
	// fetches to replace its own. (A whole page parsed by the live page
	// would carry a <style> with another nonce, which the page's policy
	// reports as a violation.)
	MainOnly bool
	// KaTeXFile, when set, is the name of a file beside the page that
	// holds katex.min.js, instead of inlining it: a split report writes it
	// once rather than 273 KB into each of its pages.
	KaTeXFile string
}

// KaTeXFile is the name of the KaTeX file of a split report.
const KaTeXFile = "katex.min.js"

// KaTeX is katex.min.js, for the file a split report writes beside its
// pages.
func KaTeX() []byte { return []byte(katexJS) }

// Page is one HTML file of a report.
type Page struct {
	Name string // index.html, or <root problem>.html in a split report
	HTML []byte
}

// CSP is the Content-Security-Policy of a page with the given nonce: no
// source at all but the page's own nonced script and style, data: images,
// and (for serve's live updates) requests to the page's own origin. It is
// also set as a <meta http-equiv>, so the file opened from disk is
// protected too.
func CSP(nonce string) string {
	n := "'nonce-" + nonce + "'"
	return "default-src 'none'; script-src " + n + "; style-src " + n + "; img-src data:; connect-src 'self'; base-uri 'none'; form-action 'none'"
}

// NewNonce is a random CSP nonce.
func NewNonce() string {
	b := make([]byte, 18)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return base64.RawURLEncoding.EncodeToString(b)
}

// pageData is what page.tmpl reads.
type pageData struct {
	Title, Root, Problem, Generated, Up string
	CSP, Nonce                          string
	Style                               template.CSS
	KaTeX, Script                       template.JS
	KaTeXFile                           string
	Live                                bool
	LastSeq                             int
	Index                               bool
	Pages                               []pageLink
	StatementCount, SplitOver           int
	Tree                                []*treeNode
	Graph, Legend                       template.HTML
	Statements                          []*stmtView
	Debates                             []debateView
	Timeline                            []eventView
	Left                                int
	Figures                             Figures
}

// pageLink is one root problem's row on the index page.
type pageLink struct {
	ID, Href, Status             string
	Title                        template.HTML
	Statements, True, OpenIssues int
}

// Render lays d out as pages: one index.html, or, when d has more than
// SplitOver statements under several root problems, an index.html of the
// roots (with the figures, debates and timeline of the whole store) and one
// <root>.html per root problem.
func Render(d *Data, o Options) ([]Page, error) {
	if o.Nonce == "" {
		o.Nonce = NewNonce()
	}
	if o.SplitOver == 0 {
		o.SplitOver = DefaultSplitOver
	}
	if len(d.Statements) <= o.SplitOver || len(d.Roots) < 2 {
		b, err := renderPage(d, o, false, "")
		if err != nil {
			return nil, err
		}
		return []Page{{Name: "index.html", HTML: b}}, nil
	}
	o.KaTeXFile = KaTeXFile
	index, err := renderPage(d, o, true, "")
	if err != nil {
		return nil, err
	}
	pages := []Page{{Name: "index.html", HTML: index}}
	subs := Subsets(d)
	for _, root := range d.Roots {
		b, err := renderPage(subs[root], o, false, "index.html")
		if err != nil {
			return nil, err
		}
		pages = append(pages, Page{Name: root + ".html", HTML: b})
	}
	return pages, nil
}

// Split reports whether Render makes several pages of d.
func Split(d *Data, o Options) bool {
	n := o.SplitOver
	if n == 0 {
		n = DefaultSplitOver
	}
	return len(d.Statements) > n && len(d.Roots) >= 2
}

// Subsets splits d by root problem: each root's items, documents, the
// debates about its statements and the events that touch it, in one pass.
func Subsets(d *Data) map[string]*Data {
	subs := map[string]*Data{}
	for _, root := range d.Roots {
		subs[root] = &Data{Root: d.Root, Problem: root, Generated: d.Generated, Roots: []string{root}, LastSeq: d.LastSeq,
			Items: map[string]*loop.Item{}, Problems: map[string]*model.Problem{}, Statements: map[string]*StatementData{}}
	}
	of := func(id string) *Data {
		if it := d.Items[id]; it != nil {
			if sub := subs[it.Root]; sub != nil {
				return sub
			}
			return subs[id] // a root's own row may name no root
		}
		return nil
	}
	for id, it := range d.Items {
		sub := of(id)
		if sub == nil {
			continue
		}
		sub.Items[id] = it
		if p := d.Problems[id]; p != nil {
			sub.Problems[id] = p
		}
		if st := d.Statements[id]; st != nil {
			sub.Statements[id] = st
		}
	}
	for _, db := range d.Debates {
		if db.About != nil {
			if sub := of(db.About.Statement); sub != nil {
				sub.Debates = append(sub.Debates, db)
			}
		}
	}
	for _, ev := range d.Events {
		var seen []*Data
		for _, id := range ev.IDs {
			if sub := of(id); sub != nil && !slices.Contains(seen, sub) {
				seen = append(seen, sub)
				sub.Events = append(sub.Events, ev)
			}
		}
	}
	return subs
}

func renderPage(d *Data, o Options, index bool, up string) ([]byte, error) {
	title := "proofloop report"
	if d.Problem != "" {
		title += ": " + d.Problem
	}
	pd := &pageData{Title: title, Root: d.Root, Problem: d.Problem, Generated: d.Generated, Up: up,
		CSP: CSP(o.Nonce), Nonce: o.Nonce, Style: template.CSS(pageCSS), Script: template.JS(pageJS), KaTeXFile: o.KaTeXFile,
		Live: o.Live, LastSeq: d.LastSeq, Index: index, StatementCount: len(d.Statements), SplitOver: o.SplitOver,
		Debates: debateViews(d), Figures: figures(d)}
	if o.KaTeXFile == "" {
		pd.KaTeX = template.JS(katexJS)
	}
	pd.Timeline, pd.Left = timeline(d)
	if index {
		pd.Pages = indexRows(d)
	} else {
		href := func(id string) string {
			if d.Statements[id] != nil {
				return "#st-" + id
			}
			return ""
		}
		for _, r := range d.Roots {
			if n := tree(d, r, href); n != nil {
				pd.Tree = append(pd.Tree, n)
			}
		}
		if pd.Graph = dagSVG(d); pd.Graph != "" {
			pd.Legend = dagLegend()
		}
		for _, id := range treeOrder(d) {
			if sd := d.Statements[id]; sd != nil {
				pd.Statements = append(pd.Statements, statementView(sd, d.Items[id]))
			}
		}
	}
	var b bytes.Buffer
	name := "page"
	if o.MainOnly {
		name = "main"
	}
	if err := tmpl().ExecuteTemplate(&b, name, pd); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// treeOrder lists d's items depth first from its roots, children in the
// order their parent lists them: the order a reader follows the tree.
func treeOrder(d *Data) []string {
	var out []string
	seen := map[string]bool{}
	var walk func(id string)
	walk = func(id string) {
		it := d.Items[id]
		if it == nil || seen[id] {
			return
		}
		seen[id] = true
		out = append(out, id)
		for _, c := range it.Children {
			walk(c)
		}
	}
	for _, r := range d.Roots {
		walk(r)
	}
	return out
}

func indexRows(d *Data) []pageLink {
	rows := map[string]*pageLink{}
	var out []pageLink
	for _, r := range d.Roots {
		pl := &pageLink{ID: r, Href: r + ".html"}
		if it := d.Items[r]; it != nil {
			pl.Status = string(it.Status)
		}
		if p := d.Problems[r]; p != nil {
			pl.Title = Inline(p.Objective)
		}
		rows[r] = pl
	}
	for id, st := range d.Statements {
		it := d.Items[id]
		if it == nil || rows[it.Root] == nil {
			continue
		}
		pl := rows[it.Root]
		pl.Statements++
		if st.Status == model.StatementTrue {
			pl.True++
		}
		pl.OpenIssues += len(it.OpenIssues)
	}
	for _, r := range d.Roots {
		out = append(out, *rows[r])
	}
	return out
}

// RenderOne renders only the page called name of what Render would make
// ("index.html" or "<root>.html"); ok is false when there is no such page.
func RenderOne(d *Data, o Options, name string) (b []byte, ok bool, err error) {
	if o.SplitOver == 0 {
		o.SplitOver = DefaultSplitOver
	}
	split := Split(d, o)
	switch root := strings.TrimSuffix(name, ".html"); {
	case name == "index.html":
		b, err = renderPage(d, o, split, "")
	case split && slices.Contains(d.Roots, root):
		b, err = renderPage(Subsets(d)[root], o, false, "index.html")
	default:
		return nil, false, nil
	}
	return b, err == nil, err
}
