// Package schemas holds the JSON Schemas (draft-07) of every file the store
// writes (problems, statements, debates, events, leases, the config and the
// redo journal), embedded in the binary, and the validator that checks
// documents against them.
//
// The schemas are compiled when the package is generated (go generate
// ./schemas writes compiled.go), not in a running process. Validate reports
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
	"slices"
	"strings"
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

// Widen makes kind's schema, for this process, the one edit makes of its
// text, and returns the undo. It is for tests that add what the schema
// enumerates (model.AddProtocol: a protocol's name and outcomes); Source
// and PropertyOrder keep the file's text, and the binary never calls it.
// An edit that does not compile panics: it is a test's mistake.
func Widen(kind Kind, edit func(src []byte) []byte) (undo func()) {
	cs, err := compileKinds([]Kind{kind}, func(k Kind) ([]byte, error) { return edit(Source(k)), nil })
	if err != nil {
		panic(err)
	}
	for i, old := range schemaList {
		if old.kind != kind {
			continue
		}
		c := cs[0]
		w := &schema{kind: kind, sum: old.sum, order: old.order, nodes: c.nodes}
		for _, p := range c.patterns {
			w.patterns = append(w.patterns, pattern{src: p})
		}
		schemaList[i] = w
		return func() { schemaList[i] = old }
	}
	panic(fmt.Sprintf("schemas: unknown kind %q", kind))
}

// Source returns the raw schema text (for `proofloop schema` / docs), or nil
// for an unknown kind. The caller may modify the returned slice.
func Source(kind Kind) []byte {
	if schemaOf(kind) == nil {
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
	sc := schemaOf(kind)
	if sc == nil {
		return fmt.Errorf("schemas: unknown kind %q (known: %v)", kind, Kinds())
	}
	// The decoder stops after the first value, so trailing garbage must
	// be caught here.
	if !json.Valid(doc) {
		return &ValidationError{Kind: kind, Failures: []Failure{{Path: "$", Message: parseMessage(doc)}}}
	}
	tree, err := decodeDoc(doc)
	if err != nil {
		return &ValidationError{Kind: kind, Failures: []Failure{{Path: "$", Message: "the JSON does not parse: " + err.Error()}}}
	}
	if fs := sc.validateTree(1, tree); len(fs) > 0 {
		return &ValidationError{Kind: kind, Failures: fs}
	}
	return nil
}

// validateTree checks a decoded document against node i and returns its
// failures, de-duplicated and sorted.
func (s *schema) validateTree(i int32, tree any) []Failure {
	r := s.sub(i, tree, nil)
	if len(r.fails) == 0 {
		return nil
	}
	out := make([]Failure, 0, len(r.fails))
	seen := map[Failure]bool{}
	for _, f := range r.fails {
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	sortFailures(out)
	return out
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

// identifier reports whether key matches ^[A-Za-z_][A-Za-z0-9_]*$.
func identifier(key string) bool {
	for i := 0; i < len(key); i++ {
		c := key[i]
		if !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return key != ""
}

// writeKey appends .key, or ["key"] when key is not a plain identifier.
func writeKey(b *strings.Builder, key string) {
	if identifier(key) {
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
	if s := schemaOf(k); s != nil {
		return slices.Clone(s.order)
	}
	return nil
}

// Sum is the SHA-256 of kind k's schema file, as embedded (zero for an
// unknown kind).
func Sum(k Kind) [32]byte {
	if s := schemaOf(k); s != nil {
		return s.sum
	}
	return [32]byte{}
}
