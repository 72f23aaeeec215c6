package doctor

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/proofloop/proofloop/store"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"github.com/tidwall/gjson"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/schemas"
)

// LogReport is what doctor verified of the event log. An auditor can write
// down VerifiedSeq and VerifiedHash and later prove that nothing up to that
// event has changed: any edit breaks the chain before it.
type LogReport struct {
	Events       int    `json:"events"`
	ChainFrom    int    `json:"chain_from"`    // the first seq covered by the hash chain; 0 when none is
	VerifiedSeq  int    `json:"verified_seq"`  // the chain is unbroken from chain_from up to this seq
	VerifiedHash string `json:"verified_hash"` // the hash of that event
	Replayed     int    `json:"replayed"`      // documents that equal the replay of their patches
	NotReplayed  int    `json:"not_replayed"`  // documents with history from before patches were kept
	Quarantined  int    `json:"quarantined"`   // torn lines kept in events.quarantine.jsonl
	// ExpectedHead and ExpectedSeq: the head hash given to doctor
	// --expect-head, and the seq of the verified event that has it.
	ExpectedHead string `json:"expected_head,omitempty"`
	ExpectedSeq  int    `json:"expected_seq,omitempty"`
}

// changeRef locates one change of a document in the log.
type changeRef struct {
	seq      int
	off      int64
	n        int
	index    int   // in the event's changes
	patchOff int64 // where its patch's bytes are in the log; 0 when not known (read the line)
	patchLen int
	revision int
	deleted  bool
	hasPatch bool
}

// checkLog checks every line of the log, its seqs and its hash chain, and
// then replays each document's patches against its file.
func (s *checker) checkLog(docs *docSet, bad findingFunc) LogReport {
	f, err := s.Root().Open(store.EventsFile)
	if err != nil {
		bad("unreadable", store.EventsFile, 0, "cannot read: %v", err)
		return LogReport{}
	}
	defer f.Close()
	changes := map[string][]changeRef{}
	checkers := &checkersLog{}
	sc := &logScan{line: func(seq int, off int64, line []byte) {
		docs.logged.add(seq, line)
		checkers.add(seq, line, bad)
		for i, c := range gjson.GetBytes(line, "changes").Array() {
			// Cloned: a substring would keep the whole line's patches alive
			// as long as the map, the size of the log.
			id := strings.Clone(c.Get("id").String())
			patch := c.Get("patch")
			ref := changeRef{seq: seq, off: off, n: len(line), index: i,
				revision: int(c.Get("revision").Int()), deleted: c.Get("deleted").Bool(),
				hasPatch: patch.Exists()}
			// The replay reads the patch alone: an event's line holds the
			// patches of all its documents.
			if at := patch.Index; at > 0 && at+len(patch.Raw) <= len(line) && string(line[at:at+len(patch.Raw)]) == patch.Raw {
				ref.patchOff, ref.patchLen = off+int64(at), len(patch.Raw)
			}
			changes[id] = append(changes[id], ref)
		}
	}}
	r := s.scanLog(f, sc, bad)
	docs.logSize = sc.size
	r.Quarantined = s.checkQuarantine(bad)
	s.checkExpectHead(&r, bad)
	complete := r.ChainFrom == 1
	s.replay(f, docs, changes, complete, &r, bad)
	// The log implies config.json and every lease only when it is whole
	// from its first event (or when there is none: a store just made).
	complete = complete || (r.Events == 0 && r.ChainFrom == 0)
	s.checkConfigLog(docs.logged, complete, bad)
	s.checkLeases(docs, complete, bad)
	s.checkKeptAgainstLog(docs, bad)
	checkers.check(s, complete, bad)
	return r
}

// logScan says how scanLog reads the log. deep says which seqs have their
// line schema-checked (nil: every line); a sealed line whose hash matches
// and that the last clean check already verified needs only its chain. line
// is called with every line that is an event (without its newline), and
// size is set to the bytes of the whole lines.
type logScan struct {
	deep func(seq int) bool
	line func(seq int, off int64, line []byte)
	size int64
}

