package schemas

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/format"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/xeipuuv/gojsonschema"
)

// TestCompiledIsCurrent fails while a compiled*.go file is not what the
// schema files give (a schema was changed and not regenerated), or one is
// left that the generator no longer writes.
func TestCompiledIsCurrent(t *testing.T) {
	want, err := GeneratedFiles(".", format.Source)
	if err != nil {
		t.Fatal(err)
	}
	have, err := filepath.Glob("compiled*.go")
	if err != nil {
		t.Fatal(err)
	}
	if len(have) != len(want) {
		t.Errorf("schemas has %v; go generate ./schemas writes %d files", have, len(want))
	}
	for name, src := range want {
		if got, err := os.ReadFile(name); err != nil || !bytes.Equal(got, src) {
			t.Errorf("schemas/%s is stale or missing: it is not what the *.schema.json files give. Run `go generate ./schemas` and commit the result.", name)
		}
	}
}

// TestCompiledNodesAreTheSchemas compiles the embedded schemas again and
// compares the result with the tables the binary holds: a field the
// generator did not write would be lost here.
func TestCompiledNodesAreTheSchemas(t *testing.T) {
	kinds, err := compileKinds(Kinds(), func(k Kind) ([]byte, error) { return Source(k), nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(kinds) != len(schemaList) {
		t.Fatalf("%d kinds compiled, %d generated", len(kinds), len(schemaList))
	}
	for i, c := range kinds {
		g := schemaList[i]
		var srcs []string
		for j := range g.patterns {
			srcs = append(srcs, g.patterns[j].src)
		}
		if c.kind != g.kind || c.sum != g.sum || !slices.Equal(c.order, g.order) || !slices.Equal(c.patterns, srcs) {
			t.Errorf("%s: compiled %s %x %q %q, generated %s %x %q %q", c.kind, c.kind, c.sum, c.order, c.patterns, g.kind, g.sum, g.order, srcs)
		}
		if !reflect.DeepEqual(c.nodes[1:], g.nodes[1:]) {
			for j := 1; j < min(len(c.nodes), len(g.nodes)); j++ {
				if !reflect.DeepEqual(c.nodes[j], g.nodes[j]) {
					t.Fatalf("%s node %d: compiled %+v, generated %+v", c.kind, j, c.nodes[j], g.nodes[j])
				}
			}
			t.Fatalf("%s: %d nodes compiled, %d generated", c.kind, len(c.nodes), len(g.nodes))
		}
	}
}

// TestCompileRefusesUnknownKeywords: a keyword the validator does not
// implement is an error naming it, never ignored.
func TestCompileRefusesUnknownKeywords(t *testing.T) {
	for _, src := range []string{
		`{"type": "object", "properties": {"a": {"type": "string", "format": "date-time"}}}`,
		`{"patternProperties": {"^x": {}}}`,
		`{"items": [{"type": "string"}]}`,
		`{"$ref": "#/definitions/a", "type": "string", "definitions": {"a": {}}}`,
		`{"$ref": "other.json#/x"}`,
		`{"multipleOf": 2}`,
	} {
		_, err := compileKinds([]Kind{"x"}, func(Kind) ([]byte, error) { return []byte(src), nil })
		if err == nil {
			t.Errorf("%s: compiled; want an error", src)
		} else if !strings.Contains(err.Error(), "x.schema.json at #") {
			t.Errorf("%s: error %q does not say where", src, err)
		}
	}
}

// corpus is every document of the package's tests: each kind's fixtures,
// the valid variants and the invalid documents, the malformed ones.
func corpus(t *testing.T) []corpusDoc {
	var docs []corpusDoc
	for _, k := range Kinds() {
		docs = append(docs, corpusDoc{k, "minimal", []byte(minimal[k])}, corpusDoc{k, "full", []byte(full[k])})
	}
	for _, c := range validVariants {
		m := decode(t, c.base[c.kind])
		c.mut(t, m)
		docs = append(docs, corpusDoc{c.kind, c.name, marshal(t, m)})
	}
	for _, c := range invalidDocuments {
		m := decode(t, c.base[c.kind])
		c.mut(t, m)
		docs = append(docs, corpusDoc{c.kind, c.name, marshal(t, m)})
	}
	for _, doc := range []string{"", "[]", `"x"`, "null", "1", `{"version": 1,}`, `{"version": 1} 2`,
		`{"version": 1, "version": 2}`, "{\"version\": 1, \"agents\": {\"a\\u00e9\": \"x\xff\"}}"} {
		docs = append(docs, corpusDoc{Config, "malformed", []byte(doc)})
	}
	docs = append(docs, corpusDoc{Statement, "big", bigStatement(t)}, corpusDoc{Statement, "300 issues", statementWithIssues(t, 300)})
	return docs
}

type corpusDoc struct {
	kind Kind
	name string
	doc  []byte
}

func marshal(t testing.TB, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCompiledAgreesWithGojsonschema: on the test corpus and on random
// mutations of each kind's fixtures, Validate's verdict and its failures
// (paths and messages) are gojsonschema's.
func TestCompiledAgreesWithGojsonschema(t *testing.T) {
	docs := corpus(t)
	rng := rand.New(rand.NewPCG(38, 1))
	for _, k := range Kinds() {
		for _, base := range []string{minimal[k], full[k]} {
			for range 80 {
				m := decode(t, base)
				var v any = m
				for range 1 + rng.IntN(2) {
					v = mutate(rng, v)
				}
				docs = append(docs, corpusDoc{k, "mutation", marshal(t, v)})
			}
		}
	}
	invalid, disagree := 0, 0
	for _, d := range docs {
		got, want := errText(Validate(d.kind, d.doc)), errText(oracleValidate(t, d.kind, d.doc))
		if want != "" {
			invalid++
		}
		if got != want {
			disagree++
			if disagree <= 10 {
				t.Errorf("%s %s: %s\nValidate:     %q\ngojsonschema: %q", d.kind, d.name, d.doc, got, want)
			}
		}
	}
	t.Logf("%d documents, %d invalid, %d disagreements", len(docs), invalid, disagree)
	// Every failure the validator can report is in the corpus.
	var all strings.Builder
	for _, d := range docs {
		all.WriteString(errText(Validate(d.kind, d.doc)))
	}
	for _, want := range []string{"is required", "is not allowed here", "must be one of", "must be 1, not",
		"must be a string, not", "must be a string or null, not", "characters long", "must be at least 0, not",
		"must be at most 1, not", "must not be empty", "must have at most 100 items", "must have at least 2 items",
		"must not repeat an item", "must match ^", "must be a UTC timestamp", "Must validate one and only one schema",
		"Property name of", "the JSON does not parse"} {
		if !strings.Contains(all.String(), want) {
			t.Errorf("no document of the corpus fails with %q", want)
		}
	}
	if valid := len(docs) - invalid; valid < len(docs)/5 || invalid < len(docs)/2 {
		t.Errorf("%d of %d documents valid: the corpus should hold many of both", valid, len(docs))
	}
}

// values replace a part of a document in mutate: every JSON type, the
// edges of the schemas' limits and values of the schemas' own shapes.
var values = []any{
	nil, true, false, 0, -1, 1, 1.5, json.Number("1e2"), json.Number("1.0"), json.Number("12345678901234567890"),
	"", "x", strings.Repeat("a", 129), strings.Repeat("é", 300), "2026-11-22T10:04:05Z", "2026-11-22 10:04:05",
	"prob_x", "stmt_x_sub1", "deb_x", "pending", "true", "patch", "<&>", "15m", "a\u2028b",
	[]any{}, []any{"a", "a"}, []any{1, 1.0}, []any{"prob_a", "prob_b"}, map[string]any{}, map[string]any{"x": 1},
	[]any{map[string]any{"command": 1}}, []any{map[string]any{"name": "Bad Name", "command": "x"}},
	[]any{map[string]any{"command": "x", "model": ""}}, slices.Repeat([]any{map[string]any{"command": "x"}}, 101),
}

// mutate changes one random part of v: replaces it (with a value of the
// list above or another part of the document of the same JSON type),
// deletes or adds an object member.
func mutate(rng *rand.Rand, v any) any {
	type spot struct {
		cur any
		set func(any)
	}
	var spots []spot
	var walk func(x any, set func(any))
	walk = func(x any, set func(any)) {
		spots = append(spots, spot{x, set})
		switch x := x.(type) {
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(x)) {
				walk(x[k], func(n any) { x[k] = n })
			}
		case []any:
			for i := range x {
				walk(x[i], func(n any) { x[i] = n })
			}
		}
	}
	root := v
	walk(v, func(n any) { root = n })
	at := spots[rng.IntN(len(spots))]
	if m, ok := at.cur.(map[string]any); ok && rng.IntN(3) == 0 {
		keys := slices.Sorted(maps.Keys(m))
		if len(keys) > 0 && rng.IntN(2) == 0 {
			delete(m, keys[rng.IntN(len(keys))])
		} else {
			m[fmt.Sprint("extra", rng.IntN(3))] = deepCopy(values[rng.IntN(len(values))])
		}
		return root
	}
	pick := values[rng.IntN(len(values))]
	if rng.IntN(2) == 0 {
		var same []any
		for _, s := range spots {
			if reflect.TypeOf(s.cur) == reflect.TypeOf(at.cur) {
				same = append(same, s.cur)
			}
		}
		pick = same[rng.IntN(len(same))]
	}
	at.set(deepCopy(pick))
	return root
}

// deepCopy copies v, so that no part of a document is shared.
func deepCopy(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var c any
	if err := d.Decode(&c); err != nil {
		panic(err)
	}
	return c
}

// TestKeywordsAgreeOnASyntheticSchema holds the validator to gojsonschema on
// a schema of the keywords and forms the store's schemas use little or not
// yet (exclusive bounds, anyOf, else, numeric enums and consts, integers
// written 1.0 or 1e2, unique numbers), on documents made to pass and to
// fail each.
func TestKeywordsAgreeOnASyntheticSchema(t *testing.T) {
	src := `{
		"$schema": "http://json-schema.org/draft-07/schema#",
		"type": "object", "additionalProperties": {"type": "integer"},
		"properties": {
			"rate": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1.5},
			"n": {"type": ["integer", "null"], "minimum": -2, "maximum": 1e2},
			"pick": {"anyOf": [{"type": "string", "maxLength": 2}, {"type": "array", "minItems": 2, "maxItems": 3}]},
			"mode": {"enum": [1, 2.5, null, "x"]},
			"one": {"const": 1},
			"set": {"type": "array", "uniqueItems": true},
			"cond": {"type": "object", "if": {"required": ["a"]}, "then": {"required": ["b"]}, "else": {"required": ["c"]}}
		}
	}`
	kinds, err := compileKinds([]Kind{"synthetic"}, func(Kind) ([]byte, error) { return []byte(src), nil })
	if err != nil {
		t.Fatal(err)
	}
	var pats []pattern
	for _, p := range kinds[0].patterns {
		pats = append(pats, pattern{src: p})
	}
	sc := &schema{kind: "synthetic", nodes: kinds[0].nodes, patterns: pats}
	oracle, err := gojsonschema.NewSchema(gojsonschema.NewStringLoader(src))
	if err != nil {
		t.Fatal(err)
	}
	docs := []string{
		`{}`, `{"rate": 0}`, `{"rate": 0.1}`, `{"rate": 1.5}`, `{"rate": 2}`, `{"rate": -1}`, `{"rate": "x"}`,
		`{"n": 1.0}`, `{"n": 1e2}`, `{"n": 1.5e2}`, `{"n": -3}`, `{"n": null}`, `{"n": 0.5}`,
		`{"pick": "ab"}`, `{"pick": "abc"}`, `{"pick": [1]}`, `{"pick": [1, 2]}`, `{"pick": [1, 2, 3, 4]}`, `{"pick": 3}`,
		`{"mode": 1}`, `{"mode": 1.0}`, `{"mode": 2.5}`, `{"mode": null}`, `{"mode": "x"}`, `{"mode": "y"}`, `{"mode": 3}`,
		`{"one": 1}`, `{"one": 1.0}`, `{"one": "1"}`, `{"one": true}`,
		`{"set": [1, 1.0]}`, `{"set": [1, 2, "1"]}`, `{"set": [{"a": 1}, {"a": 1}]}`, `{"set": [[1], [2], [1]]}`,
		`{"cond": {"a": 1, "b": 2}}`, `{"cond": {"a": 1}}`, `{"cond": {"c": 1}}`, `{"cond": {}}`,
		`{"extra": 1}`, `{"extra": 1.5}`, `{"extra": "x", "other": null}`,
	}
	for _, doc := range docs {
		tree, err := decodeDoc([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if fs := sc.validateTree(1, tree); len(fs) > 0 {
			got = (&ValidationError{Kind: "synthetic", Failures: fs}).Error()
		}
		want := ""
		res, err := oracle.Validate(oracleLoader{gojsonschema.NewStringLoader(doc), []byte(doc)})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Valid() {
			want = (&ValidationError{Kind: "synthetic", Failures: failures([]byte(doc), res.Errors())}).Error()
		}
		if got != want {
			t.Errorf("%s:\nValidate:     %q\ngojsonschema: %q", doc, got, want)
		}
	}
}
