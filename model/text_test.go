package model

import (
	"errors"
	"strings"
	"testing"
)

// TestCheckText: what no text may hold, and where it is (N15).
func TestCheckText(t *testing.T) {
	for _, c := range []struct {
		s      string
		offset int
		found  string
	}{
		{"Fine, with tab\tand\r\nline breaks; ünïcödé ∑ 𝔽 עברית.", -1, ""},
		{"x\xffy", 1, "a byte that is not UTF-8 (0xff)"},
		{"ab\xed\xa0\x80", 2, "not UTF-8"}, // an encoded surrogate
		{"a\x00b", 1, "the control character U+0000"},
		{"\x1b[31mred", 0, "the control character U+001B"},
		{"del\x7f", 3, "U+007F"},
		{"c1 \u0085", 3, "the control character U+0085"},
		{"abc\u202edcba", 3, "the bidirectional control U+202E"},
		{"\u2066isolate", 0, "the bidirectional control U+2066"},
	} {
		err := CheckText(c.s)
		var te *TextError
		switch {
		case c.offset < 0 && err != nil:
			t.Errorf("CheckText(%q) = %v; want nil", c.s, err)
		case c.offset >= 0 && (!errors.As(err, &te) || te.Offset != c.offset || !strings.Contains(te.Found, c.found)):
			t.Errorf("CheckText(%q) = %v; want %q at byte %d", c.s, err, c.found, c.offset)
		}
	}
}
