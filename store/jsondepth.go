package store

import "fmt"

// MaxJSONDepth is how deep a JSON value that proofloop reads may nest. Its
// own documents and inputs nest a few levels (a debate turn's
// counterpoints' support is four); 64 leaves room and refuses the
// pathological: a walk of the value builds a path per level, so memory
// grew with the square of the depth (240 KB of `[[[...` took 1.7 GB).
const MaxJSONDepth = 64

// CheckJSONDepth refuses raw when a JSON value in it nests deeper than
// MaxJSONDepth. It is one pass over the bytes that allocates nothing, run
// before anything is decoded. It does not validate: the decoder after it
// does.
func CheckJSONDepth(raw []byte) error {
	depth := 0
	inString, escaped := false, false
	for i, c := range raw {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			if depth++; depth > MaxJSONDepth {
				return fmt.Errorf("the JSON nests deeper than %d levels (at byte %d); proofloop's inputs nest a few", MaxJSONDepth, i)
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	return nil
}
