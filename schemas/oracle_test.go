package schemas

// The oracle: gojsonschema, which validated every document before the
// schemas were compiled into nodes (compile.go), kept in the tests to
// hold the compiled validator to its verdicts and failures. The
// conversion of its errors into Failures is the one Validate used.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/xeipuuv/gojsonschema"
)

var oracleSchemas sync.Map // Kind -> *gojsonschema.Schema

// oracleSchema is kind's schema compiled by gojsonschema.
func oracleSchema(kind Kind) (*gojsonschema.Schema, error) {
	if s, ok := oracleSchemas.Load(kind); ok {
		return s.(*gojsonschema.Schema), nil
	}
	src := Source(kind)
	if src == nil {
		return nil, fmt.Errorf("schemas: unknown kind %q", kind)
	}
	s, err := gojsonschema.NewSchema(gojsonschema.NewBytesLoader(src))
	if err != nil {
		return nil, fmt.Errorf("schemas: compile %s: %w", kind.FileName(), err)
	}
	oracleSchemas.Store(kind, s)
	return s, nil
}

// oracleLoader hands gojsonschema the tree the validator walks.
type oracleLoader struct {
	gojsonschema.JSONLoader
	doc []byte
}

func (l oracleLoader) LoadJSON() (any, error) { return decodeDoc(l.doc) }

// oracleValidate is Validate by gojsonschema.
func oracleValidate(t testing.TB, kind Kind, doc []byte) error {
	t.Helper()
	schema, err := oracleSchema(kind)
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(doc) {
		return &ValidationError{Kind: kind, Failures: []Failure{{Path: "$", Message: parseMessage(doc)}}}
	}
	res, err := schema.Validate(oracleLoader{gojsonschema.NewBytesLoader(doc), doc})
	if err != nil {
		return &ValidationError{Kind: kind, Failures: []Failure{{Path: "$", Message: "the JSON does not parse: " + err.Error()}}}
	}
	if res.Valid() {
		return nil
	}
	return &ValidationError{Kind: kind, Failures: failures(doc, res.Errors())}
}

// aggregate error types only say that a sub-schema failed; the sub-schema's
// own errors are reported too, so these are dropped.
var aggregate = map[string]bool{
	"number_all_of":  true,
	"condition_then": true,
	"condition_else": true,
}

// failures converts gojsonschema's errors into sorted, de-duplicated
// Failures with JSON paths.
func failures(doc []byte, errs []gojsonschema.ResultError) []Failure {
	var root any
	decoded := false
	out := make([]Failure, 0, len(errs))
	seen := map[Failure]bool{}
	add := func(e gojsonschema.ResultError) {
		if !decoded {
			d := json.NewDecoder(bytes.NewReader(doc))
			d.UseNumber()
			_ = d.Decode(&root) // doc is valid JSON: checked before validation
			decoded = true
		}
		f := Failure{Path: jsonPath(root, e), Message: message(e)}
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	for _, e := range errs {
		if !aggregate[e.Type()] {
			add(e)
		}
	}
	if len(out) == 0 { // only aggregates: should not happen, but never report nothing
		for _, e := range errs {
			add(e)
		}
	}
	sortFailures(out)
	return out
}

// jsonPath renders the location of e as $.a.b[0].c. gojsonschema gives the
// location as a chain of segments starting at "(root)" (its Field() is the
// same chain joined with dots: "validate.issues.0.sentence"); walking the
// document tells array indexes from object keys that look like numbers.
// Required and additional-property errors point at the object; their path is
// extended with the property itself.
func jsonPath(root any, e gojsonschema.ResultError) string {
	segs := strings.Split(e.Context().String("\x00"), "\x00")
	if len(segs) > 0 && segs[0] == gojsonschema.STRING_CONTEXT_ROOT {
		segs = segs[1:]
	}
	var b strings.Builder
	b.WriteString("$")
	node := root
	for _, s := range segs {
		switch n := node.(type) {
		case []any:
			if i, err := strconv.Atoi(s); err == nil && i >= 0 && i < len(n) {
				b.WriteString("[" + s + "]")
				node = n[i]
				continue
			}
		case map[string]any:
			writeKey(&b, s)
			node = n[s]
			continue
		}
		// The document does not have this shape (should not happen):
		// numbers are taken to be indexes.
		if _, err := strconv.Atoi(s); err == nil {
			b.WriteString("[" + s + "]")
		} else {
			writeKey(&b, s)
		}
		node = nil
	}
	switch e.Type() {
	case "required", "additional_property_not_allowed":
		if p, ok := e.Details()["property"].(string); ok {
			writeKey(&b, p)
		}
	}
	return b.String()
}

// message says what is wrong with the value at the failure's path.
func message(e gojsonschema.ResultError) string {
	d := e.Details()
	switch e.Type() {
	case "required":
		return "is required"
	case "additional_property_not_allowed":
		return "is not allowed here (unknown field)"
	case "invalid_type":
		var want []string
		for t := range strings.SplitSeq(strings.Trim(fmt.Sprint(d["expected"]), "[]"), ",") {
			want = append(want, typeName(t))
		}
		return fmt.Sprintf("must be %s, not %s", strings.Join(want, " or "), typeName(fmt.Sprint(d["given"])))
	case "enum":
		return fmt.Sprintf("must be one of %v, not %s", d["allowed"], shown(e.Value()))
	case "const":
		return fmt.Sprintf("must be %v, not %s", d["allowed"], shown(e.Value()))
	case "pattern":
		p := fmt.Sprint(d["pattern"])
		if n, ok := patternNames[p]; ok {
			return fmt.Sprintf("%s, not %s", n, shown(e.Value()))
		}
		return fmt.Sprintf("must match %s, not %s", p, shown(e.Value()))
	case "string_gte":
		if fmt.Sprint(d["min"]) == "1" {
			return "must not be empty"
		}
		return fmt.Sprintf("must be at least %v characters long", d["min"])
	case "string_lte":
		return fmt.Sprintf("must be at most %v characters long", d["max"])
	case "number_gte":
		return fmt.Sprintf("must be at least %v, not %s", d["min"], shown(e.Value()))
	case "number_gt":
		return fmt.Sprintf("must be greater than %v, not %s", d["min"], shown(e.Value()))
	case "number_lte":
		return fmt.Sprintf("must be at most %v, not %s", d["max"], shown(e.Value()))
	case "number_lt":
		return fmt.Sprintf("must be less than %v, not %s", d["max"], shown(e.Value()))
	case "array_min_items":
		if fmt.Sprint(d["min"]) == "1" {
			return "must not be empty"
		}
		return fmt.Sprintf("must have at least %v items", d["min"])
	case "array_max_items":
		return fmt.Sprintf("must have at most %v items", d["max"])
	case "unique":
		return fmt.Sprintf("must not repeat an item (items %v and %v are equal)", d["i"], d["j"])
	}
	return e.Description()
}
