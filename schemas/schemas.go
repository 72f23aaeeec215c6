// Package schemas holds the JSON Schemas (draft-07) of every file the store
// writes (problems, statements, debates, events, leases, the config and the
// redo journal), embedded in the binary, and the validator that checks
// documents against them.
//
// Each schema is compiled once per process, on first use. Validate reports
// every violation of a document as a Failure at a JSON path such as
// $.validate.issues[0].sentence, so that a damaged file or a bad write can be
// pinned down exactly.
package schemas

import (
	"bytes"
	"embed"

	"encoding/json"
	"errors"
	"fmt"
	"github.com/tidwall/gjson"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/xeipuuv/gojsonschema"
)

//go:embed *.schema.json
var files embed.FS

// Kind names a schema: the kind of document it describes.
type Kind string

// The schemas.
const (
	Problem   Kind = "problem"   // problem/<id>.json
	Statement Kind = "statement" // statement/<id>.json
	Event     Kind = "event"     // one line of events.jsonl
	Config    Kind = "config"    // config.json
	Journal   Kind = "journal"   // the store's redo journal
	Lease     Kind = "lease"     // leases/<id>.json
	Debate    Kind = "debate"    // debate/<id>.json
	// ProofRevision is one line of proofs/<statement id>.jsonl.
	ProofRevision Kind = "proof_revision"
	// EvalItem is one line of a labelled set (docs/eval.md).
	EvalItem Kind = "eval_item"
	// CheckerRecord is one line of checkers.jsonl.
	CheckerRecord Kind = "checker_record"
)

// Kinds lists every schema, in a fixed order.
func Kinds() []Kind {
	return []Kind{Problem, Statement, Event, Config, Journal, Lease, Debate, ProofRevision, EvalItem, CheckerRecord}
}

// FileName is the name of the kind's schema file, e.g. statement.schema.json.
func (k Kind) FileName() string { return string(k) + ".schema.json" }

// Failure is one schema violation at a JSON path such as
// $.validate.issues[0].sentence ($ for the root). A missing required field or
// a field that is not allowed is reported at that field's own path.
type Failure struct{ Path, Message string }

// ValidationError lists every failure of one document.
type ValidationError struct {
	Kind     Kind
	Failures []Failure
}

// Error lists all failures, sorted by path (array indexes in numeric order),
// e.g. "statement fails its schema: $.status: must be one of ...; $.x: ...".
func (e *ValidationError) Error() string {
	fs := slices.Clone(e.Failures)
	sortFailures(fs)
	var b strings.Builder
	b.WriteString(string(e.Kind))
	b.WriteString(" fails its schema")
	for i, f := range fs {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		b.WriteString(f.Path)
		b.WriteString(": ")
		b.WriteString(f.Message)
	}
	return b.String()
}

// compiled is one schema, compiled on first use.
type compiled struct {
	once   sync.Once
	schema *gojsonschema.Schema
	err    error
}

var compiledSchemas = map[Kind]*compiled{
	Problem: {}, Statement: {}, Event: {}, Config: {}, Journal: {}, Lease: {}, Debate: {}, ProofRevision: {}, EvalItem: {}, CheckerRecord: {},
}

func schemaFor(kind Kind) (*gojsonschema.Schema, error) {
	c, ok := compiledSchemas[kind]
	if !ok {
		return nil, fmt.Errorf("schemas: unknown kind %q (known: %v)", kind, Kinds())
	}
	c.once.Do(func() {
		src := Source(kind)
		if src == nil {
			c.err = fmt.Errorf("schemas: %s is not embedded", kind.FileName())
			return
		}
		c.schema, c.err = gojsonschema.NewSchema(gojsonschema.NewBytesLoader(src))
		if c.err != nil {
			c.err = fmt.Errorf("schemas: compile %s: %w", kind.FileName(), c.err)
		}
	})
	return c.schema, c.err
}

// Widen makes kind's schema, for this process, the one edit makes of its
// text, and returns the undo. It is for tests that add what the schema
// enumerates (model.AddProtocol: a protocol's name and outcomes); Source
// and PropertyOrder keep the file's text, and the binary never calls it.
func Widen(kind Kind, edit func(src []byte) []byte) (undo func()) {
	old := compiledSchemas[kind]
	c := &compiled{}
	c.once.Do(func() {
		c.schema, c.err = gojsonschema.NewSchema(gojsonschema.NewBytesLoader(edit(Source(kind))))
	})
	compiledSchemas[kind] = c
	return func() { compiledSchemas[kind] = old }
}

// Source returns the raw schema text (for `proofloop schema` / docs), or nil
// for an unknown kind. The caller may modify the returned slice.
func Source(kind Kind) []byte {
	if _, ok := compiledSchemas[kind]; !ok {
		return nil
	}
	b, err := files.ReadFile(kind.FileName())
	if err != nil {
		return nil
	}
	return b
}

// Validate checks doc (raw JSON bytes) against the kind's schema. It returns
// nil when doc conforms and a *ValidationError listing every failure when it
// does not; malformed JSON gives one Failure at "$" saying that the JSON does
// not parse. An unknown kind is a plain error.
func Validate(kind Kind, doc []byte) error {
	schema, err := schemaFor(kind)
	if err != nil {
		return err
	}
	// gojsonschema's decoder stops after the first value, so trailing
	// garbage must be caught here.
	if !json.Valid(doc) {
		return &ValidationError{Kind: kind, Failures: []Failure{{Path: "$", Message: parseMessage(doc)}}}
	}
	res, err := schema.Validate(newDocLoader(doc))
	if err != nil {
		return &ValidationError{Kind: kind, Failures: []Failure{{Path: "$", Message: "the JSON does not parse: " + err.Error()}}}
	}
	if res.Valid() {
		return nil
	}
	return &ValidationError{Kind: kind, Failures: failures(doc, res.Errors())}
}

