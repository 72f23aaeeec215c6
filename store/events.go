package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/tidwall/gjson"
	"github.com/wI2L/jsondiff"

	"github.com/proofloop/proofloop/model"
)

// Event is one line of events.jsonl: one committed transaction.
//
// The log is tamper-evident: each event carries prev, the hash of the line
// before it, and hash, the SHA-256 of its own line without the hash field
// (which is always last). So editing, deleting or reordering any line breaks
// the chain at the next line, and doctor names where.
type Event struct {
	Seq         int            `json:"seq"`
	Time        string         `json:"time"`
	Actor       *string        `json:"actor"`
	Command     string         `json:"command"`
	IDs         []string       `json:"ids"`
	Changes     []Change       `json:"changes"`
	LeaseHolder *string        `json:"lease_holder"`
	Detail      map[string]any `json:"detail,omitempty"`
	Prev        string         `json:"prev"`
	Hash        string         `json:"hash,omitempty"`
}

// Change is one document a transaction wrote. Patch is the RFC 6902 JSON
// Patch from the previous revision of the document to this one (from {} for
// a document the transaction created), so that the documents can be rebuilt
// from the log alone. Deleted marks a document the transaction removed.
type Change struct {
	ID       string          `json:"id"`
	Kind     model.Kind      `json:"kind"`
	Before   *model.Status   `json:"before"`
	After    model.Status    `json:"after"`
	Revision int             `json:"revision"`
	Patch    json.RawMessage `json:"patch,omitempty"`
	Deleted  bool            `json:"deleted,omitempty"`
}

// Patch is the RFC 6902 patch from before to after, computed with
// jsondiff. Only what differs is handed to it (see prune): a transaction
// changes a few fields of a document, and a large part it left alone (a
// 100 KB proof, the 300 issues before the one it appended) need not be
// decoded and compared. The patch is the same as jsondiff's over the whole
// documents.
func Patch(before, after []byte) (json.RawMessage, error) {
	var b, a bytes.Buffer
	prune(&b, &a, gjson.ParseBytes(before), gjson.ParseBytes(after))
	p, err := jsondiff.CompareJSON(b.Bytes(), a.Bytes())
	if err != nil {
		return nil, err
	}
	if p == nil {
		return json.RawMessage("[]"), nil
	}
	// jsondiff's operations marshal themselves with HTML escaping ("n
	// \u003e= 1") and their keys in the struct's order; the log has them
	// as encoding/json writes a map without it (keys sorted, "<" as is), so
	// that it reads as the documents do. Rewriting the bytes gives that,
	// without decoding and encoding again a new 100 KB proof.
	raw, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	var out []byte
	out = append(out, '[')
	gjson.ParseBytes(raw).ForEach(func(_, op gjson.Result) bool {
		if len(out) > 1 {
			out = append(out, ',')
		}
		var keys, vals []string
		op.ForEach(func(k, v gjson.Result) bool {
			keys, vals = append(keys, k.Raw), append(vals, v.Raw)
			return true
		})
		order := make([]int, len(keys))
		for i := range order {
			order[i] = i
		}
		slices.SortFunc(order, func(a, b int) int { return strings.Compare(keys[a], keys[b]) })
		out = append(out, '{')
		for n, i := range order {
			if n > 0 {
				out = append(out, ',')
			}
			out = appendUnescapedHTML(append(appendUnescapedHTML(out, keys[i]), ':'), vals[i])
		}
		out = append(out, '}')
		return true
	})
	return append(out, ']'), nil
}

// appendUnescapedHTML appends raw JSON with encoding/json's HTML escapes
// (\u003c, \u003e, \u0026) written as the characters. It reads escapes
// whole, so an escaped backslash before "u003c" stays as it is.
func appendUnescapedHTML(b []byte, raw string) []byte {
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' || i+1 == len(raw) {
			b = append(b, raw[i])
			continue
		}
		if raw[i+1] == 'u' && i+6 <= len(raw) {
			switch raw[i+2 : i+6] {
			case "003c":
				b, i = append(b, '<'), i+5
				continue
			case "003e":
				b, i = append(b, '>'), i+5
				continue
			case "0026":
				b, i = append(b, '&'), i+5
				continue
			}
		}
		b, i = append(b, raw[i], raw[i+1]), i+1
	}
	return b
}

