package store

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// TestJournalEncode: the journal's own encoder gives one line that decodes
// to what Marshal's does, for text that needs escaping or must not be
// escaped, and every kind of write.
func TestJournalEncode(t *testing.T) {
	at, zero := int64(1234), int64(0)
	text := "a \"quote\", a \\ backslash, <b> & </b>, \t tab\nnew line\r\x01\x1f\x7f, é, 😀, \u2028\u2029 and $x > 0$"
	j := journal{Seq: 42, Event: json.RawMessage(`{"seq":42,"command":"x","detail":{"t":"<a> & \"b\""},"hash":"ab"}`),
		Writes: []journalWrite{
			{Path: "statement/stmt_x.json", Content: "{\n  \"proof\": \"" + text + "\"\n}"},
			{Path: "events.jsonl", Content: text + "\n", At: &at},
			{Path: "events.jsonl", At: &at, EventLine: true},
			{Path: "leases/x.json", Remove: true},
			{Path: "empty", Content: "", At: &zero},
			{Path: IndexFile, KV: []kvOp{{B: "items", K: "stmt_x", V: `{"id":"stmt_x"}`}, {B: "turn", K: "check\x00" + "0001\x00stmt_x", D: true}, {B: "meta", K: "seq"}}},
		}}
	j.Checksum = j.sum()
	got, err := j.encode()
	if err != nil {
		t.Fatal(err)
	}
	if bytes.IndexByte(got, '\n') >= 0 {
		t.Errorf("encode() has a line break; a journal is one line of the log:\n%s", got)
	}
	want, err := Marshal(j)
	if err != nil {
		t.Fatal(err)
	}
	var g, w journal
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("encode() = %s: %v", got, err)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("encode() decodes to\n%+v\nMarshal to\n%+v", g, w)
	}
	if !bytes.Equal(g.Event, j.Event) || g.sum() != j.Checksum {
		t.Errorf("encode() changed the event line or the checksum: %s", got)
	}
	// Not UTF-8: Marshal's encoding, which replaces what is not.
	j.Writes[0].Content = "\xff"
	if got, _ := j.encode(); !bytes.Contains(got, []byte(`\ufffd`)) {
		t.Errorf("encode() of invalid UTF-8 = %s; want Marshal's replacement", got)
	}
}
