package model

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// MaxActorLen is the most characters (runes) an actor's normal form may
// have: enough for any name or "role-worker@host", short enough that an
// actor cannot bloat every issue, response and event it is recorded in.
const MaxActorLen = 200

// ActorError says why an actor was refused, naming the rule.
type ActorError struct {
	Actor string
	Rule  string
}

func (e *ActorError) Error() string {
	a := e.Actor
	if r := []rune(a); len(r) > 40 { // the message need not repeat a long name whole
		a = string(r[:40]) + "..."
	}
	return fmt.Sprintf("actor %q is refused: %s", a, e.Rule)
}

// NormalizeActor returns the one form in which an actor is recorded and
// compared: trimmed, Unicode NFKC, case-folded. So " alice", "Alice" and
// "ＡＬＩＣＥ" (fullwidth) are all "alice", and the self-check rule and the
// quorum cannot be fooled by spelling one person two ways. An actor that is
// empty, holds a control or format character (which would make two actors
// look alike: "alice\u200b") or has more than MaxActorLen characters
// (runes, after trimming) is refused, and so is a kernel's (kernel:...),
// which only the engine's proof checker is (ReservedActor).
func NormalizeActor(s string) (string, error) {
	a := ActorKey(s)
	// The rule counts the characters given, after trimming; the normal
	// form, which is what is recorded, is bounded too, since folding and
	// NFKC can lengthen a name ("ﬀ" is "ff").
	n := max(utf8.RuneCountInString(strings.TrimSpace(s)), utf8.RuneCountInString(a))
	switch {
	case a == "":
		return "", &ActorError{s, "it is empty"}
	case n > MaxActorLen:
		return "", &ActorError{s, fmt.Sprintf("it has %d characters, more than the %d allowed", n, MaxActorLen)}
	}
	for _, r := range a {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return "", &ActorError{s, fmt.Sprintf("it contains the control character %U", r)}
		}
	}
	if err := ReservedActor(a); err != nil {
		return "", err
	}
	return a, nil
}

// ActorKey is the normal form of NormalizeActor without its checks: what
// two recorded actors are compared by, including actors a store written
// before the rule holds ("" for none). Folding can undo NFKC (and NFKC
// can produce foldable letters), so it normalises on both sides of the
// fold, as Unicode's NFKC_Casefold does; the result is stable under a
// second call.
func ActorKey(s string) string {
	s = norm.NFKC.String(strings.TrimSpace(s))
	return strings.TrimSpace(norm.NFKC.String(cases.Fold().String(s)))
}

// SameActor reports whether two actors are one person by their normal
// forms. Unknown ("") is nobody: it matches no one, itself included.
func SameActor(a, b string) bool {
	ka := ActorKey(a)
	return ka != "" && ka == ActorKey(b)
}
