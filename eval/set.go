// Package eval measures agents on labelled items: `proofloop eval` runs a
// role's agents on a set, each item in a scratch store of its own, and
// canaries plant a person's own items among the real work of `proofloop
// run`, sealed outside the project, and settle them once judged. The
// figures of both go to the project's checkers.jsonl, which `status
// --checkers` reads and verify_min_reliability judges by. docs/eval.md
// says what the numbers mean and what they do not.
package eval

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/schemas"
	"github.com/proofloop/proofloop/skills"
	"github.com/proofloop/proofloop/store"
)

// ShippedName names the set shipped in the binary (eval --shipped).
const ShippedName = "shipped"

//go:embed sets/shipped.jsonl
var shipped []byte

// Set is a labelled set: its name (a file's base name, or shipped) and
// its items in file order.
type Set struct {
	Name  string
	Items []model.EvalItem
}

// Shipped is the set the project wrote, embedded in the binary. It is
// public, so it serves eval, the tests and the demo, never as canaries.
func Shipped() *Set {
	s, err := ParseSet(ShippedName, shipped)
	if err != nil {
		panic("the shipped set does not parse: " + err.Error()) // TestShippedSet
	}
	return s
}

// ReadSet reads a set from a file, refusing one larger than max bytes.
func ReadSet(path string, max int64) (*Set, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, store.Errorf(store.CodeInvalidInput, "cannot read the set %s: %v", path, err).
			WithHint("give a labelled set in JSON Lines (docs/eval.md), or --shipped for the set in the binary")
	}
	defer f.Close()
	raw, err := skills.ReadCapped(f, max, "the set "+path)
	if err != nil {
		return nil, err
	}
	return ParseSet(filepath.Base(path), raw) // never its folder: a canary set's is the person's business
}

// ParseSet reads a set's lines: each must be strict JSON, pass
// eval_item.schema.json and model.EvalItem.Check, and have an id no
// earlier line has. Blank lines are skipped. A set with no item is refused.
func ParseSet(name string, raw []byte) (*Set, error) {
	set := &Set{Name: name}
	seen := map[string]int{}
	for n, line := range bytes.Split(raw, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		bad := func(err error) error {
			return store.Errorf(store.CodeInvalidInput, "%s line %d: %v", name, n+1, err).
				WithHint("each line is one item of eval_item.schema.json (docs/eval.md); nothing was run")
		}
		if err := store.CheckJSON(line); err != nil {
			return nil, bad(err)
		}
		if err := schemas.Validate(schemas.EvalItem, line); err != nil {
			return nil, bad(err)
		}
		var it model.EvalItem
		if err := json.Unmarshal(line, &it); err != nil {
			return nil, bad(err)
		}
		if err := it.Check(); err != nil {
			return nil, bad(err)
		}
		if first, ok := seen[it.ID]; ok {
			return nil, bad(fmt.Errorf("id %s is the id of line %d too", it.ID, first))
		}
		seen[it.ID] = n + 1
		set.Items = append(set.Items, it)
	}
	if len(set.Items) == 0 {
		return nil, store.Errorf(store.CodeInvalidInput, "%s has no item", name).
			WithHint("a labelled set has one item a line (docs/eval.md)")
	}
	return set, nil
}

// For is the set's items that measure role, in order.
func (s *Set) For(role model.Role) []model.EvalItem {
	var out []model.EvalItem
	for _, it := range s.Items {
		if it.Role() == role {
			out = append(out, it)
		}
	}
	return out
}