// prune writes to b and a two values that jsondiff diffs into the same
// patch as before and after, leaving out what the two share. jsondiff
// (without options) compares objects key by key and arrays index by index,
// so: an object keeps only the keys whose bytes differ or that one side
// lacks, each pruned in turn; an array keeps its length, with an element
// equal on both sides replaced by 0 on both (equal, so no operation, and
// the indexes of the others stay), a differing one pruned, and the
// elements only one side has as they are. Any other pair is written as it
// is: jsondiff decides whether they differ.
func prune(b, a *bytes.Buffer, before, after gjson.Result) {
	switch {
	case before.IsObject() && after.IsObject():
		old := map[string]gjson.Result{}
		var keys []string // before's keys in order, for the ones after lacks
		before.ForEach(func(k, v gjson.Result) bool {
			old[k.Raw] = v
			keys = append(keys, k.Raw)
			return true
		})
		b.WriteByte('{')
		a.WriteByte('{')
		field := func(buf *bytes.Buffer, k string) {
			if buf.Bytes()[buf.Len()-1] != '{' {
				buf.WriteByte(',')
			}
			buf.WriteString(k)
			buf.WriteByte(':')
		}
		after.ForEach(func(k, v gjson.Result) bool {
			o, ok := old[k.Raw]
			switch {
			case !ok:
				field(a, k.Raw)
				a.WriteString(v.Raw)
			case o.Raw != v.Raw:
				field(b, k.Raw)
				field(a, k.Raw)
				prune(b, a, o, v)
			}
			delete(old, k.Raw)
			return true
		})
		for _, k := range keys {
			if o, ok := old[k]; ok {
				field(b, k)
				b.WriteString(o.Raw)
			}
		}
		b.WriteByte('}')
		a.WriteByte('}')
	case before.IsArray() && after.IsArray():
		bs, as := before.Array(), after.Array()
		b.WriteByte('[')
		a.WriteByte('[')
		for i := range max(len(bs), len(as)) {
			if i > 0 {
				if i < len(bs) {
					b.WriteByte(',')
				}
				if i < len(as) {
					a.WriteByte(',')
				}
			}
			switch {
			case i >= len(as):
				b.WriteString(bs[i].Raw)
			case i >= len(bs):
				a.WriteString(as[i].Raw)
			case bs[i].Raw == as[i].Raw:
				b.WriteByte('0')
				a.WriteByte('0')
			default:
				prune(b, a, bs[i], as[i])
			}
		}
		b.WriteByte(']')
		a.WriteByte(']')
	default:
		b.WriteString(before.Raw)
		a.WriteString(after.Raw)
	}
}

// HashSuffixLen is the length of how every sealed line ends:
// ,"hash":"<64 hex digits>"}
const HashSuffixLen = len(`,"hash":""}`) + 64

// Seal encodes ev as one line of the log, chained to prev (the hash of the
// line before it): hash is the SHA-256 of the line without its hash field.
// It returns the line and its hash.
func Seal(ev Event, prev string) ([]byte, string, error) {
	ev.Prev, ev.Hash = prev, ""
	body, err := Marshal(ev)
	if err != nil {
		return nil, "", err
	}
	sum := sha256.Sum256(body)
	h := hex.EncodeToString(sum[:])
	line := append(body[:len(body)-1:len(body)-1], `,"hash":"`+h+`"}`...)
	return line, h, nil
}

// LineHash checks the hash of one sealed line of the log. It returns the
// line's hash and prev; sealed is false for a line written before the log
// was chained (no hash field); ok is false when the hash does not match the
// line's bytes.
func LineHash(line []byte) (hash, prev string, sealed, ok bool) {
	if len(line) < HashSuffixLen || !bytes.HasPrefix(line[len(line)-HashSuffixLen:], []byte(`,"hash":"`)) ||
		!bytes.HasSuffix(line, []byte(`"}`)) {
		return "", gjson.GetBytes(line, "prev").String(), false, true
	}
	hash = string(line[len(line)-HashSuffixLen+len(`,"hash":"`) : len(line)-2])
	body := append(bytes.Clone(line[:len(line)-HashSuffixLen]), '}')
	sum := sha256.Sum256(body)
	return hash, gjson.GetBytes(body, "prev").String(), true, hex.EncodeToString(sum[:]) == hash
}

// logTail is what the end of events.jsonl says: the seq and hash of its
// last whole line, the size of the whole lines, and a torn last line (bytes
// after the last newline), if any.
type logTail struct {
	Seq  int
	Hash string
	Size int64
	Torn []byte
}

