package store

import (
	"hash/maphash"
	"sync"

	"github.com/proofloop/proofloop/model"
)

// FirstPass is what the full check's reading of every document leaves for
// its index check, so that each document is read for the index once and
// schema-checked once in all: the links of deriveStream's first pass of
// every document read, and a hash of the bytes of every one that passed
// readDoc's checks (a document whose bytes hash otherwise when the index
// check reads it is checked again there).
type FirstPass struct {
	mu       sync.Mutex
	links    map[string]docLink
	sums     map[string]uint64
	leases   map[string]bool               // the items with a file in leases/, when listed
	listed   bool                          // leases/ was listed (or is not there)
	statuses map[model.Status]model.Status // one string per status, not one per document
}

// docLink is what linkRow reads of a document, held compactly: the full
// check holds one per document while it replays the log.
type docLink struct {
	parent string
	status model.Status
	fills  *int
}

// firstSeed seeds the hashes of FirstPass: they are compared within one
// process.
var firstSeed = maphash.MakeSeed()

// NewFirstPass is the full check's, empty.
func NewFirstPass() *FirstPass {
	return &FirstPass{links: map[string]docLink{}, sums: map[string]uint64{}, leases: map[string]bool{}, statuses: map[model.Status]model.Status{}}
}

// Link notes what deriveStream's first pass reads of d (linkRow); f nil
// notes nothing.
func (f *FirstPass) Link(d *Doc) {
	if f == nil {
		return
	}
	r := linkRow(d)
	f.mu.Lock()
	defer f.mu.Unlock()
	st, ok := f.statuses[r.Status]
	if !ok {
		st = r.Status
		f.statuses[st] = st
	}
	f.links[d.ID] = docLink{parent: r.Parent, status: st, fills: r.FillsIssue}
}

// Checked notes that raw, the bytes of id, passed readDoc's checks.
func (f *FirstPass) Checked(id string, raw []byte) {
	if f == nil {
		return
	}
	sum := maphash.Bytes(firstSeed, raw)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sums[id] = sum
}

// ListedLeases notes whether leases/ was listed (or is not there): then
// the items with no lease file noted (LeaseFile) have none.
func (f *FirstPass) ListedLeases(ok bool) {
	if f != nil {
		f.listed = ok
	}
}

// LeaseFile notes that id has a file in leases/.
func (f *FirstPass) LeaseFile(id string) {
	if f != nil {
		f.leases[id] = true
	}
}

// noLease says that id has no lease file: leases/ was listed, under the
// lock, and has none for it.
func (f *FirstPass) noLease(id string) bool { return f != nil && f.listed && !f.leases[id] }

// linkOf is the row of deriveStream's first pass of id (linkRow), from the
// full check's reading; nil when that did not read it.
func (f *FirstPass) linkOf(id string) *Row {
	if f == nil {
		return nil
	}
	l, ok := f.links[id]
	k, err := model.KindOf(id)
	if !ok || err != nil {
		return nil
	}
	return &Row{ID: id, Kind: k, Status: l.status, Parent: l.parent, FillsIssue: l.fills}
}

// wasChecked says whether raw are the bytes of id that passed the checks.
func (f *FirstPass) wasChecked(id string, raw []byte) bool {
	if f == nil {
		return false
	}
	sum, ok := f.sums[id]
	return ok && sum == maphash.Bytes(firstSeed, raw)
}
