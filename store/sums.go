package store

import (
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"slices"
	"sync/atomic"

	bolt "go.etcd.io/bbolt"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/schemas"
)

// bucketSums is the index's record of which document bytes have been
// checked: id -> docSum of the bytes the last commit of the document wrote,
// once they had passed their schema (Tx.stamp). A transaction that reads
// the document finds the same sum for the bytes on disk and skips the
// whole-document schema check, the largest cost of a call on a big
// document (8 ms for a statement with a 100 KB proof and 300 issues,
// against 0.3 ms for the sum). Any difference, a hand edit or damage
// between two commands, gives another sum, and the document is checked
// whole, as before: exit 6 when it fails. docs/decisions.md says who could
// forge what.
//
// The file store's commits write sums, in the same journal as the
// documents, and a rebuild of its index (Store.reindex) writes the sum of
// every document it read, each read with its whole check. A backend's
// index has none: there every read checks the document whole. doctor does not
// compare this bucket: a missing or wrong sum costs a whole check, never
// a skipped one.
var bucketSums = []byte("sums")

// docSum is the sum recorded for a document of kind k whose bytes are raw:
// SHA-256 over the SHA-256 of the kind's schema and the bytes, in hex (index
// values are text, see eventLoc). A binary with another schema computes
// other sums, so a document is checked whole against a schema that changed.
func docSum(k model.Kind, raw []byte) string {
	schema := schemas.Sum(schemas.Kind(k))
	h := sha256.New()
	h.Write(schema[:])
	h.Write(raw)
	return hex.EncodeToString(h.Sum(nil))
}

// wholeChecks counts the whole-document checks on read, for the tests.
var wholeChecks atomic.Int64

// checkedSum is the sum the index records for id's document, "" when there
// is none or the index cannot be read (the whole check then decides). It
// opens the file store's index for the transaction, as the commit will,
// but never creates it, and does not judge its stamp: a sum says that
// these bytes passed their schema, which stays true in a stale index.
func (tx *Tx) checkedSum(id string) string {
	if tx.bt != nil {
		return ""
	}
	if tx.ix == nil {
		if _, err := tx.s.root.Lstat(IndexFile); err != nil {
			return "" // opening would create it: a refused call writes nothing
		}
		ix, err := tx.s.openIndexState()
		if err != nil {
			return "" // Tx.index reports a damaged index
		}
		tx.ix = ix
	}
	v, err := tx.ix.kv.Get(string(bucketSums), []byte(id))
	if err != nil {
		return ""
	}
	return string(v)
}

// putSums writes a rebuilt index's sums, in key order.
func putSums(btx *bolt.Tx, sums map[string]string) error {
	b, err := btx.CreateBucket(bucketSums)
	if err != nil {
		return err
	}
	b.FillPercent = 1 // keys arrive in order
	for _, id := range slices.Sorted(maps.Keys(sums)) {
		if err := b.Put([]byte(id), []byte(sums[id])); err != nil {
			return err
		}
	}
	return nil
}

// sumOps record the sums of the documents a commit writes, and drop those
// of the documents it removes. Each changed document has passed its schema
// in stamp, and its Raw is the bytes the commit writes.
func sumOps(changed []*Doc) []kvOp {
	var ops []kvOp
	for _, d := range changed {
		if d.deleted {
			ops = append(ops, kvOp{B: string(bucketSums), K: d.ID, D: true})
		} else {
			ops = append(ops, kvOp{B: string(bucketSums), K: d.ID, V: docSum(d.Kind, d.Raw)})
		}
	}
	return ops
}