// scanLog checks every line of the log, its seqs and its hash chain. What
// a line's own bytes say (its hash, and its schema where every line is
// checked) is worked out for a batch of lines on every core; the seqs and
// the chain, which run from line to line, are then followed in order.
func (s *checker) scanLog(f *os.File, sc *logScan, bad findingFunc) LogReport {
	var r LogReport
	br := bufio.NewReaderSize(f, 1<<20)
	var off int64
	lastSeq, lastHash, broken := 0, "", false
	var batch []logLine
	size := 0
	follow := func() {
		precheck(batch, sc.deep == nil)
		for _, l := range batch {
			line, n := l.line, l.n
			r.Events++
			hash, prev, sealed, ok := l.hash, l.prev, l.sealed, l.ok
			if sc.deep == nil || sc.deep(lastSeq+1) || !sealed || !ok {
				verr := l.verr
				if !l.checked {
					verr = checkEvent(line)
				}
				if verr != nil {
					bad("event_invalid", store.EventsFile, lastSeq+1, "line %d is not an event: %v", n, verr)
					broken = broken || r.ChainFrom > 0
					continue
				}
			}
			seq := int(gjson.GetBytes(line, "seq").Int())
			if seq != lastSeq+1 {
				if seq > lastSeq+1 {
					bad("event_gap", store.EventsFile, seq, "line %d has seq %d after seq %d: events %d-%d are missing", n, seq, lastSeq, lastSeq+1, seq-1)
				} else {
					bad("event_gap", store.EventsFile, seq, "line %d has seq %d after seq %d: lines were moved or duplicated", n, seq, lastSeq)
				}
			}
			lastSeq = seq
			switch {
			case !sealed && r.ChainFrom > 0:
				bad("chain_broken", store.EventsFile, seq, "seq %d (line %d) has no hash although the log is chained from seq %d", seq, n, r.ChainFrom)
				broken = true
			case !sealed:
			case !ok:
				bad("chain_broken", store.EventsFile, seq, "seq %d (line %d): its hash does not match its bytes: the line was edited", seq, n)
				broken = true
			case r.ChainFrom == 0 && prev != "":
				bad("chain_broken", store.EventsFile, seq, "seq %d (line %d) continues a chain whose earlier lines are gone", seq, n)
				broken = true
			case r.ChainFrom > 0 && prev != lastHash:
				bad("chain_broken", store.EventsFile, seq, "seq %d (line %d): prev does not match the line before it: a line before it was edited, removed or moved", seq, n)
				broken = true
			}
			if sealed && r.ChainFrom == 0 {
				r.ChainFrom = seq
			}
			if sealed && ok && !broken {
				r.VerifiedSeq, r.VerifiedHash = seq, hash
				if hash == s.ExpectHead {
					r.ExpectedSeq = seq
				}
			}
			lastHash = hash
			sc.line(seq, l.off, line)
		}
		batch, size = batch[:0], 0
	}
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if len(line) == 0 && errors.Is(err, io.EOF) {
			break
		}
		if err != nil && !errors.Is(err, io.EOF) {
			follow()
			bad("unreadable", store.EventsFile, 0, "read line %d: %v", n, err)
			break
		}
		lineOff := off
		off += int64(len(line))
		if line[len(line)-1] != '\n' {
			follow()
			bad("event_invalid", store.EventsFile, 0, "line %d is torn: it has no newline", n)
			break
		}
		sc.size = off
		batch = append(batch, logLine{n: n, off: lineOff, line: line[:len(line)-1]})
		if size += len(line); size >= logBatch {
			follow()
		}
	}
	follow()
	return r
}

// logBatch is the bytes of log lines scanLog checks at once (a variable
// for the tests, which cross batches).
var logBatch = 4 << 20

