package schemas

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// A schema is compiled into nodes by compileKinds when the package is
// generated (go generate ./schemas writes compiled.go), never in a
// running binary: gojsonschema's compile of the statement and config
// schemas was a sixth of a skill call's CPU. The nodes are Go data that
// the linker lays out, so a process starts with every schema ready.
//
// compileKinds accepts exactly the keywords the validator (validate.go)
// implements, with gojsonschema's reading of each (draft-07); any other
// keyword is an error that names it, so a schema never says more than
// what is checked. TestCompiledAgreesWithGojsonschema holds the verdicts
// and the failures equal to gojsonschema's on the test corpus.

// node is one compiled schema object. Indexes of other nodes are into its
// schema's nodes; 0 means none (nodes[0] is unused, nodes[1] is the root).
type node struct {
	ref   int32   // $ref: the document is checked against nodes[ref] only
	types typeSet // "type"; 0: untyped
	// typeText is "type" as gojsonschema prints it in an invalid_type
	// error: "string", or "[string,null]" for a list.
	typeText string
	has      limits // which of the limits below are set
	// minLength and the rest, as the schema gives them.
	minLength, maxLength, minItems, maxItems int32
	// minimum and maximum as written in the schema, and as gojsonschema
	// prints them (a big.Float of the bound).
	minimum, maximum, minText, maxText string
	// exclusiveMinimum and exclusiveMaximum (draft-07: numbers), likewise.
	exclusiveMinimum, exclusiveMaximum, exMinText, exMaxText string
	pattern                                                  int32    // 1 + index into the schema's patterns; 0 none
	enum                                                     []string // each value marshalled as gojsonschema compares it
	enumText                                                 string   // the values joined by ", ", as gojsonschema prints them
	constJSON                                                string   // const, marshalled likewise
	required                                                 []string
	props                                                    []prop // properties, sorted by name
	// additional is additionalProperties: 0 absent (anything goes),
	// addFalse, addTrue or a node.
	additional                       int32
	items                            int32 // a single items schema; 0 none
	ifN, thenN, elseN, propertyNames int32
	allOf, anyOf, oneOf              []int32
	partsOnly                        bool // only type, properties, required, additionalProperties, items (ValidateChange splits it)
}

type prop struct {
	name string
	node int32
}

type typeSet uint8

const (
	tNull typeSet = 1 << iota
	tBoolean
	tInteger
	tNumber
	tString
	tArray
	tObject
)

var typeBits = map[string]typeSet{
	"null": tNull, "boolean": tBoolean, "integer": tInteger, "number": tNumber,
	"string": tString, "array": tArray, "object": tObject,
}

type limits uint16

const (
	hasMinLength limits = 1 << iota
	hasMaxLength
	hasMinItems
	hasMaxItems
	hasMinimum
	hasMaximum
	hasConst
	hasUnique
	hasExclusiveMinimum
	hasExclusiveMaximum
)

const (
	addFalse int32 = -1
	addTrue  int32 = -2
)

// annotations are the keywords that say nothing about validity.
var annotations = map[string]bool{
	"$schema": true, "$id": true, "$comment": true, "title": true, "description": true,
	"default": true, "examples": true, "definitions": true,
}

// compiler compiles one kind's schema.
type compiler struct {
	nodes    []node
	patterns []string
	file     string         // the schema being compiled, for errors
	root     map[string]any // its decoded text, for $ref
	refs     map[string]int32
}

// compiled is one kind's schema as compileKinds makes it: what the
// generated file holds as a schema.
type compiled struct {
	kind     Kind
	nodes    []node
	patterns []string
	sum      [sha256.Size]byte // SHA-256 of the schema file
	// order lists the top-level properties in the order the file
	// declares them (PropertyOrder).
	order []string
}

// compileKinds compiles the schema of each kind, read by read (the files
// in this folder when generating, the embedded ones in the tests). Each
// kind is compiled on its own, so that a change to one schema changes only
// its part of the generated file.
func compileKinds(kinds []Kind, read func(Kind) ([]byte, error)) ([]compiled, error) {
	var out []compiled
	for _, k := range kinds {
		src, err := read(k)
		if err != nil {
			return nil, err
		}
		d := json.NewDecoder(bytes.NewReader(src))
		d.UseNumber()
		var root map[string]any
		if err := d.Decode(&root); err != nil {
			return nil, fmt.Errorf("schemas: %s: %w", k.FileName(), err)
		}
		c := &compiler{nodes: []node{{}}, file: k.FileName(), root: root, refs: map[string]int32{}}
		if _, err := c.compile(root, "#"); err != nil {
			return nil, err
		}
		out = append(out, compiled{kind: k, nodes: c.nodes, patterns: c.patterns, sum: sha256.Sum256(src), order: declaredOrder(src)})
	}
	return out, nil
}

