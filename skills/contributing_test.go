package skills

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/proofloop/proofloop/model"
)

// TestContributingWalk keeps docs/contributing.md's lists of the files a new
// skill and a new protocol touch true, for the example each list names:
// every file exists, the registry and the protocol list are declared in
// the files the lists name, the files marked generated are the ones
// gen-claude writes, and gen-claude writes no other file about the example.
func TestContributingWalk(t *testing.T) {
	doc, err := os.ReadFile("../docs/contributing.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "\n## The files, exactly\n")
	if !ok {
		t.Fatal(`docs/contributing.md has no section "## The files, exactly"`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	blocks := regexp.MustCompile("(?s)```text\n(.*?)```").FindAllStringSubmatch(section, -1)
	if len(blocks) != 2 {
		t.Fatalf("the walk has %d file lists; want 2, a skill's and a protocol's", len(blocks))
	}
	generated := map[string]bool{"schemas/debate.schema.json": true}
	claude, err := ClaudeFiles()
	if err != nil {
		t.Fatal(err)
	}
	plugin, err := PluginFiles()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range append(claude, plugin...) {
		generated[f.Path] = true
	}
	head := regexp.MustCompile(`^(skill|protocol) NAME, e\.g\. ([a-z-]+)`)
	for _, b := range blocks {
		lines := strings.Split(strings.TrimSpace(b[1]), "\n")
		m := head.FindStringSubmatch(lines[0])
		if m == nil {
			t.Errorf("walk list starts %q; want \"skill NAME, e.g. EXAMPLE\" or \"protocol NAME, e.g. EXAMPLE\"", lines[0])
			continue
		}
		kind, example := m[1], m[2]
		var roles []string
		if kind == "skill" {
			sk, ok := Find(example)
			if !ok {
				t.Errorf("the skill walk's example %q is not in the registry", example)
				continue
			}
			for _, r := range sk.roles() {
				roles = append(roles, string(r))
			}
		} else if !slices.ContainsFunc(model.Protocols, func(p *model.Protocol) bool { return p.Name == example }) {
			t.Errorf("the protocol walk's example %q is not in model.Protocols", example)
			continue
		}
		listed := map[string]bool{}
		for _, l := range lines[1:] {
			path, what, _ := strings.Cut(strings.TrimSpace(l), " ")
			for _, p := range expand(path, example, roles) {
				listed[p] = true
				if _, err := os.Stat("../" + p); err != nil {
					t.Errorf("the %s walk names %s (%s), which does not exist", kind, p, l)
				}
				if strings.Contains(what, "generated") && !generated[p] {
					t.Errorf("the %s walk says %s is generated; gen-claude writes no such file", kind, p)
				}
			}
		}
		for p := range generated {
			if strings.Contains(p, "/"+example+"/") || strings.Contains(p, "-"+example+".md") {
				if !listed[p] {
					t.Errorf("gen-claude writes %s for %s %s; the walk does not list it", p, kind, example)
				}
			}
		}
		declared := map[string]string{"skill": "skills/registry.go", "protocol": "model/protocol.go"}[kind]
		name := map[string]string{"skill": "Registry", "protocol": "Protocols"}[kind]
		if !listed[declared] {
			t.Errorf("the %s walk does not name %s", kind, declared)
		} else if !declares(t, "../"+declared, name) {
			t.Errorf("the %s walk names %s for %s, which does not declare it", kind, declared, name)
		}
	}
}

// expand fills in a walk line's path for example: NAME, N (NAME with
// underscores) and ROLE (one path per role).
func expand(path, example string, roles []string) []string {
	path = strings.ReplaceAll(path, "NAME", example)
	path = regexp.MustCompile(`([/_])N\.`).ReplaceAllString(path, "${1}"+strings.ReplaceAll(example, "-", "_")+".")
	if !strings.Contains(path, "ROLE") {
		return []string{path}
	}
	var out []string
	for _, r := range roles {
		out = append(out, strings.ReplaceAll(path, "ROLE", r))
	}
	return out
}

// declares reports whether the Go file at path declares a package-level
// variable called name.
func declares(t *testing.T, path, name string) bool {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.VAR {
			for _, s := range g.Specs {
				if slices.ContainsFunc(s.(*ast.ValueSpec).Names, func(n *ast.Ident) bool { return n.Name == name }) {
					return true
				}
			}
		}
	}
	return false
}