// tail reads the end of events.jsonl, so its cost does not grow with the
// log.
func (s *Store) tail() (logTail, error) {
	f, err := s.root.OpenFile(EventsFile, os.O_RDONLY|os.O_CREATE, 0o644)
	if err != nil {
		return logTail{}, damaged(EventsFile, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return logTail{}, damaged(EventsFile, err)
	}
	if !st.Mode().IsRegular() {
		return logTail{}, damaged(EventsFile, fmt.Errorf("it is not a regular file"))
	}
	size := st.Size()
	for chunk := int64(4096); ; chunk *= 4 {
		off := max(0, size-chunk)
		buf := make([]byte, size-off)
		if _, err := f.ReadAt(buf, off); err != nil && !errors.Is(err, io.EOF) {
			return logTail{}, damaged(EventsFile, err)
		}
		t := logTail{Size: size}
		if len(buf) > 0 && buf[len(buf)-1] != '\n' {
			cut := bytes.LastIndexByte(buf, '\n') + 1
			if cut == 0 && off > 0 {
				continue // the torn line is longer than the chunk
			}
			t.Torn = bytes.Clone(buf[cut:])
			t.Size = off + int64(cut)
			buf = buf[:cut]
		}
		if len(buf) == 0 {
			return t, nil
		}
		body := buf[:len(buf)-1]
		start := bytes.LastIndexByte(body, '\n') + 1
		if start == 0 && off > 0 {
			continue // the last line is longer than the chunk
		}
		last := body[start:]
		seq := gjson.GetBytes(last, "seq")
		if !gjson.ValidBytes(last) || seq.Type != gjson.Number {
			return logTail{}, damaged(EventsFile, fmt.Errorf("its last line is not an event: %.80q", last))
		}
		t.Seq = int(seq.Int())
		var sealed, ok bool
		t.Hash, _, sealed, ok = LineHash(last)
		if sealed && !ok {
			return logTail{}, damaged(EventsFile, fmt.Errorf("its last line (seq %d) does not match its hash: it was edited", t.Seq))
		}
		return t, nil
	}
}

// QuarantineFile keeps torn event lines that no journal covered.
const QuarantineFile = "events.quarantine.jsonl"

// Quarantined is one line of QuarantineFile.
type Quarantined struct {
	At       string `json:"quarantined_at"`
	Offset   int64  `json:"offset"`    // where the torn bytes stood in events.jsonl
	AfterSeq int    `json:"after_seq"` // the seq of the last whole line before them
	Seq      *int   `json:"seq"`       // the seq the torn line carried, when it can be read
	Bytes    string `json:"bytes"`
}

var tornSeqRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\{"seq":([0-9]+)[,}]`) })

// quarantine moves a torn last line that no journal covers out of the log
// into QuarantineFile, so that it is kept and doctor reports it, and
// returns the tail after the cut. A committed transaction always has its
// journal until its event is whole in the log, so such a line was not
// written by a proofloop commit: it is damage, never silently dropped. Its
// seq, when readable, is never reused: the next event numbers after it.
func (s *Store) quarantine(t logTail) (logTail, error) {
	q := Quarantined{At: Timestamp(s.Now()), Offset: t.Size, AfterSeq: t.Seq, Bytes: string(t.Torn)}
	if m := tornSeqRe().FindSubmatch(t.Torn); m != nil {
		if n, err := strconv.Atoi(string(m[1])); err == nil {
			q.Seq = &n
		}
	}
	line, err := Marshal(q)
	if err != nil {
		return t, err
	}
	if err := appendSync(s, QuarantineFile, append(line, '\n')); err != nil {
		return t, damaged(QuarantineFile, err)
	}
	f, err := s.root.OpenFile(EventsFile, os.O_WRONLY, 0o644)
	if err != nil {
		return t, damaged(EventsFile, err)
	}
	defer f.Close()
	if err := f.Truncate(t.Size); err != nil {
		return t, damaged(EventsFile, err)
	}
	if err := f.Sync(); err != nil {
		return t, damaged(EventsFile, err)
	}
	if q.Seq != nil && *q.Seq > t.Seq {
		t.Seq = *q.Seq
	}
	t.Torn = nil
	return t, nil
}

// appendSync appends b to the root-relative file name and fsyncs it.
func appendSync(s *Store, name string, b []byte) error {
	f, err := s.root.OpenFile(name, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Tail is the log's last event, its seq and hash, and a torn line after it
// that no journal covers (nil when none), for doctor's quick check: it
// reads the end of events.jsonl, so its cost does not grow with the log.
func (s *Store) Tail() (seq int, hash string, torn []byte, err error) {
	t, err := s.tail()
	return t.Seq, t.Hash, t.Torn, err
}

// SummarizePatch names the paths a patch touches, for a message.
func SummarizePatch(p json.RawMessage) string {
	var ops []struct{ Op, Path string }
	json.Unmarshal(p, &ops)
	var parts []string
	for i, o := range ops {
		if i == 5 {
			parts = append(parts, fmt.Sprintf("and %d more", len(ops)-5))
			break
		}
		parts = append(parts, o.Op+" "+o.Path)
	}
	return fmt.Sprintf("%v", parts)
}
