package report

import (
	"bytes"
	"html/template"
	"strings"
	"sync"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// md renders agents' Markdown. All of it is untrusted: goldmark runs
// without html.WithUnsafe, and the transformer below goes further and
// shows raw HTML as text (an auditor should see that an agent wrote a
// <script>, not an "omitted" comment) and turns links and images into text,
// so the page has no external href or src at all.
// It is built on first use, so that a command that renders no page does not
// pay for it at start.
var md = sync.OnceValue(func() goldmark.Markdown {
	return goldmark.New(
		goldmark.WithExtensions(extension.Table, extension.Strikethrough),
		goldmark.WithParserOptions(parser.WithASTTransformers(util.Prioritized(inert{}, 0))),
	)
})

// inert rewrites the nodes that could load or link anything.
type inert struct{}

func (inert) Transform(doc *ast.Document, reader text.Reader, pc parser.Context) {
	src := reader.Source()
	var nodes []ast.Node
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			switch n.(type) {
			case *ast.Link, *ast.Image, *ast.AutoLink, *ast.RawHTML, *ast.HTMLBlock:
				nodes = append(nodes, n)
			}
		}
		return ast.WalkContinue, nil
	})
	// Replace after the walk, innermost last, so the walk never sees a
	// node it is standing on move.
	for _, n := range nodes {
		p := n.Parent()
		if p == nil {
			continue
		}
		switch n := n.(type) {
		case *ast.Link:
			moveChildren(p, n)
			p.InsertBefore(p, n, ast.NewString([]byte(" ("+string(n.Destination)+")")))
		case *ast.Image:
			moveChildren(p, n)
		case *ast.AutoLink:
			p.InsertBefore(p, n, ast.NewString(n.URL(src)))
		case *ast.RawHTML:
			var b bytes.Buffer
			for i := 0; i < n.Segments.Len(); i++ {
				seg := n.Segments.At(i)
				b.Write(seg.Value(src))
			}
			p.InsertBefore(p, n, ast.NewString(b.Bytes()))
		case *ast.HTMLBlock:
			cb := ast.NewCodeBlock()
			lines := n.Lines()
			if n.HasClosure() {
				lines.Append(n.ClosureLine)
			}
			cb.SetLines(lines)
			p.InsertBefore(p, n, cb)
		}
		p.RemoveChild(p, n)
	}
}

// moveChildren moves n's children before n in p.
func moveChildren(p, n ast.Node) {
	for c := n.FirstChild(); c != nil; {
		next := c.NextSibling()
		n.RemoveChild(n, c)
		p.InsertBefore(p, n, c)
		c = next
	}
}

// Markdown renders an agent's LaTeX-flavoured Markdown to safe HTML: the
// formulas are taken out first, the rest goes through goldmark, and the
// formulas come back as escaped TeX for KaTeX.
func Markdown(src string) template.HTML {
	text, spans := extractMath(src)
	var b bytes.Buffer
	if err := md().Convert([]byte(text), &b); err != nil {
		// goldmark fails only when the writer does; show the text escaped.
		return template.HTML("<p>" + restoreMath(template.HTMLEscapeString(text), spans) + "</p>")
	}
	return template.HTML(restoreMath(b.String(), spans))
}

// Inline renders one short text (a sentence, a claim) like Markdown, but
// without the paragraph around it when it is a single paragraph.
func Inline(src string) template.HTML {
	h := strings.TrimSpace(string(Markdown(src)))
	if inner, ok := strings.CutPrefix(h, "<p>"); ok {
		if inner, ok = strings.CutSuffix(inner, "</p>"); ok && !strings.Contains(inner, "<p>") {
			return template.HTML(inner)
		}
	}
	return template.HTML(h)
}
