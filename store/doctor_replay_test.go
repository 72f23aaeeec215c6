package store

import (
	"testing"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"github.com/tidwall/gjson"
)

// createdBy stands in for jsonpatch's Apply on a creation patch: where it
// takes a patch, its document must be jsonpatch's, and it must leave every
// other patch to jsonpatch.
func TestCreatedByIsJSONPatch(t *testing.T) {
	for _, c := range []struct {
		state, patch string
		fast         bool
	}{
		{`{}`, `[{"op":"add","path":"/id","value":"stmt_a"},{"op":"add","path":"/n","value":1.50},{"op":"add","path":"/x","value":null},{"op":"add","path":"/o","value":{"a":[1,{"b":"\u003c"}]}}]`, true},
		{`{}`, `[{"op":"add","path":"/caf\u00e9","value":true}]`, true},
		{`{}`, `[]`, true},
		{`{}`, `[{"op":"add","path":"/a","value":1},{"op":"add","path":"/a","value":2}]`, false}, // the second add replaces
		{`{}`, `[{"op":"add","path":"/a/b","value":1}]`, false},
		{`{}`, `[{"op":"add","path":"/a~1b","value":1}]`, false},
		{`{}`, `[{"op":"add","path":"\/a","value":1}]`, false},
		{`{}`, `[{"op":"add","path":"","value":[1]}]`, false},
		{`{}`, `[{"op":"add","path":"/","value":1}]`, false},
		{`{}`, `[{"op":"replace","path":"/a","value":1}]`, false},
		{`{}`, `[{"op":"add","path":"/a"}]`, false},
		{`{}`, `[{"op":"add","path":"/a","value":1,"from":"/b"}]`, false},
		{`{}`, `[{"op":"add","path":"/a","value":1,"value":2}]`, false},
		{`{}`, `[1]`, false},
		{`{}`, `{"op":"add"}`, false},
		{`{"a":1}`, `[{"op":"add","path":"/b","value":1}]`, false},
	} {
		got, ok := createdBy([]byte(c.state), []byte(c.patch))
		if ok != c.fast {
			t.Errorf("createdBy(%s, %s): took it %v, want %v", c.state, c.patch, ok, c.fast)
			continue
		}
		if !ok {
			continue
		}
		p, err := jsonpatch.DecodePatch([]byte(c.patch))
		if err != nil {
			t.Fatalf("%s: %v", c.patch, err)
		}
		want, err := p.Apply([]byte(c.state))
		if err != nil {
			t.Fatalf("%s: %v", c.patch, err)
		}
		if !gjson.ValidBytes(got) || !jsonpatch.Equal(got, want) {
			t.Errorf("createdBy(%s) = %s, jsonpatch gives %s", c.patch, got, want)
		}
	}
}

// sameValue may say "the same" only where jsonpatch.Equal does.
func TestSameValueAgreesWithEqual(t *testing.T) {
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{`{"a":1,"b":[1,"x"]}`, `{ "b" : [ 1, "x" ], "a" : 1 }`, true},
		{`{"s":"\u003c"}`, `{"s":"<"}`, true},
		{`{"a":1}`, `{"a":1.0}`, false},
		{`{"a":1}`, `{"a":1,"b":2}`, false},
		{`{"a":1,"b":2}`, `{"a":1}`, false},
		{`{"a":1,"a":1}`, `{"a":1,"b":1}`, false},
		{`{"a":1,"b":1}`, `{"a":1,"a":1}`, false},
		{`[1,2]`, `[2,1]`, false},
		{`[1,2]`, `[1,2,3]`, false},
		{`{"a":null}`, `{"a":false}`, false},
		{`{"a":{}}`, `{"a":[]}`, false},
		{`{"a":"1"}`, `{"a":1}`, false},
	} {
		got := sameValue(gjson.Parse(c.a), gjson.Parse(c.b))
		if got != c.same {
			t.Errorf("sameValue(%s, %s) = %v, want %v", c.a, c.b, got, c.same)
		}
		if got && !jsonpatch.Equal([]byte(c.a), []byte(c.b)) {
			t.Errorf("sameValue(%s, %s): jsonpatch.Equal says they differ", c.a, c.b)
		}
	}
}
