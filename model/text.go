package model

import (
	"fmt"
	"unicode/utf8"
)

// TextRule says what CheckText refuses, for hints and docs.
const TextRule = "text is UTF-8, without NUL or any other control character but tab and line breaks, and without the bidirectional controls U+202A-U+202E and U+2066-U+2069"

// TextError says what CheckText found in a text and at which byte.
type TextError struct {
	Offset int
	Found  string
}

func (e *TextError) Error() string { return fmt.Sprintf("%s at byte %d", e.Found, e.Offset) }

// CheckText is the one check of every text proofloop takes from outside
// (a flag, an argument, an MCP argument, a JSON input's strings, a file
// read for a text flag): it refuses bytes that are not UTF-8, which were
// silently replaced by U+FFFD and stored so; NUL and the other C0 and C1
// control characters but tab, line feed and carriage return (a terminal
// acts on them: ESC starts its escape sequences); and the bidirectional
// embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069), which
// make text read otherwise than it is stored ("Trojan Source"). The error
// gives the byte offset of the first.
func CheckText(s string) error {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c == 0x7f {
				return &TextError{i, fmt.Sprintf("the control character %U", rune(c))}
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			return &TextError{i, fmt.Sprintf("a byte that is not UTF-8 (0x%02x)", c)}
		case r <= 0x9f:
			return &TextError{i, fmt.Sprintf("the control character %U", r)}
		case 0x202a <= r && r <= 0x202e, 0x2066 <= r && r <= 0x2069:
			return &TextError{i, fmt.Sprintf("the bidirectional control %U", r)}
		}
		i += size
	}
	return nil
}