// logLine is one line of the log (without its newline) and what its own
// bytes say.
type logLine struct {
	n          int // its line number, from 1
	off        int64
	line       []byte
	hash, prev string
	sealed, ok bool
	checked    bool  // checked against the event schema: verr is the verdict
	verr       error // why it is not an event
}

// precheck works out each line's hash, and with deep its verdict as an
// event, on every core.
func precheck(lines []logLine, deep bool) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.NumCPU(), len(lines)) {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < len(lines); i = int(next.Add(1)) - 1 {
				l := &lines[i]
				l.hash, l.prev, l.sealed, l.ok = lineHash(l.line)
				if deep {
					l.verr, l.checked = checkEvent(l.line), true
				}
			}
		})
	}
	wg.Wait()
}

// checkEvent says why line is not an event: it fails the event schema or
// is not strict JSON.
func checkEvent(line []byte) error {
	if err := schemas.Validate(schemas.Event, line); err != nil {
		return err
	}
	return store.CheckJSON(line)
}

// lineHash is LineHash without a parse of the line in the usual case: a
// sealed line ends with its prev, then its hash (Seal writes them last), so
// prev is read at its place; any other shape goes through LineHash.
func lineHash(line []byte) (hash, prev string, sealed, ok bool) {
	const prevLen = len(`,"prev":""`) + 64
	n := len(line) - store.HashSuffixLen
	if n < prevLen || !bytes.HasPrefix(line[n:], []byte(`,"hash":"`)) || !bytes.HasSuffix(line, []byte(`"}`)) {
		return store.LineHash(line)
	}
	switch {
	case bytes.HasPrefix(line[n-prevLen:], []byte(`,"prev":"`)) && line[n-1] == '"':
		prev = string(line[n-prevLen+len(`,"prev":"`) : n-1])
	case bytes.HasSuffix(line[:n], []byte(`,"prev":""`)):
	default:
		return store.LineHash(line)
	}
	hash = string(line[n+len(`,"hash":"`) : len(line)-2])
	h := sha256.New()
	h.Write(line[:n])
	h.Write([]byte{'}'})
	return hash, prev, true, hex.EncodeToString(h.Sum(nil)) == hash
}

// checkExpectHead reports a log that does not pass through --expect-head.
func (s *checker) checkExpectHead(r *LogReport, bad findingFunc) {
	if s.ExpectHead != "" {
		r.ExpectedHead = s.ExpectHead
		if r.ExpectedSeq == 0 {
			bad("head_mismatch", store.EventsFile, 0, "the event log does not pass through the head hash you kept (%s): it now ends at seq %d with hash %s. Events up to the one you kept were rewritten (their hashes recomputed), or the hash is another store's", s.ExpectHead, r.VerifiedSeq, r.VerifiedHash)
		}
	}
}

// checkQuarantine reports every torn line kept in the quarantine file.
func (s *checker) checkQuarantine(bad findingFunc) int {
	raw, err := s.Root().ReadFile(store.QuarantineFile)
	if errors.Is(err, fs.ErrNotExist) {
		return 0
	} else if err != nil {
		bad("unreadable", store.QuarantineFile, 0, "cannot read: %v", err)
		return 0
	}
	n := 0
	for _, line := range bytes.Split(bytes.TrimSpace(raw), []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		n++
		var q store.Quarantined
		if err := json.Unmarshal(line, &q); err != nil {
			bad("event_quarantined", store.QuarantineFile, 0, "line %d does not parse: %v", n, err)
			continue
		}
		what := "an unreadable seq"
		seq := q.AfterSeq + 1
		if q.Seq != nil {
			what, seq = fmt.Sprintf("seq %d", *q.Seq), *q.Seq
		}
		bad("event_quarantined", store.QuarantineFile, seq, "a torn event line (%s, %d bytes) that no journal covered was cut from events.jsonl after seq %d at %s; its bytes are kept here", what, len(q.Bytes), q.AfterSeq, q.At)
	}
	return n
}

