package schemas

import (
	"slices"
	"strings"

	"github.com/tidwall/gjson"
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
	sc := schemaOf(kind)
	if sc == nil || len(after) < wholeBelow || len(before) == 0 || !gjson.ValidBytes(after) {
		return Validate(kind, after)
	}
	c := &change{schema: sc, checked: map[checkedPart]bool{}}
	if c.validPart(1, gjson.ParseBytes(before), gjson.ParseBytes(after)) {
		return nil
	}
	return Validate(kind, after)
}

// wholeBelow is the size under which a document is checked whole: below
// it, splitting costs more than it saves.
var wholeBelow = 32 << 10 // a variable for the tests, which check small documents by parts

// validPart reports whether a, in place of b (valid against node i), is
// valid against node i.
func (c *change) validPart(i int32, b, a gjson.Result) bool {
	for c.schema.nodes[i].ref != 0 {
		i = c.schema.nodes[i].ref
	}
	n := &c.schema.nodes[i]
	if a.Raw == b.Raw {
		return true
	}
	if !n.partsOnly {
		return c.wholePart(i, a)
	}
	switch {
	case a.IsObject() && b.IsObject() && (n.types == 0 || n.types&tObject != 0):
		// Each object's members are read once, in one pass: a gjson Get
		// per key scans from the start, past the 100 KB proof of a big
		// statement for every key after it.
		as, bs := members(a), members(b)
		for _, r := range n.required {
			if _, ok := as.get(r); !ok {
				return false
			}
		}
		ok := true
		a.ForEach(func(k, v gjson.Result) bool {
			old, was := bs.get(k.Str)
			if was && old.Raw == v.Raw {
				return true // an unchanged part of a valid document is valid
			}
			j := n.propNode(k.Str)
			if j == 0 {
				switch n.additional {
				case addFalse:
					ok = false
					return false
				case 0, addTrue: // anything goes
					return true
				}
				j = n.additional
			}
			if was {
				ok = c.validPart(j, old, v)
			} else {
				ok = c.wholePart(j, v)
			}
			return ok
		})
		return ok
	case a.IsArray() && b.IsArray() && (n.types == 0 || n.types&tArray != 0):
		if n.items == 0 {
			return true
		}
		bs, as := b.Array(), a.Array()
		for k, v := range as {
			var ok bool
			if k < len(bs) {
				ok = c.validPart(n.items, bs[k], v)
			} else {
				ok = c.wholePart(n.items, v)
			}
			if !ok {
				return false
			}
		}
		return true
	}
	return c.wholePart(i, a)
}

// propNode is the node of n's property k, or 0 when n does not declare it.
func (n *node) propNode(k string) int32 {
	at, found := slices.BinarySearchFunc(n.props, k, func(p prop, k string) int { return strings.Compare(p.name, k) })
	if !found {
		return 0
	}
	return n.props[at].node
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

// wholePart validates v against node i. A verdict is kept for the rest
// of the change: a new proof sets the same superseded_at on each of 300
// issues, which is one check, not 300.
func (c *change) wholePart(i int32, v gjson.Result) bool {
	key := checkedPart{i, v.Raw}
	if ok, seen := c.checked[key]; seen {
		return ok
	}
	tree, err := decodeDoc([]byte(v.Raw))
	ok := err == nil && len(c.schema.sub(i, tree, nil).fails) == 0
	c.checked[key] = ok
	return ok
}

// change is one ValidateChange: the verdict of each part checked whole so
// far, by its node and bytes.
type change struct {
	schema  *schema
	checked map[checkedPart]bool
}

type checkedPart struct {
	node int32
	raw  string
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
