package doctor

import (
	"bytes"
	"testing"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"github.com/proofloop/proofloop/store"
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

// scanLog checks its lines in batches: the seqs and the chain run across
// them, so a log cut into one-line batches reads as it does whole.
func TestScanLogAcrossBatches(t *testing.T) {
	defer func(n int) { logBatch = n }(logBatch)
	for _, c := range []struct {
		name     string
		edit     func(lines [][]byte) [][]byte
		code     string
		seq      int
		verified int
	}{
		{"clean", func(l [][]byte) [][]byte { return l }, "", 0, 4},
		{"a line edited", func(l [][]byte) [][]byte {
			l[1] = bytes.Replace(l[1], []byte(`"test-wrap"`), []byte(`"test-warp"`), 1)
			return l
		}, "chain_broken", 2, 1},
		{"a line edited and resealed", func(l [][]byte) [][]byte {
			l[1] = reseal(bytes.Replace(l[1], []byte(`"test-wrap"`), []byte(`"test-warp"`), 1))
			return l
		}, "chain_broken", 3, 2},
		{"a line removed", func(l [][]byte) [][]byte { return append(l[:2:2], l[3:]...) }, "event_gap", 4, 2},
	} {
		var reports []*Report
		for _, batch := range []int{4 << 20, 1} {
			logBatch = batch
			s, dir, _ := damageStore(t)
			editLines(t, dir, c.edit)
			r, err := Full(s)
			if err != nil {
				t.Fatal(err)
			}
			if r.Log.VerifiedSeq != c.verified || r.Log.Events != 4-map[bool]int{true: 1}[c.code == "event_gap"] {
				t.Errorf("%s, batches of %d bytes: %d events, verified up to seq %d; want seq %d", c.name, batch, r.Log.Events, r.Log.VerifiedSeq, c.verified)
			}
			found := false
			for _, f := range r.Findings {
				found = found || f.Code == c.code && f.Path == store.EventsFile && f.Seq == c.seq
			}
			if c.code != "" && !found || c.code == "" && len(r.Findings) > 0 {
				t.Errorf("%s, batches of %d bytes: want %s at seq %d, got %+v", c.name, batch, c.code, c.seq, r.Findings)
			}
			reports = append(reports, r)
		}
		if a, b := reports[0].Findings, reports[1].Findings; len(a) != len(b) {
			t.Errorf("%s: %d findings in one batch, %d in one-line batches", c.name, len(a), len(b))
		}
	}
}
