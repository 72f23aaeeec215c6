package model

import (
	"errors"
	"strings"
	"testing"
)

func TestNormalizeActor(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"alice", "alice"},
		{" alice\t", "alice"},
		{"Alice", "alice"},
		{"ALICE", "alice"},
		{"ＡＬＩＣＥ", "alice"},       // fullwidth: NFKC
		{"ａｌｉｃｅ", "alice"},       // fullwidth lower case
		{"\u3000alice", "alice"}, // ideographic space is trimmed too
		{"Straße", "strasse"},    // full case folding, not lower-casing
		{"ﬁona", "fiona"},        // the ligature is NFKC-decomposed
		{"check-2", "check-2"},
		{"Jean Dupont", "jean dupont"},
		{strings.Repeat("x", MaxActorLen), strings.Repeat("x", MaxActorLen)},
		{strings.Repeat("é", MaxActorLen), strings.Repeat("é", MaxActorLen)}, // runes, not bytes
	} {
		got, err := NormalizeActor(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("NormalizeActor(%q) = %q, %v; want %q, nil", tc.in, got, err, tc.want)
			continue
		}
		if again, err := NormalizeActor(got); again != got || err != nil {
			t.Errorf("NormalizeActor(%q) = %q, %v; want it unchanged, nil (the normal form is stable)", got, again, err)
		}
	}
}

func TestNormalizeActorRefuses(t *testing.T) {
	for _, tc := range []struct{ in, rule string }{
		{"", "it is empty"},
		{"  \t ", "it is empty"},
		{strings.Repeat("x", MaxActorLen+1), "it has 201 characters, more than the 200 allowed"},
		{" " + strings.Repeat("x", MaxActorLen+1) + " ", "it has 201 characters"},
		{strings.Repeat("ﬀ", 101), "it has 202 characters"}, // the normal form is what is bounded
		{"ali\x07ce", "control character U+0007"},
		{"alice\x00", "control character U+0000"},
		{"al\u200bice", "control character U+200B"}, // zero-width space would make a second "alice"
		{"\u202ealice", "control character U+202E"}, // right-to-left override
	} {
		got, err := NormalizeActor(tc.in)
		var ae *ActorError
		if !errors.As(err, &ae) || !strings.Contains(err.Error(), tc.rule) {
			t.Errorf("NormalizeActor(%q) = %q, %v; want an ActorError saying %q", tc.in, got, err, tc.rule)
		}
	}
}

func TestSameActor(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"alice", "alice", true},
		{"alice", " Alice ", true},
		{"ＡＬＩＣＥ", "alice", true},
		{"alice", "bob", false},
		{"", "", false}, // unknown is nobody, not everybody
		{"", "alice", false},
		{"  ", "", false},
	} {
		if got := SameActor(tc.a, tc.b); got != tc.want {
			t.Errorf("SameActor(%q, %q) = %v; want %v", tc.a, tc.b, got, tc.want)
		}
	}
}
