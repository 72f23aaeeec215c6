package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/schemas"
)

// source is what the store reads documents and files from: the root's
// files, a Backend, or one of its transactions. A missing document or file
// is nil with no error.
type source interface {
	ReadDoc(id string) ([]byte, error)
	ListDocs(k model.Kind) ([]string, error)
	ReadFile(name string) ([]byte, error)
}

// src is where the store reads from outside a transaction.
func (s *Store) src() source {
	if s.backend != nil {
		return s.backend
	}
	return fileSource{s}
}

// src is where the transaction reads from: through the backend's
// transaction, which locks what it reads; the file store's lock is held
// already.
func (tx *Tx) src() source {
	if tx.bt != nil {
		return tx.bt
	}
	return fileSource{tx.s}
}

// fileSource reads the files under the root.
type fileSource struct{ s *Store }

func (f fileSource) ReadDoc(id string) ([]byte, error) {
	k, err := model.KindOf(id)
	if err != nil {
		return nil, err
	}
	p := DocPath(k, id)
	raw, err := f.s.root.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		// Not a missing file: a symlink out of the root, a folder in its
		// place, no permission. The store is damaged either way.
		return nil, damaged(p, err)
	}
	return raw, nil
}

func (f fileSource) ListDocs(k model.Kind) ([]string, error) {
	entries, err := fs.ReadDir(f.s.root.FS(), k.Dir())
	if k == model.KindDebate && errors.Is(err, fs.ErrNotExist) {
		return nil, nil // a root made before debates existed
	}
	if err != nil {
		return nil, damaged(k.Dir(), err)
	}
	var ids []string
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || strings.HasPrefix(id, ".") {
			continue
		}
		if kk, err := model.KindOf(id); err == nil && kk == k {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

func (f fileSource) ReadFile(name string) ([]byte, error) {
	raw, err := f.s.root.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return raw, err
}

// readDoc loads and schema-checks one document by id from src.
func readDoc(src source, id string) (*Doc, error) { return readDocChecked(src, id, "") }

// readDocChecked is readDoc, except that the whole-document checks (the
// schema, strict JSON) are skipped when the document's sum (docSum) is
// checked: the sum the store recorded for the bytes its last commit of
// the document wrote, after checking them (see sums.go). Any other sum,
// or none, means the whole check.
func readDocChecked(src source, id, checked string) (*Doc, error) {
	k, err := model.KindOf(id)
	if err != nil {
		return nil, &Error{Code: CodeInvalidInput, Msg: "bad id", Err: err, Hint: BadIDHint}
	}
	p := DocPath(k, id)
	raw, err := src.ReadDoc(id)
	if err != nil {
		if CodeOf(err) != "" {
			return nil, err
		}
		return nil, damaged(p, err)
	}
	if raw == nil {
		return nil, NotFound(id, "no %s %s", k, id)
	}
	if checked == "" || docSum(k, raw) != checked {
		wholeChecks.Add(1)
		if err := schemas.Validate(schemas.Kind(k), raw); err != nil {
			return nil, damaged(p, err)
		}
		if err := CheckJSON(raw); err != nil {
			return nil, damaged(p, err)
		}
	}
	d := checkedDoc(id, k, raw)
	if got := d.Get("id").String(); got != id {
		return nil, damaged(p, fmt.Errorf("its id field is %q", got))
	}
	return d, nil
}

// checkedDoc is the document of raw once raw has passed readDoc's checks.
func checkedDoc(id string, k model.Kind, raw []byte) *Doc {
	d := &Doc{ID: id, Kind: k, Raw: raw, orig: raw}
	d.statusBefore = d.Status()
	d.revision = int(d.Get("revision").Int())
	return d
}

// readLease reads and checks an item's lease from src; nil when none.
func readLease(src source, id string) (*Lease, error) {
	if _, err := model.KindOf(id); err != nil {
		return nil, &Error{Code: CodeInvalidInput, Msg: "bad id", Err: err, Hint: BadIDHint}
	}
	raw, err := src.ReadFile(LeasePath(id))
	if err != nil {
		if CodeOf(err) != "" {
			return nil, err
		}
		return nil, Errorf(CodeInternal, "read lease of %s", id).Wrap(err)
	}
	if raw == nil {
		return nil, nil
	}
	if err := schemas.Validate(schemas.Lease, raw); err != nil {
		return nil, damaged(LeasePath(id), err)
	}
	var l Lease
	if err := json.Unmarshal(raw, &l); err != nil || l.ID != id {
		return nil, damaged(LeasePath(id), fmt.Errorf("it is not the lease of %s", id))
	}
	return &l, nil
}

// BadIDHint is what to do about an id that is not one.
const BadIDHint = "copy the id from `proofloop status`, `proofloop next` or `created` in an earlier output"
