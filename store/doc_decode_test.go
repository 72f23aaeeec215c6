package store_test

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/proofloop/proofloop/bench/storegen"
	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// TestDecodeDocIsV1: Doc.Problem and Doc.Statement, which decode with
// json/v2's engine under v1's semantics, give what encoding/json gives, on
// every document of a generated store: every status, issues, responses,
// proposals, leases, the big statements.
func TestDecodeDocIsV1(t *testing.T) {
	root := filepath.Join(t.TempDir(), "contents")
	reserve := map[string]int{}
	for _, shape := range storegen.Shapes {
		reserve[shape] = 1
	}
	if _, err := storegen.Generate(root, storegen.Options{Statements: 30, Reserve: reserve}); err != nil {
		t.Fatal(err)
	}
	s, err := store.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	n := 0
	for _, k := range []model.Kind{model.KindProblem, model.KindStatement} {
		files, _ := filepath.Glob(filepath.Join(root, k.Dir(), "*.json"))
		for _, f := range files {
			id := strings.TrimSuffix(filepath.Base(f), ".json")
			d, err := s.Read(id)
			if err != nil {
				t.Fatal(err)
			}
			var got, want any
			if k == model.KindProblem {
				p, err := d.Problem()
				if err != nil {
					t.Fatal(err)
				}
				var w model.Problem
				if err := json.Unmarshal(d.Raw, &w); err != nil {
					t.Fatal(err)
				}
				got, want = p, &w
			} else {
				st, err := d.Statement()
				if err != nil {
					t.Fatal(err)
				}
				var w model.Statement
				if err := json.Unmarshal(d.Raw, &w); err != nil {
					t.Fatal(err)
				}
				got, want = st, &w
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: decoded %+v; encoding/json decodes %+v", id, got, want)
			}
			n++
		}
	}
	if n < 40 {
		t.Errorf("compared %d documents; the generated store has more", n)
	}
}

// TestCheckJSON: the strict check refuses what the schema validator lets
// through, on its fast path as on the one that explains.
func TestCheckJSON(t *testing.T) {
	for in, ok := range map[string]bool{
		`{"status": "true", "status": "pending"}`: false,
		`{"a": {"b": 1, "b": 2}}`:                 false,
		`{"a": 1} {"b": 2}`:                       false,
		`{"a": 1} x`:                              false,
		"{\"a\": \"\xff\"}":                       false,
		`{"a": 1`:                                 false,
		`{"a": [1, {"b": "c"}], "b": 1}`:          true,
		" {\"a\": 1}\n":                           true,
	} {
		if err := store.CheckJSON([]byte(in)); (err == nil) != ok {
			t.Errorf("CheckJSON(%q) = %v; want ok %t", in, err, ok)
		}
	}
}