// parseMessage explains why doc is not valid JSON.
func parseMessage(doc []byte) string {
	if len(bytes.TrimSpace(doc)) == 0 {
		return "the JSON does not parse: the document is empty"
	}
	var v any
	err := json.Unmarshal(doc, &v)
	if err == nil {
		return "the JSON does not parse"
	}
	msg := "the JSON does not parse: " + err.Error()
	if se, ok := errors.AsType[*json.SyntaxError](err); ok {
		msg += fmt.Sprintf(" (at byte %d)", se.Offset)
	}
	return msg
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

var identifier = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })

// writeKey appends .key, or ["key"] when key is not a plain identifier.
func writeKey(b *strings.Builder, key string) {
	if identifier().MatchString(key) {
		b.WriteString("." + key)
		return
	}
	q, _ := json.Marshal(key)
	b.WriteString("[" + string(q) + "]")
}

// Patterns the schemas use, described for people.
var patternNames = map[string]string{
	`^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?Z$`: "must be a UTC timestamp such as 2026-11-22T10:04:05Z",
	`^prob_[a-z0-9_]+$`:            "must be a problem id: prob_ followed by a-z, 0-9 and _",
	`^stmt_[a-z0-9_]+$`:            "must be a statement id: stmt_ followed by a-z, 0-9 and _",
	`^(prob|stmt)_[a-z0-9_]+$`:     "must be a problem or statement id: prob_ or stmt_ followed by a-z, 0-9 and _",
	`^(prob|stmt|deb)_[a-z0-9_]+$`: "must be a problem, statement or debate id: prob_, stmt_ or deb_ followed by a-z, 0-9 and _",
	`^deb_[a-z0-9_]+$`:             "must be a debate id: deb_ followed by a-z, 0-9 and _",
	`^\.debates/[0-9]{4}-[0-9]{2}-[0-9]{2}-[\p{L}\p{N}\p{M}-]{1,40}\.md$`: "must be a transcript path: .debates/YYYY-MM-DD-topic-slug.md",
	`^(turn-[1-9][0-9]*|source|topic)$`:                                   "must be turn-N, source or topic",
	`^(turn-[1-9][0-9]*|proposal-[a-z0-9][a-z0-9_-]*)$`:                   "must be turn-N or proposal-<role>",
	`^([0-9a-f]{64})?$`:  "must be empty or 64 lowercase hex digits (a SHA-256)",
	`^[0-9]+(ms|s|m|h)$`: "must be a duration: a whole number followed by ms, s, m or h, such as 15m",
	`^[0-9a-f]{64}$`:     "must be 64 lowercase hex digits (a SHA-256)",
	`^(problem|statement|debate|leases)/[a-z0-9_]+\.json$|^config\.json$|^events\.jsonl$|^\.debates/[0-9]{4}-[0-9]{2}-[0-9]{2}-[\p{L}\p{N}\p{M}_-]{1,80}\.md$|^proofs/[a-z0-9_]{1,128}\.jsonl$|^index\.db$`: "must be problem/<id>.json, statement/<id>.json, debate/<id>.json, leases/<id>.json, config.json, events.jsonl, .debates/<date>-<slug>.md, proofs/<id>.jsonl or index.db",
}

var typeNames = map[string]string{
	"string": "a string", "integer": "an integer", "number": "a number", "boolean": "a boolean",
	"object": "an object", "array": "an array", "null": "null",
}

func typeName(t string) string {
	if n, ok := typeNames[t]; ok {
		return n
	}
	return t
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

// shown renders a value for a message, cut short when long.
func shown(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	const max = 80
	if len(b) > max {
		cut := max
		for cut > 0 && b[cut]&0xC0 == 0x80 { // do not split a UTF-8 sequence
			cut--
		}
		return string(b[:cut]) + "…"
	}
	return string(b)
}

// sortFailures orders failures by path, comparing runs of digits by value
// so that [2] comes before [10], then by message.
func sortFailures(fs []Failure) {
	slices.SortStableFunc(fs, func(a, b Failure) int {
		if c := naturalCompare(a.Path, b.Path); c != 0 {
			return c
		}
		return strings.Compare(a.Message, b.Message)
	})
}

func naturalCompare(a, b string) int {
	for a != "" && b != "" {
		if isDigit(a[0]) && isDigit(b[0]) {
			i, j := digits(a), digits(b)
			na, nb := strings.TrimLeft(a[:i], "0"), strings.TrimLeft(b[:j], "0")
			if len(na) != len(nb) {
				return len(na) - len(nb)
			}
			if c := strings.Compare(na, nb); c != 0 {
				return c
			}
			if i != j {
				return i - j
			}
			a, b = a[i:], b[j:]
			continue
		}
		if a[0] != b[0] {
			return int(a[0]) - int(b[0])
		}
		a, b = a[1:], b[1:]
	}
	return len(a) - len(b)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func digits(s string) int {
	i := 0
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}

// PropertyOrder lists the top-level properties of kind k in the order its
// schema declares them, which is the order documents are written in.
func PropertyOrder(k Kind) []string {
	b, err := files.ReadFile(k.FileName())
	if err != nil {
		return nil
	}
	var keys []string
	gjson.GetBytes(b, "properties").ForEach(func(key, _ gjson.Result) bool {
		keys = append(keys, key.String())
		return true
	})
	return keys
}
