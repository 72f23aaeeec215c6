package store

import (
	"strconv"
	"unicode/utf8"
)

// encode is the journal as one line of JSON, what Marshal(j) decodes to,
// written straight into a buffer of its final size. Marshal grew its
// buffer by doubling and checked and copied the event line a second time
// (a json.RawMessage is compacted), and a call on a big document journals
// its 230 KB, its event line and, for a new proof, the kept revision.
// Text that is not UTF-8 (which Marshal would replace) is left to Marshal.
func (j *journal) encode() ([]byte, error) {
	n := len(j.Event) + len(j.Checksum) + 64
	for _, w := range j.Writes {
		if !utf8.ValidString(w.Path) || !utf8.ValidString(w.Content) {
			return Marshal(j)
		}
		n += len(w.Path) + len(w.Content) + len(w.Content)/16 + 64
		for _, op := range w.KV {
			n += len(op.B) + len(op.K) + len(op.V) + 32
		}
	}
	b := make([]byte, 0, n)
	b = append(b, `{"seq":`...)
	b = strconv.AppendInt(b, int64(j.Seq), 10)
	b = append(b, `,"event":`...)
	b = append(b, j.Event...) // a sealed line: compact JSON already
	b = append(b, `,"writes":[`...)
	for i, w := range j.Writes {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"path":`...)
		b = appendQuoted(b, w.Path)
		b = append(b, `,"content":`...)
		b = appendQuoted(b, w.Content)
		if w.At != nil {
			b = append(b, `,"at":`...)
			b = strconv.AppendInt(b, *w.At, 10)
		}
		if w.Remove {
			b = append(b, `,"remove":true`...)
		}
		if w.EventLine {
			b = append(b, `,"event_line":true`...)
		}
		if len(w.KV) > 0 {
			b = append(b, `,"kv":[`...)
			for k, op := range w.KV {
				if k > 0 {
					b = append(b, ',')
				}
				b = append(b, `{"b":`...)
				b = appendQuoted(b, op.B)
				b = append(b, `,"k":`...)
				b = appendQuoted(b, op.K)
				if op.V != "" {
					b = append(b, `,"v":`...)
					b = appendQuoted(b, op.V)
				}
				if op.D {
					b = append(b, `,"d":true`...)
				}
				b = append(b, '}')
			}
			b = append(b, ']')
		}
		b = append(b, '}')
	}
	b = append(b, `],"checksum":`...)
	b = appendQuoted(b, j.Checksum)
	return append(b, '}'), nil
}

// appendQuoted appends s, valid UTF-8, as a JSON string: '"', '\' and the
// control characters escaped, nothing else (no HTML escaping, as Marshal).
func appendQuoted(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
