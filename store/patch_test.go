package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tidwall/pretty"
	"github.com/tidwall/sjson"
	"github.com/wI2L/jsondiff"
)

// wholeDiff is jsondiff over the whole documents, written as Patch writes
// its result: what Patch must equal, byte for byte.
func wholeDiff(t *testing.T, before, after string) string {
	t.Helper()
	p, err := jsondiff.CompareJSON([]byte(before), []byte(after))
	if err != nil {
		t.Fatalf("jsondiff(%s, %s): %v", before, after, err)
	}
	if p == nil {
		return "[]"
	}
	raw, _ := json.Marshal(p)
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var ops []map[string]any
	if err := dec.Decode(&ops); err != nil {
		t.Fatal(err)
	}
	out, _ := Marshal(ops)
	return string(out)
}

// TestPatchIsTheWholeDiff: the patch built from what differs is the very
// patch jsondiff gives over the whole documents (the log holds it, and
// doctor replays it): objects, arrays appended to, shortened and changed
// in the middle, equal elements around a changed one, type changes, values
// equal in another spelling, at the root and nested.
func TestPatchIsTheWholeDiff(t *testing.T) {
	for _, c := range []struct{ before, after string }{
		{`{}`, `{"a":1,"b":{"c":[1,2]}}`},
		{`{"a":1,"b":2,"big":"x"}`, `{"a":1,"b":3,"big":"x"}`},
		{`{"a":1,"gone":[1]}`, `{"a":1}`},
		{`{"v":{"issues":[{"n":1}],"r":[]},"p":"long proof"}`, `{"v":{"issues":[{"n":1},{"n":2}],"r":[]},"p":"long proof"}`},
		{`{"v":{"issues":[{"n":1},{"n":2},{"n":3}]}}`, `{"v":{"issues":[{"n":1},{"n":2,"w":"t"},{"n":3}]}}`},
		{`{"l":[1,2,3,4]}`, `{"l":[1,2]}`},
		{`{"l":[1,2,3,4]}`, `{"l":[1,9]}`},
		{`{"l":[]}`, `{"l":[{"a":1},{"a":2}]}`},
		{`{"l":[1,[2,3],4]}`, `{"l":[1,[2,5,6],4]}`},
		{`{"a":{"x":1}}`, `{"a":[1]}`},
		{`{"a":null}`, `{"a":{"x":1}}`},
		{`{"a":1.0,"b":{"z":1,"y":2}}`, `{"a":1,"b":{"y":2,"z":1}}`},
		{`{"a":"x\"y"}`, `{"a":"x\"z","new key":null}`},
		{`{"a <b>":1}`, `{"a <b>":2}`},
		{`{"p":"x"}`, `{"p":"n >= 1 & m < 2, \\u003c kept, \\\\u003e too, \u2028, \u00e9, \ud83d\ude00, \u0001","q":[1e21,1.5,-0,1E2]}`},
		{`{"i":[{"a":"<"}]}`, `{"i":[{"a":"<"},{"z":"&","b":">"}]}`},
		{`[1,2]`, `[1,3,4]`},
		{`[1,2]`, `{"a":1}`},
		{`"s"`, `"t"`},
	} {
		got, err := Patch([]byte(c.before), []byte(c.after))
		if err != nil {
			t.Fatalf("Patch(%s, %s): %v", c.before, c.after, err)
		}
		if want := wholeDiff(t, c.before, c.after); string(got) != want {
			t.Errorf("Patch(%s, %s) = %s; want %s", c.before, c.after, got, want)
		}
	}
}

// TestPatchIsTheWholeDiffOfEdits: the same on a statement-like document
// edited as the skills edit one (appends, sets, deletes at random paths),
// with pretty-printing around the edit as the store writes it.
func TestPatchIsTheWholeDiffOfEdits(t *testing.T) {
	doc := `{"id":"stmt_x","proof":"` + strings.Repeat("A sentence. ", 50) + `","round":1,"validate":{"issues":[],"responses":[],"confirmations":[]}}`
	for i := range 20 {
		doc, _ = sjson.Set(doc, "validate.issues.-1", map[string]any{"issue_number": i + 1, "sentence": 2, "open": true})
	}
	r := rand.New(rand.NewPCG(1, 2))
	edits := []func(string) string{
		func(d string) string {
			d, _ = sjson.Set(d, "validate.issues.-1", map[string]any{"issue_number": 99})
			return d
		},
		func(d string) string {
			d, _ = sjson.Set(d, fmt.Sprintf("validate.issues.%d.open", r.IntN(20)), false)
			return d
		},
		func(d string) string {
			d, _ = sjson.Set(d, fmt.Sprintf("validate.issues.%d.superseded_at", r.IntN(20)), "2026-11-26T00:00:00Z")
			return d
		},
		func(d string) string { d, _ = sjson.Delete(d, fmt.Sprintf("validate.issues.%d", r.IntN(20))); return d },
		func(d string) string { d, _ = sjson.Set(d, "proof", "A new proof."); return d },
		func(d string) string { d, _ = sjson.Set(d, "round", r.IntN(5)); return d },
		func(d string) string { d, _ = sjson.Set(d, "validate.responses.-1", map[string]any{"n": 1}); return d },
		func(d string) string { d, _ = sjson.Delete(d, "round"); return d },
	}
	for i := range 200 {
		after := doc
		for range 1 + r.IntN(3) {
			after = edits[r.IntN(len(edits))](after)
		}
		if i%2 == 1 {
			after = string(pretty.Pretty([]byte(after)))
		}
		got, err := Patch([]byte(doc), []byte(after))
		if err != nil {
			t.Fatal(err)
		}
		if want := wholeDiff(t, doc, after); string(got) != want {
			t.Fatalf("Patch(%s, %s) = %s; want %s", doc, after, got, want)
		}
	}
}