// declaredOrder lists the top-level properties of a schema in file order.
func declaredOrder(src []byte) []string {
	var keys []string
	gjson.GetBytes(src, "properties").ForEach(func(key, _ gjson.Result) bool {
		keys = append(keys, key.String())
		return true
	})
	return keys
}

// compile adds the schema object s (at ptr in the file) and returns its
// node's index.
func (c *compiler) compile(s map[string]any, ptr string) (int32, error) {
	i := int32(len(c.nodes))
	c.nodes = append(c.nodes, node{})
	n := node{partsOnly: true}
	fail := func(format string, args ...any) (int32, error) {
		return 0, fmt.Errorf("schemas: %s at %s: %s", c.file, ptr, fmt.Sprintf(format, args...))
	}
	if ref, ok := s["$ref"]; ok {
		for k := range s {
			if k != "$ref" && !annotations[k] {
				return fail("$ref beside %q: gojsonschema ignores every other keyword of the object", k)
			}
		}
		r, ok := ref.(string)
		if !ok {
			return fail("$ref is not a string")
		}
		target, err := c.resolve(r)
		if err != nil {
			return fail("%v", err)
		}
		c.nodes[i] = node{ref: target}
		return i, nil
	}
	for _, k := range slices.Sorted(maps.Keys(s)) {
		v := s[k]
		if annotations[k] {
			continue
		}
		if !splitKeywords[k] {
			n.partsOnly = false
		}
		var err error
		switch k {
		case "type":
			err = c.types(&n, v)
		case "minLength", "maxLength", "minItems", "maxItems":
			err = c.count(&n, k, v)
		case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
			err = c.bound(&n, k, v)
		case "pattern":
			err = c.pattern(&n, v)
		case "enum":
			err = c.enum(&n, v)
		case "const":
			n.has |= hasConst
			n.constJSON, err = marshalWithoutNumber(v)
		case "uniqueItems":
			b, ok := v.(bool)
			if !ok {
				return fail("uniqueItems is not a boolean")
			}
			if b {
				n.has |= hasUnique
			}
		case "required":
			err = c.required(&n, v)
		case "properties":
			err = c.properties(&n, v, ptr)
		case "additionalProperties":
			switch v := v.(type) {
			case bool:
				n.additional = addFalse
				if v {
					n.additional = addTrue
				}
			case map[string]any:
				n.additional, err = c.compile(v, ptr+"/additionalProperties")
			default:
				return fail("additionalProperties is neither a boolean nor a schema")
			}
		case "items", "if", "then", "else", "propertyNames":
			sub, ok := v.(map[string]any)
			if !ok {
				return fail("%s is not a schema object (only one items schema is supported)", k)
			}
			var j int32
			if j, err = c.compile(sub, ptr+"/"+k); err == nil {
				*child(&n, k) = j
			}
		case "allOf", "anyOf", "oneOf":
			err = c.list(&n, k, v, ptr)
		default:
			return fail("keyword %q is not supported by the compiled validator (schemas/compile.go, validate.go)", k)
		}
		if err != nil {
			if strings.HasPrefix(err.Error(), "schemas: ") {
				return 0, err
			}
			return fail("%s: %v", k, err)
		}
	}
	c.nodes[i] = n
	return i, nil
}

// splitKeywords are those ValidateChange may split a node by: what makes
// an object's or an array's parts independent of each other.
var splitKeywords = map[string]bool{
	"type": true, "properties": true, "required": true, "additionalProperties": true, "items": true,
}

func child(n *node, k string) *int32 {
	switch k {
	case "items":
		return &n.items
	case "if":
		return &n.ifN
	case "then":
		return &n.thenN
	case "else":
		return &n.elseN
	}
	return &n.propertyNames
}

func (c *compiler) types(n *node, v any) error {
	var names []string
	switch v := v.(type) {
	case string:
		names = []string{v}
	case []any:
		for _, t := range v {
			s, ok := t.(string)
			if !ok {
				return errors.New("a type is not a string")
			}
			names = append(names, s)
		}
	default:
		return errors.New("neither a string nor a list")
	}
	for _, t := range names {
		bit, ok := typeBits[t]
		if !ok || n.types&bit != 0 {
			return fmt.Errorf("%q is unknown or repeated", t)
		}
		n.types |= bit
	}
	n.typeText = names[0]
	if len(names) > 1 {
		n.typeText = "[" + strings.Join(names, ",") + "]"
	}
	return nil
}

func (c *compiler) count(n *node, k string, v any) error {
	num, ok := v.(json.Number)
	i, err := strconv.ParseInt(string(num), 10, 32)
	if !ok || err != nil || i < 0 {
		return errors.New("not a non-negative integer")
	}
	switch k {
	case "minLength":
		n.has, n.minLength = n.has|hasMinLength, int32(i)
	case "maxLength":
		n.has, n.maxLength = n.has|hasMaxLength, int32(i)
	case "minItems":
		n.has, n.minItems = n.has|hasMinItems, int32(i)
	default:
		n.has, n.maxItems = n.has|hasMaxItems, int32(i)
	}
	return nil
}

