package schemas

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/tidwall/gjson"
	"github.com/xeipuuv/gojsonschema"
)

// ValidateChange checks after, a new version of before, against the kind's
// schema, where before passes it (the store checked it when it read it). It
// checks only what differs: where a schema node only says "an object with
// these properties, these required" or "an array of these items", the
// document is valid when each of its parts is valid against the part's own
// schema, so a part whose bytes did not change is valid still and is
// skipped, and a changed one is checked on its own. Appending an issue to
// a statement with 300 checks the new issue, the fields the commit
// stamped, and the three keys of validate; not the 300 issues or the proof.
//
// A node with any other keyword (a pattern, an enum, if/then, uniqueItems,
// ...) is checked whole, so the verdict is Validate's: the skip is taken
// only where the schema makes the parts independent. When a part fails,
// or before is empty, or after is smaller than wholeBelow, ValidateChange
// returns Validate(kind, after), whose error names every failure by its
// path in the document.
func ValidateChange(kind Kind, before, after []byte) error {
	if len(after) < wholeBelow || len(before) == 0 || !gjson.ValidBytes(after) {
		return Validate(kind, after)
	}
	root, err := rawSchema(kind)
	if err != nil {
		return err
	}
	c := &change{kind: kind, checked: map[string]bool{}}
	ok, err := c.validPart(root, "#", gjson.ParseBytes(before), gjson.ParseBytes(after))
	if err != nil {
		return err
	}
	if ok {
		return nil
	}
	return Validate(kind, after)
}

// wholeBelow is the size under which a document is checked whole: the
// first check of a part compiles that part's schema, and in a process that
// checks one document (a skill call) that costs more than checking a small
// document whole (3 ms against 0.4 ms for a 3 KB statement).
var wholeBelow = 32 << 10 // a variable for the tests, which check small documents by parts

// splittable lists the keywords of a node that ValidateChange may split:
// annotations, and what makes an object's or an array's parts independent.
var splittable = map[string]bool{
	"$schema": true, "title": true, "description": true, "$comment": true, "definitions": true,
	"type": true, "properties": true, "required": true, "additionalProperties": true, "items": true,
}

// validPart reports whether a, in place of b (valid against node), is
// valid against node; ptr names node in the kind's schema, as a "#/..."
// JSON pointer.
func (c *change) validPart(node map[string]any, ptr string, b, a gjson.Result) (bool, error) {
	if ref, ok := node["$ref"].(string); ok {
		target, err := resolve(c.kind, ref)
		if err != nil {
			return false, err
		}
		node, ptr = target, ref
	}
	if a.Raw == b.Raw {
		return true, nil
	}
	for k := range node {
		if !splittable[k] {
			return c.wholePart(node, ptr, a)
		}
	}
	switch {
	case a.IsObject() && b.IsObject() && allows(node, "object"):
		// Each object's members are read once, in one pass: a gjson Get
		// per key scans from the start, past the 100 KB proof of a big
		// statement for every key after it.
		as, bs := members(a), members(b)
		for _, r := range stringsOf(node["required"]) {
			if _, ok := as.get(r); !ok {
				return false, nil
			}
		}
		props, _ := node["properties"].(map[string]any)
		ok := true
		var err error
		a.ForEach(func(k, v gjson.Result) bool {
			old, was := bs.get(k.Str)
			if was && old.Raw == v.Raw {
				return true // an unchanged part of a valid document is valid
			}
			sub, subPtr := props[k.Str], ptr+"/properties/"+escapePointer(k.Str)
			if sub == nil {
				switch extra := node["additionalProperties"].(type) {
				case bool:
					ok = extra
					return ok
				case map[string]any:
					sub, subPtr = extra, ptr+"/additionalProperties"
				default: // absent: anything goes
					return true
				}
			}
			sm, isMap := sub.(map[string]any)
			if !isMap {
				ok = sub == true
				return ok
			}
			if was {
				ok, err = c.validPart(sm, subPtr, old, v)
			} else {
				ok, err = c.wholePart(sm, subPtr, v)
			}
			return ok && err == nil
		})
		return ok, err
	case a.IsArray() && b.IsArray() && allows(node, "array"):
		items, isMap := node["items"].(map[string]any)
		if !isMap {
			if _, present := node["items"]; present {
				return c.wholePart(node, ptr, a) // a tuple or a boolean
			}
			return true, nil
		}
		bs, as := b.Array(), a.Array()
		for i, v := range as {
			var ok bool
			var err error
			if i < len(bs) {
				ok, err = c.validPart(items, ptr+"/items", bs[i], v)
			} else {
				ok, err = c.wholePart(items, ptr+"/items", v)
			}
			if !ok || err != nil {
				return ok, err
			}
		}
		return true, nil
	}
	return c.wholePart(node, ptr, a)
}

// object is an object's members in order, with where the last lookup
// found one: a lookup starts there, so reading two versions of an object
// key by key, in the same order, is one pass over each.
type object struct {
	keys []string
	vals []gjson.Result
	at   int
}

func members(o gjson.Result) *object {
	m := &object{}
	o.ForEach(func(k, v gjson.Result) bool {
		m.keys, m.vals = append(m.keys, k.Str), append(m.vals, v)
		return true
	})
	return m
}

