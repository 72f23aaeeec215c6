package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/proofloop/proofloop/model"
)

// Doc is a document read or created in a transaction. Skills read it with
// Get or Decode and change it with Set; the store bumps its revision and
// updated_at when the transaction commits.
type Doc struct {
	ID   string
	Kind model.Kind
	Raw  []byte

	orig         []byte // the bytes as read (or {} when created): the patch's base
	owned        bool   // Raw is this Doc's own copy, which a set may change in place
	decoded      any    // the last Problem or Statement decoded from Raw; nil once Raw changes
	created      bool
	dirty        bool
	deleted      bool
	statusBefore model.Status
	revision     int
}

// pathRe admits only the JSON paths the code itself writes: field names,
// array indexes and -1 for append. Agent-supplied text never gets here.
var pathRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z_]+(\.([a-z_]+|-1|[0-9]+))*$`) })

// Get reads a field with a gjson path.
func (d *Doc) Get(path string) gjson.Result { return gjson.GetBytes(d.Raw, path) }

// Status is the document's current status.
func (d *Doc) Status() model.Status { return model.Status(d.Get("status").String()) }

// Revision is the revision the document had when the transaction read it
// (0 for a document the transaction creates).
func (d *Doc) Revision() int { return d.revision }

// Set sets the field at path to v (any JSON-marshalable value) with sjson,
// keeping every other byte of the document's structure.
func (d *Doc) Set(path string, v any) error {
	if !pathRe().MatchString(path) {
		return fmt.Errorf("set %s: refusing JSON path %q", d.ID, path)
	}
	b, err := Marshal(v)
	if err != nil {
		return fmt.Errorf("set %s %s: %w", d.ID, path, err)
	}
	return d.SetRaw(path, b)
}

// Marshal is json.Marshal without HTML escaping, so that "<", ">" and "&"
// in proofs stay readable in the files.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// SetRaw sets the field at path to the raw JSON value.
func (d *Doc) SetRaw(path string, raw []byte) error {
	if !pathRe().MatchString(path) {
		return fmt.Errorf("set %s: refusing JSON path %q", d.ID, path)
	}
	// A value no longer than the one it replaces (a status, a revision, a
	// timestamp) is written over it in Raw once Raw is the Doc's own: a
	// set copied a 230 KB statement each time, and a call sets several.
	// The bytes as read (orig, the patch's base) are never written over.
	out, err := sjson.SetRawBytesOptions(d.Raw, path, raw, &sjson.Options{Optimistic: true, ReplaceInPlace: d.owned})
	if err != nil {
		return fmt.Errorf("set %s %s: %w", d.ID, path, err)
	}
	d.setRaw(out)
	return nil
}

// setRaw makes out the document's bytes after a change.
func (d *Doc) setRaw(out []byte) {
	d.Raw, d.dirty, d.decoded = out, true, nil
	d.owned = len(out) > 0 && (len(d.orig) == 0 || &out[0] != &d.orig[0])
}

// Delete removes the field at path, if it is there.
func (d *Doc) Delete(path string) error {
	if !pathRe().MatchString(path) {
		return fmt.Errorf("delete %s: refusing JSON path %q", d.ID, path)
	}
	if !d.Get(path).Exists() {
		return nil
	}
	out, err := sjson.DeleteBytes(d.Raw, path)
	if err != nil {
		return fmt.Errorf("delete %s %s: %w", d.ID, path, err)
	}
	d.setRaw(out)
	return nil
}

// Problem decodes the document as a problem. The result is shared until
// the document changes: callers must not modify it.
func (d *Doc) Problem() (*model.Problem, error) {
	if p, ok := d.decoded.(*model.Problem); ok {
		return p, nil
	}
	var p model.Problem
	if err := decodeDoc(d.Raw, &p); err != nil {
		return nil, fmt.Errorf("decode %s: %w", d.ID, err)
	}
	d.decoded = &p
	return &p, nil
}

// Statement decodes the document as a statement. The result is shared
// until the document changes: callers must not modify it.
func (d *Doc) Statement() (*model.Statement, error) {
	if st, ok := d.decoded.(*model.Statement); ok {
		return st, nil
	}
	var s model.Statement
	if err := decodeDoc(d.Raw, &s); err != nil {
		return nil, fmt.Errorf("decode %s: %w", d.ID, err)
	}
	d.decoded = &s
	return &s, nil
}

// Debate decodes the document as a debate. The result is shared until the
// document changes: callers must not modify it.
func (d *Doc) Debate() (*model.Debate, error) {
	if db, ok := d.decoded.(*model.Debate); ok {
		return db, nil
	}
	var db model.Debate
	if err := decodeDoc(d.Raw, &db); err != nil {
		return nil, fmt.Errorf("decode %s: %w", d.ID, err)
	}
	d.decoded = &db
	return &db, nil
}

// decodeDoc decodes a document into its Go type with json/v2's engine under
// encoding/json's (v1) semantics: the same value, about four times faster
// on a statement with a 100 KB proof and 300 issues (no validating pass
// before the decoding one), and a skill call decodes its statement twice:
// as read, and as changed, for its index row (TestDecodeDocIsV1).
func decodeDoc(raw []byte, v any) error { return jsonv1.Unmarshal(raw, v) }

// CheckJSON refuses what the schema validator would let through: a
// duplicate object key (gjson reads the first value and encoding/json the
// last, so two readers would see two different documents) and trailing data
// after the value. Every file the store reads passes it first.
func CheckJSON(raw []byte) error {
	if jsontext.Value(raw).IsValid() {
		// The same checks, on raw in place: the decoder below copies it
		// into a buffer of its own (0.5 MB for a 230 KB statement), and
		// is run only for a message.
		return nil
	}
	dec := jsontext.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.ReadValue(); err != nil {
		return fmt.Errorf("the JSON is not strict: %w", err)
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		return fmt.Errorf("the JSON has data after its value")
	}
	return nil
}