func (c *compiler) bound(n *node, k string, v any) error {
	num, ok := v.(json.Number)
	r, valid := new(big.Rat).SetString(string(num))
	if !ok || !valid {
		return errors.New("not a number")
	}
	text := fmt.Sprint(new(big.Float).SetRat(r)) // as gojsonschema prints it
	switch k {
	case "minimum":
		n.has, n.minimum, n.minText = n.has|hasMinimum, string(num), text
	case "maximum":
		n.has, n.maximum, n.maxText = n.has|hasMaximum, string(num), text
	case "exclusiveMinimum":
		n.has, n.exclusiveMinimum, n.exMinText = n.has|hasExclusiveMinimum, string(num), text
	default:
		n.has, n.exclusiveMaximum, n.exMaxText = n.has|hasExclusiveMaximum, string(num), text
	}
	return nil
}

func (c *compiler) pattern(n *node, v any) error {
	p, ok := v.(string)
	if !ok {
		return errors.New("not a string")
	}
	if _, err := regexp.Compile(p); err != nil {
		return err
	}
	at := slices.Index(c.patterns, p)
	if at < 0 {
		at = len(c.patterns)
		c.patterns = append(c.patterns, p)
	}
	n.pattern = int32(at + 1)
	return nil
}

func (c *compiler) enum(n *node, v any) error {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return errors.New("not a non-empty list")
	}
	for _, e := range list {
		s, err := marshalWithoutNumber(e)
		if err != nil {
			return err
		}
		if slices.Contains(n.enum, s) {
			return fmt.Errorf("%s is repeated", s)
		}
		n.enum = append(n.enum, s)
	}
	n.enumText = strings.Join(n.enum, ", ")
	return nil
}

func (c *compiler) required(n *node, v any) error {
	list, ok := v.([]any)
	if !ok {
		return errors.New("not a list")
	}
	for _, r := range list {
		s, ok := r.(string)
		if !ok || slices.Contains(n.required, s) {
			return fmt.Errorf("%v is not a string or is repeated", r)
		}
		n.required = append(n.required, s)
	}
	return nil
}

func (c *compiler) properties(n *node, v any, ptr string) error {
	m, ok := v.(map[string]any)
	if !ok {
		return errors.New("not an object")
	}
	for _, name := range slices.Sorted(maps.Keys(m)) {
		sub, ok := m[name].(map[string]any)
		if !ok {
			return fmt.Errorf("%s is not a schema object", name)
		}
		j, err := c.compile(sub, ptr+"/properties/"+escapePointer(name))
		if err != nil {
			return err
		}
		n.props = append(n.props, prop{name: name, node: j})
	}
	return nil
}

func (c *compiler) list(n *node, k string, v any, ptr string) error {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return errors.New("not a non-empty list")
	}
	var out []int32
	for i, e := range list {
		sub, ok := e.(map[string]any)
		if !ok {
			return fmt.Errorf("item %d is not a schema object", i)
		}
		j, err := c.compile(sub, ptr+"/"+k+"/"+strconv.Itoa(i))
		if err != nil {
			return err
		}
		out = append(out, j)
	}
	switch k {
	case "allOf":
		n.allOf = out
	case "anyOf":
		n.anyOf = out
	default:
		n.oneOf = out
	}
	return nil
}

// resolve compiles the target of a local reference "#/definitions/NAME"
// once per file.
func (c *compiler) resolve(ref string) (int32, error) {
	if i, ok := c.refs[ref]; ok {
		return i, nil
	}
	name, ok := strings.CutPrefix(ref, "#/definitions/")
	defs, _ := c.root["definitions"].(map[string]any)
	target, found := defs[unescapePointer(name)].(map[string]any)
	if !ok || !found {
		return 0, fmt.Errorf("cannot resolve $ref %s (only #/definitions/NAME)", ref)
	}
	// Reserve the index first: a definition may refer to itself.
	i := int32(len(c.nodes))
	c.refs[ref] = i
	j, err := c.compile(target, ref)
	if err != nil {
		return 0, err
	}
	if j != i {
		return 0, fmt.Errorf("internal: %s compiled at %d, not %d", ref, j, i)
	}
	return i, nil
}

func unescapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
}

// marshalWithoutNumber is gojsonschema's: the value encoded, decoded into
// float64s and encoded again, so that 1 and 1.0 compare equal.
func marshalWithoutNumber(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		return "", err
	}
	b, err = json.Marshal(doc)
	return string(b), err
}