// replay rebuilds each document from its patches, from an empty document,
// and compares it with the file; it also checks each document's revision
// against the last one the log records. complete says the log is chained
// from its first event, so a document the log never mentions was made by
// hand. Documents are replayed in parallel.
func (s *checker) replay(log *os.File, docs *docSet, changes map[string][]changeRef, complete bool, r *LogReport, bad findingFunc) {
	ids := map[string]bool{}
	for id := range changes {
		ids[id] = true
	}
	for id := range docs.present {
		ids[id] = true
	}
	sorted := slices.Sorted(func(yield func(string) bool) {
		for id := range ids {
			if !yield(id) {
				return
			}
		}
	})
	type result struct {
		replayed, skipped bool
		findings          []Finding
	}
	results := make([]result, len(sorted))
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.NumCPU() {
		wg.Go(func() {
			for i := range next {
				var res result
				add := func(code, p string, seq int, format string, args ...any) {
					res.findings = append(res.findings, Finding{code, p, fmt.Sprintf(format, args...), seq})
				}
				res.replayed, res.skipped = s.replayDoc(log, sorted[i], changes[sorted[i]], docs, complete, add)
				results[i] = res
			}
		})
	}
	for i := range sorted {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, res := range results {
		if res.replayed {
			r.Replayed++
		}
		if res.skipped {
			r.NotReplayed++
		}
		for _, f := range res.findings {
			bad(f.Code, f.Path, f.Seq, "%s", f.Message)
		}
	}
}

// replayDoc checks one document against the log.
func (s *checker) replayDoc(log *os.File, id string, refs []changeRef, docs *docSet, complete bool, bad findingFunc) (replayed, skipped bool) {
	k, err := model.KindOf(id)
	if err != nil {
		return false, false
	}
	p := store.DocPath(k, id)
	if len(refs) == 0 {
		if complete {
			bad("replay_mismatch", p, 0, "the event log never records it: it was made by hand")
		} else {
			skipped = true
		}
		return false, skipped
	}
	last := refs[len(refs)-1]
	if rev, ok := docs.revision[id]; ok && !last.deleted && rev != last.revision {
		bad("revision_mismatch", p, last.seq, "its revision is %d, but the event log says it reached revision %d (seq %d)", rev, last.revision, last.seq)
	}
	for _, c := range refs {
		if !c.hasPatch {
			return false, true // history from before patches were kept
		}
	}
	state := []byte("{}")
	// The proofs are compared with the kept revisions (checkKeptAgainstLog):
	// only a statement that has its file of them needs them.
	var proofs []proofAt
	keeps := k == model.KindStatement && docs.proofFiles[id]
	if keeps {
		defer func() { docs.setProofs(id, proofs) }()
	}
	for _, c := range refs {
		if c.deleted {
			state = nil
			continue
		}
		raw, err := readPatch(log, c)
		if err != nil {
			bad("unreadable", store.EventsFile, c.seq, "read seq %d: %v", c.seq, err)
			return false, false
		}
		if state == nil {
			state = []byte("{}")
		}
		if made, ok := createdBy(state, raw); ok {
			state = made
		} else {
			var patch jsonpatch.Patch
			if patch, err = jsonpatch.DecodePatch(raw); err == nil {
				state, err = patch.Apply(state)
			}
		}
		if err != nil {
			bad("replay_mismatch", p, c.seq, "the patch of seq %d does not apply to its replay: %v", c.seq, err)
			return false, false
		}
		if keeps {
			noteProof(&proofs, state, c.seq)
		}
	}
	raw, err := s.Root().ReadFile(p)
	switch {
	case errors.Is(err, fs.ErrNotExist) && state == nil:
		return true, false
	case errors.Is(err, fs.ErrNotExist):
		bad("replay_mismatch", p, last.seq, "the event log says it exists (last changed at seq %d), but the file is missing", last.seq)
		return false, false
	case err != nil:
		return false, false // reported as unreadable
	case state == nil:
		bad("replay_mismatch", p, last.seq, "the event log removed it at seq %d, but the file is there", last.seq)
		return false, false
	}
	if _, damagedFile := docs.revision[id]; !damagedFile {
		return false, false // reported as damaged already
	}
	if !sameValue(gjson.ParseBytes(state), gjson.ParseBytes(raw)) && !jsonpatch.Equal(state, raw) {
		diff, _ := store.Patch(state, raw)
		bad("replay_mismatch", p, last.seq, "it differs from the replay of the event log at its last change (seq %d): %s", last.seq, store.SummarizePatch(diff))
		return false, false
	}
	return true, false
}

// readPatch reads the patch of change c from the log.
func readPatch(log *os.File, c changeRef) ([]byte, error) {
	if c.patchOff > 0 {
		buf := make([]byte, c.patchLen)
		_, err := log.ReadAt(buf, c.patchOff)
		return buf, err
	}
	buf := make([]byte, c.n)
	if _, err := log.ReadAt(buf, c.off); err != nil {
		return nil, err
	}
	return []byte(gjson.GetBytes(buf, fmt.Sprintf("changes.%d.patch", c.index)).Raw), nil
}

// createdBy is the document that patch makes of the empty document state
// when it only adds top-level members, each once and named plainly: the
// patch of every document's creation (Patch from {}). It is what
// jsonpatch's Apply gives, without decoding the patch into its nodes; ok
// is false for any other patch or state, which jsonpatch applies.
func createdBy(state, patch []byte) (doc []byte, ok bool) {
	if string(state) != "{}" || !gjson.ValidBytes(patch) {
		return nil, false
	}
	ops := gjson.ParseBytes(patch)
	if !ops.IsArray() {
		return nil, false
	}
	out := []byte{'{'}
	seen := map[string]bool{}
	ok = true
	ops.ForEach(func(_, op gjson.Result) bool {
		var kind, path, value gjson.Result
		n := 0
		op.ForEach(func(k, v gjson.Result) bool {
			n++
			switch k.Str {
			case "op":
				kind = v
			case "path":
				path = v
			case "value":
				value = v
			}
			return true
		})
		key, plain := strings.CutPrefix(path.Str, "/")
		// Three members, each once: "op", "path" and "value".
		if n != 3 || kind.Str != "add" || path.Type != gjson.String || !value.Exists() ||
			!plain || path.Raw[1] != '/' || key == "" || strings.ContainsAny(key, "/~") || seen[key] {
			ok = false
			return false
		}
		seen[key] = true
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, '"')
		out = append(out, path.Raw[2:]...) // "/key" as "key", as it was escaped
		out = append(out, ':')
		out = append(out, value.Raw...)
		return true
	})
	if !ok {
		return nil, false
	}
	return append(out, '}'), true
}

