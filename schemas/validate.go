package schemas

import (
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// The validator walks a decoded document (the tree docLoader builds:
// maps, slices, strings, json.Number, bools and nil) against the compiled
// nodes. It is gojsonschema's validation (validation.go of v1.2.0) for
// the keywords compile.go accepts, in the same order and with the same
// score, which picks the branch of a oneOf whose failures are reported;
// each failure is what gojsonschema's error becomes in a Failure.

// result is one validation's failures and score (gojsonschema's Result).
type result struct {
	fails []Failure
	score int
}

// fail records a failure at p (extended by key when key is not empty),
// with gojsonschema's score for an error.
func (r *result) fail(p *path, key, msg string) {
	at := p.String()
	if key != "" {
		var b strings.Builder
		b.WriteString(at)
		writeKey(&b, key)
		at = b.String()
	}
	r.fails = append(r.fails, Failure{Path: at, Message: msg})
	r.score -= 2
}

func (r *result) merge(o *result) {
	r.fails = append(r.fails, o.fails...)
	r.score += o.score
}

// path is where a value sits in the document, as a chain from the root
// (nil); it is rendered only for a failure.
type path struct {
	up    *path
	key   string
	index int // -1 for a key
}

func (p *path) String() string {
	var segs []*path
	for q := p; q != nil; q = q.up {
		segs = append(segs, q)
	}
	var b strings.Builder
	b.WriteString("$")
	for i := len(segs) - 1; i >= 0; i-- {
		if s := segs[i]; s.index >= 0 {
			b.WriteString("[" + strconv.Itoa(s.index) + "]")
		} else {
			writeKey(&b, s.key)
		}
	}
	return b.String()
}

// schema is one kind's compiled schema (compiled.go).
type schema struct {
	kind     Kind
	sum      [32]byte // SHA-256 of the schema file
	order    []string // the top-level properties in file order
	patterns []pattern
	nodes    []node // nodes[1] is the root
}

// pattern is a schema's pattern, compiled on its first use.
type pattern struct {
	src  string
	once sync.Once
	re   *regexp.Regexp
}

func (p *pattern) regexp() *regexp.Regexp {
	p.once.Do(func() { p.re = regexp.MustCompile(p.src) })
	return p.re
}

// sub validates v against node i in a result of its own.
func (s *schema) sub(i int32, v any, p *path) *result {
	r := &result{}
	s.check(i, v, r, p)
	return r
}

// check is gojsonschema's validateRecursive.
func (s *schema) check(i int32, v any, r *result, p *path) {
	n := &s.nodes[i]
	if n.ref != 0 {
		s.check(n.ref, v, r, p)
		return
	}
	switch x := v.(type) {
	case nil:
		if !n.admits(tNull, r, p) {
			return
		}
		s.checkSchema(n, v, r, p)
		checkCommon(n, v, r, p)
	case json.Number:
		isInt := isInteger(string(x))
		given := tNumber
		if isInt {
			given = tInteger
		}
		if n.types != 0 && n.types&tNumber == 0 && !(isInt && n.types&tInteger != 0) {
			r.fail(p, "", n.typeMessage(given))
			return
		}
		s.checkSchema(n, v, r, p)
		checkNumber(n, x, r, p)
		checkCommon(n, v, r, p)
	case []any:
		if !n.admits(tArray, r, p) {
			return
		}
		s.checkSchema(n, v, r, p)
		s.checkArray(n, x, r, p)
		checkCommon(n, v, r, p)
	case map[string]any:
		if !n.admits(tObject, r, p) {
			return
		}
		s.checkSchema(n, v, r, p)
		s.checkObject(n, x, r, p)
		checkCommon(n, v, r, p)
		for _, pr := range n.props {
			if pv, ok := x[pr.name]; ok {
				s.check(pr.node, pv, r, &path{up: p, key: pr.name, index: -1})
			}
		}
	case bool:
		if !n.admits(tBoolean, r, p) {
			return
		}
		s.checkSchema(n, v, r, p)
		checkCommon(n, v, r, p)
	case string:
		if !n.admits(tString, r, p) {
			return
		}
		s.checkSchema(n, v, r, p)
		checkCommon(n, v, r, p)
		s.checkString(n, x, r, p)
	}
	r.score++
}

// admits reports whether n's type allows t, recording the failure if not.
func (n *node) admits(t typeSet, r *result, p *path) bool {
	if n.types == 0 || n.types&t != 0 {
		return true
	}
	r.fail(p, "", n.typeMessage(t))
	return false
}

var typeSetNames = map[typeSet]string{
	tNull: "null", tBoolean: "boolean", tInteger: "integer", tNumber: "number",
	tString: "string", tArray: "array", tObject: "object",
}

func (n *node) typeMessage(given typeSet) string {
	var want []string
	for t := range strings.SplitSeq(strings.Trim(n.typeText, "[]"), ",") {
		want = append(want, typeName(t))
	}
	return fmt.Sprintf("must be %s, not %s", strings.Join(want, " or "), typeName(typeSetNames[given]))
}

// checkSchema is gojsonschema's validateSchema: anyOf, oneOf, allOf, if.
func (s *schema) checkSchema(n *node, v any, r *result, p *path) {
	if len(n.anyOf) > 0 {
		var best *result
		valid := false
		for _, j := range n.anyOf {
			if valid {
				break
			}
			sr := s.sub(j, v, p)
			valid = len(sr.fails) == 0
			if !valid && (best == nil || sr.score > best.score) {
				best = sr
			}
		}
		if !valid {
			r.fail(p, "", "Must validate at least one schema (anyOf)")
			r.merge(best)
		}
	}
	if len(n.oneOf) > 0 {
		valid := 0
		var best *result
		for _, j := range n.oneOf {
			sr := s.sub(j, v, p)
			if len(sr.fails) == 0 {
				valid++
			} else if valid == 0 && (best == nil || sr.score > best.score) {
				best = sr
			}
		}
		if valid != 1 {
			r.fail(p, "", "Must validate one and only one schema (oneOf)")
			if valid == 0 {
				r.merge(best)
			}
		}
	}
	if len(n.allOf) > 0 {
		failed := false
		for _, j := range n.allOf {
			sr := s.sub(j, v, p)
			failed = failed || len(sr.fails) > 0
			r.merge(sr)
		}
		if failed {
			r.score -= 2 // number_all_of, an aggregate: its parts say what failed
		}
	}
	if n.ifN != 0 {
		cond := len(s.sub(n.ifN, v, p).fails) == 0
		branch := n.elseN
		if cond {
			branch = n.thenN
		}
		if branch != 0 {
			if sr := s.sub(branch, v, p); len(sr.fails) > 0 {
				r.score -= 2 // condition_then or _else, an aggregate
				r.merge(sr)
			}
		}
	}
	r.score++
}

// checkCommon is gojsonschema's validateCommon: const and enum.
func checkCommon(n *node, v any, r *result, p *path) {
	if n.has&hasConst != 0 && !sameJSON(v, n.constJSON) {
		r.fail(p, "", fmt.Sprintf("must be %v, not %s", n.constJSON, shown(v)))
	}
	if len(n.enum) > 0 && !slices.ContainsFunc(n.enum, func(e string) bool { return sameJSON(v, e) }) {
		r.fail(p, "", fmt.Sprintf("must be one of %v, not %s", n.enumText, shown(v)))
	}
	r.score++
}

// sameJSON reports whether v, marshalled as gojsonschema compares values
// (marshalWithoutNumber), is want. A string of plain characters
// marshals to itself in quotes, which is checked without marshalling.
func sameJSON(v any, want string) bool {
	if s, ok := v.(string); ok && plain(s) {
		return len(want) == len(s)+2 && want[0] == '"' && want[len(want)-1] == '"' && want[1:len(want)-1] == s
	}
	got, err := marshalWithoutNumber(v)
	return err == nil && got == want
}

// plain reports whether json.Marshal writes s as itself in quotes.
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x80 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// checkArray is gojsonschema's validateArray: items, minItems, maxItems,
// uniqueItems.
func (s *schema) checkArray(n *node, a []any, r *result, p *path) {
	if n.items != 0 {
		for i, v := range a {
			r.merge(s.sub(n.items, v, &path{up: p, index: i}))
		}
	}
	if n.has&hasMinItems != 0 && len(a) < int(n.minItems) {
		if n.minItems == 1 {
			r.fail(p, "", "must not be empty")
		} else {
			r.fail(p, "", fmt.Sprintf("must have at least %d items", n.minItems))
		}
	}
	if n.has&hasMaxItems != 0 && len(a) > int(n.maxItems) {
		r.fail(p, "", fmt.Sprintf("must have at most %d items", n.maxItems))
	}
	if n.has&hasUnique != 0 {
		seen := make(map[string]int, len(a))
		for j, v := range a {
			// The tree's strings are valid UTF-8 (docLoader), on which
			// Marshal is one to one: a string is compared as itself.
			var key string
			if s, ok := v.(string); ok {
				key = "s" + s
			} else {
				m, _ := marshalWithoutNumber(v)
				key = "m" + m
			}
			if i, ok := seen[key]; ok {
				r.fail(p, "", fmt.Sprintf("must not repeat an item (items %d and %d are equal)", i, j))
			}
			seen[key] = j
		}
	}
	r.score++
}

// checkObject is gojsonschema's validateObject: required,
// additionalProperties, propertyNames. The properties themselves are
// checked by check, after checkCommon, as gojsonschema does.
func (s *schema) checkObject(n *node, m map[string]any, r *result, p *path) {
	for _, k := range n.required {
		if _, ok := m[k]; ok {
			r.score++
		} else {
			r.fail(p, k, "is required")
		}
	}
	if n.additional != 0 && n.additional != addTrue {
		for k, v := range m {
			if n.declares(k) {
				continue
			}
			if n.additional == addFalse {
				r.fail(p, k, "is not allowed here (unknown field)")
			} else {
				r.merge(s.sub(n.additional, v, &path{up: p, key: k, index: -1}))
			}
		}
	}
	if n.propertyNames != 0 {
		for k := range m {
			if sr := s.sub(n.propertyNames, k, p); len(sr.fails) > 0 {
				r.fail(p, "", fmt.Sprintf("Property name of %q does not match", k))
				r.merge(sr)
			}
		}
	}
	r.score++
}

// declares reports whether k is one of n's properties (sorted by name).
func (n *node) declares(k string) bool {
	_, found := slices.BinarySearchFunc(n.props, k, func(p prop, k string) int { return strings.Compare(p.name, k) })
	return found
}

// checkString is gojsonschema's validateString: minLength, maxLength (in
// runes), pattern.
func (s *schema) checkString(n *node, str string, r *result, p *path) {
	if n.has&(hasMinLength|hasMaxLength) != 0 {
		count := utf8.RuneCountInString(str)
		if n.has&hasMinLength != 0 && count < int(n.minLength) {
			if n.minLength == 1 {
				r.fail(p, "", "must not be empty")
			} else {
				r.fail(p, "", fmt.Sprintf("must be at least %d characters long", n.minLength))
			}
		}
		if n.has&hasMaxLength != 0 && count > int(n.maxLength) {
			r.fail(p, "", fmt.Sprintf("must be at most %d characters long", n.maxLength))
		}
	}
	if n.pattern != 0 && !s.patterns[n.pattern-1].regexp().MatchString(str) {
		src := s.patterns[n.pattern-1].src
		if name, ok := patternNames[src]; ok {
			r.fail(p, "", fmt.Sprintf("%s, not %s", name, shown(str)))
		} else {
			r.fail(p, "", fmt.Sprintf("must match %s, not %s", src, shown(str)))
		}
	}
	r.score++
}

// checkNumber is gojsonschema's validateNumber: maximum, exclusiveMaximum,
// minimum, exclusiveMinimum.
func checkNumber(n *node, x json.Number, r *result, p *path) {
	if n.has&hasMaximum != 0 && compare(string(x), n.maximum) > 0 {
		r.fail(p, "", fmt.Sprintf("must be at most %s, not %s", n.maxText, shown(x)))
	}
	if n.has&hasExclusiveMaximum != 0 && compare(string(x), n.exclusiveMaximum) >= 0 {
		r.fail(p, "", fmt.Sprintf("must be less than %s, not %s", n.exMaxText, shown(x)))
	}
	if n.has&hasMinimum != 0 && compare(string(x), n.minimum) < 0 {
		r.fail(p, "", fmt.Sprintf("must be at least %s, not %s", n.minText, shown(x)))
	}
	if n.has&hasExclusiveMinimum != 0 && compare(string(x), n.exclusiveMinimum) <= 0 {
		r.fail(p, "", fmt.Sprintf("must be greater than %s, not %s", n.exMinText, shown(x)))
	}
	r.score++
}

// isInteger is gojsonschema's checkJSONInteger: the number's value is a
// whole number (1.0 and 1e2 are), read exactly.
func isInteger(s string) bool {
	if digitsOnly(s) {
		return true
	}
	v, ok := new(big.Rat).SetString(s)
	return ok && v.IsInt()
}

// digitsOnly reports whether s is an integer in plain notation: an
// optional minus and up to 18 digits, which int64 holds.
func digitsOnly(s string) bool {
	t := strings.TrimPrefix(s, "-")
	if t == "" || len(t) > 18 {
		return false
	}
	for i := 0; i < len(t); i++ {
		if t[i] < '0' || t[i] > '9' {
			return false
		}
	}
	return true
}

// compare compares two JSON numbers by value, exactly; a number big.Rat
// cannot read compares as 0, as it does in gojsonschema.
func compare(a, b string) int {
	if digitsOnly(a) && digitsOnly(b) {
		x, _ := strconv.ParseInt(a, 10, 64)
		y, _ := strconv.ParseInt(b, 10, 64)
		return cmpInt(x, y)
	}
	x, ok := new(big.Rat).SetString(a)
	if !ok {
		x = new(big.Rat)
	}
	y, _ := new(big.Rat).SetString(b)
	return x.Cmp(y)
}

func cmpInt(x, y int64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// schemaOf is the kind's compiled schema, or nil for an unknown kind.
func schemaOf(kind Kind) *schema {
	for _, s := range schemaList {
		if s.kind == kind {
			return s
		}
	}
	return nil
}
