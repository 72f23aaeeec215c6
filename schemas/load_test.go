package schemas

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// TestDocLoaderTree checks that the fast loader gives gojsonschema the
// tree encoding/json with UseNumber gives, on every schema (large nested
// documents of every JSON kind) and on a document of edge cases.
func TestDocLoaderTree(t *testing.T) {
	docs := [][]byte{[]byte(`{"a":[1,-2.5e3,0.10,true,false,null,"x\u00e9\n",{"":[]},{}],"b":"\ud83d\ude00","n":12345678901234567890}`)}
	paths, _ := filepath.Glob("*.schema.json")
	if len(paths) == 0 {
		t.Fatal("no schemas to decode")
	}
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, raw)
	}
	for i, doc := range docs {
		got, err := decodeTree(jsontext.NewDecoder(bytes.NewReader(doc)))
		if err != nil {
			t.Fatalf("doc %d: %v", i, err)
		}
		dec := json.NewDecoder(bytes.NewReader(doc))
		dec.UseNumber()
		var want any
		if err := dec.Decode(&want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("doc %d: the fast tree differs from encoding/json's", i)
		}
	}
}
