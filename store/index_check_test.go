package store

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proofloop/proofloop/model"
)

// deriveStream trusts the full check's schema check of a document only for
// the bytes that passed it: a document whose bytes changed since is checked
// again, and its damage stops the derivation as it would without the
// first pass.
func TestDeriveStreamRechecksChangedBytes(t *testing.T) {
	s, dir := testStore(t)
	mustCreate(t, s, "prob_x", "prob_y")
	const prob = "problem/prob_x.json"
	first := NewFirstPass()
	first.listed = true
	for _, id := range []string{"prob_x", "prob_y"} {
		k, _ := model.KindOf(id)
		raw := readFile(t, dir, DocPath(k, id))
		first.Link(&Doc{ID: id, Kind: k, Raw: raw})
		first.Checked(id, raw)
	}
	plain, err := deriveStream(s.src(), model.Policy{MaxRounds: 3}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := deriveStream(s.src(), model.Policy{MaxRounds: 3}, first)
	if err != nil {
		t.Fatal(err)
	}
	for id, r := range plain {
		a, _ := json.Marshal(r)
		b, _ := json.Marshal(got[id])
		if !bytes.Equal(a, b) {
			t.Errorf("the row of %s from the first pass is %s; read afresh it is %s", id, b, a)
		}
	}
	edited := strings.Replace(string(readFile(t, dir, prob)), `"status": "pending"`, `"status": "nonsense"`, 1)
	if err := os.WriteFile(filepath.Join(dir, prob), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := deriveStream(s.src(), model.Policy{MaxRounds: 3}, first); err == nil {
		t.Error("a document edited after the first pass into one its schema refuses was derived without its check")
	}
}