// sameValue says whether a and b are one JSON value, as jsonpatch.Equal
// compares them (objects by member, arrays by element, strings by their
// text, other values by their bytes) when it can tell without decoding
// them into nodes; false means not known, for jsonpatch.Equal to decide.
func sameValue(a, b gjson.Result) bool {
	if a.Type != b.Type {
		return false
	}
	switch {
	case a.IsObject() != b.IsObject() || a.IsArray() != b.IsArray():
		return false
	case a.IsObject():
		members := map[string]gjson.Result{}
		dup := false
		b.ForEach(func(k, v gjson.Result) bool {
			_, dup = members[k.Str]
			members[k.Str] = v
			return !dup
		})
		same := !dup
		a.ForEach(func(k, v gjson.Result) bool {
			w, ok := members[k.Str]
			delete(members, k.Str) // a key a repeats is then missing
			same = ok && sameValue(v, w)
			return same
		})
		return same && len(members) == 0
	case a.IsArray():
		as, bs := a.Array(), b.Array()
		if len(as) != len(bs) {
			return false
		}
		for i := range as {
			if !sameValue(as[i], bs[i]) {
				return false
			}
		}
		return true
	case a.Type == gjson.String:
		return a.Str == b.Str
	default:
		return a.Raw == b.Raw
	}
}
