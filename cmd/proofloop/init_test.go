package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// heavyAtInit names the packages whose calls compile or parse something:
// a regexp, a template, a JSON schema, a Markdown renderer. Every command,
// a skill call included, pays every package init of the binary before main
// runs (issue 26), so our packages call these on first use (sync.OnceValue),
// never in a package-level var or an init function.
var heavyAtInit = map[string]bool{
	"regexp":                          true,
	"text/template":                   true,
	"html/template":                   true,
	"encoding/json":                   true,
	"github.com/xeipuuv/gojsonschema": true,
	"github.com/yuin/goldmark":        true,
}

// TestNoHeavyPackageInit checks, on the source of every package of ours
// that the binary links, that no package-level var initializer and no
// init function calls into heavyAtInit (a call inside a function literal
// runs later, when the literal is called, so it is allowed). An AST check
// rather than a timing: it cannot fail because the machine was slow.
func TestNoHeavyPackageInit(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.Module.Path}} {{.Dir}} {{join .GoFiles \" \"}}{{end}}", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	checked := 0
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		if len(f) < 3 || f[0] != "github.com/proofloop/proofloop" {
			continue
		}
		for _, name := range f[2:] {
			for _, bad := range heavyInits(t, filepath.Join(f[1], name)) {
				t.Errorf("%s: package init calls %s: compile it on first use (sync.OnceValue)", bad.pos, bad.call)
			}
			checked++
		}
	}
	if checked < 100 {
		t.Fatalf("checked %d files of ours; want the binary's whole source", checked)
	}
}

type initCall struct {
	pos  token.Position
	call string
}

// heavyInits returns the calls into heavyAtInit that file makes at package
// init: in package-level var initializers and init function bodies, outside
// function literals.
func heavyInits(t *testing.T, file string) []initCall {
	t.Helper()
	fset := token.NewFileSet()
	af, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	imports := map[string]string{} // local name -> path
	for _, im := range af.Imports {
		path, _ := strconv.Unquote(im.Path.Value)
		name := filepath.Base(path)
		if im.Name != nil {
			name = im.Name.Name
		}
		imports[name] = path
	}
	var found []initCall
	visit := func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok && heavyAtInit[imports[id.Name]] {
					found = append(found, initCall{fset.Position(n.Pos()), imports[id.Name] + "." + sel.Sel.Name})
				}
			}
		}
		return true
	}
	for _, d := range af.Decls {
		switch d := d.(type) {
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				if vs, ok := spec.(*ast.ValueSpec); ok && d.Tok == token.VAR {
					for _, v := range vs.Values {
						ast.Inspect(v, visit)
					}
				}
			}
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.Name == "init" {
				ast.Inspect(d.Body, visit)
			}
		}
	}
	return found
}