// get finds key's value. The documents are strict JSON (the store's
// CheckJSON), so a key is there once.
func (m *object) get(key string) (gjson.Result, bool) {
	n := len(m.keys)
	for i := range n {
		j := (m.at + i) % n
		if m.keys[j] == key {
			m.at = j + 1
			return m.vals[j], true
		}
	}
	return gjson.Result{}, false
}

// allows reports whether node's type admits the JSON type t (no type
// admits every one).
func allows(node map[string]any, t string) bool {
	switch ty := node["type"].(type) {
	case nil:
		return true
	case string:
		return ty == t
	default:
		return slices.Contains(stringsOf(ty), t)
	}
}

func stringsOf(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, s := range list {
		if s, ok := s.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// wholePart validates v against node, the part of the kind's schema at
// ptr, with that part compiled on its own (once per process).
// A verdict is kept for the rest of the change: a new proof sets the same
// superseded_at on each of 300 issues, which is one check, not 300.
func (c *change) wholePart(node map[string]any, ptr string, v gjson.Result) (bool, error) {
	key := ptr + "\x00" + v.Raw
	if ok, seen := c.checked[key]; seen {
		return ok, nil
	}
	s, err := partSchema(c.kind, node, ptr)
	if err != nil {
		return false, err
	}
	res, err := s.Validate(newDocLoader([]byte(v.Raw)))
	if err != nil {
		return false, nil // Validate of the whole document says why
	}
	c.checked[key] = res.Valid()
	return res.Valid(), nil
}

// change is one ValidateChange: the kind, and the verdict of each part
// checked whole so far, by its pointer and bytes.
type change struct {
	kind    Kind
	checked map[string]bool
}

var (
	raws  sync.Map // Kind -> *rawEntry
	parts sync.Map // kind + " " + ptr -> *gojsonschema.Schema
)

type rawEntry struct {
	once sync.Once
	m    map[string]any
	err  error
}

// rawSchema is the kind's schema decoded as a tree, once per process.
func rawSchema(kind Kind) (map[string]any, error) {
	e, _ := raws.LoadOrStore(kind, &rawEntry{})
	r := e.(*rawEntry)
	r.once.Do(func() {
		src := Source(kind)
		if src == nil {
			r.err = fmt.Errorf("schemas: unknown kind %q (known: %v)", kind, Kinds())
			return
		}
		r.err = json.Unmarshal(src, &r.m)
	})
	return r.m, r.err
}

// resolve finds a local reference "#/definitions/NAME" in the kind's
// schema; the schemas use no other kind.
func resolve(kind Kind, ref string) (map[string]any, error) {
	root, err := rawSchema(kind)
	if err != nil {
		return nil, err
	}
	const prefix = "#/definitions/"
	if len(ref) > len(prefix) && ref[:len(prefix)] == prefix {
		defs, _ := root["definitions"].(map[string]any)
		if m, ok := defs[ref[len(prefix):]].(map[string]any); ok {
			return m, nil
		}
	}
	return nil, fmt.Errorf("schemas: %s: cannot resolve %s", kind.FileName(), ref)
}

// partSchema compiles node, the part of the kind's schema at ptr, as a
// schema of its own: node beside the kind's definitions, so that its
// references resolve as they do in the whole schema.
func partSchema(kind Kind, node map[string]any, ptr string) (*gojsonschema.Schema, error) {
	key := string(kind) + " " + ptr
	if s, ok := parts.Load(key); ok {
		return s.(*gojsonschema.Schema), nil
	}
	root, err := rawSchema(kind)
	if err != nil {
		return nil, err
	}
	// Only the definitions node refers to, directly or not: compiling
	// is most of what a part costs the first time, in a process that
	// checks a handful of parts.
	all, _ := root["definitions"].(map[string]any)
	defs := map[string]any{}
	var refer func(v any)
	refer = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if ref, ok := v["$ref"].(string); ok {
				name := strings.TrimPrefix(ref, "#/definitions/")
				if _, seen := defs[name]; !seen && all[name] != nil {
					defs[name] = all[name]
					refer(all[name])
				}
			}
			for _, sub := range v {
				refer(sub)
			}
		case []any:
			for _, sub := range v {
				refer(sub)
			}
		}
	}
	refer(node)
	const self = "proofloop_part"
	defs[self] = node
	src, err := json.Marshal(map[string]any{"$schema": root["$schema"], "definitions": defs, "$ref": "#/definitions/" + self})
	if err != nil {
		return nil, err
	}
	s, err := gojsonschema.NewSchema(gojsonschema.NewBytesLoader(src))
	if err != nil {
		return nil, fmt.Errorf("schemas: compile %s at %s: %w", kind.FileName(), ptr, err)
	}
	parts.Store(key, s)
	return s, nil
}

// escapePointer escapes a key for a JSON pointer (RFC 6901).
func escapePointer(k string) string {
	out := make([]byte, 0, len(k))
	for i := 0; i < len(k); i++ {
		switch k[i] {
		case '~':
			out = append(out, '~', '0')
		case '/':
			out = append(out, '~', '1')
		default:
			out = append(out, k[i])
		}
	}
	return string(out)
}
