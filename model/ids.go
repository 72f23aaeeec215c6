package model

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/gosimple/unidecode"
	"golang.org/x/text/unicode/norm"
)

// MaxIDLen bounds an id so that "<id>.json" and the store's temp files
// (".<id>.json" plus a random number) stay far below the 255-byte file-name
// limit at any nesting depth.
const MaxIDLen = 128

// compressKeep is how much of a too-long parent id a child id keeps.
const compressKeep = 48

var (
	idRe   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(prob|stmt|deb)_[a-z0-9_]+$`) })
	nameRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9_]*$`) })
)

// IDError is a malformed id or name.
type IDError struct{ ID, Why string }

func (e *IDError) Error() string { return fmt.Sprintf("invalid id %q: %s", e.ID, e.Why) }

// KindOf checks id against the id rules and returns the kind of document it
// names. It is called before any path or JSON path is built from an id.
func KindOf(id string) (Kind, error) {
	switch {
	case id == "":
		return "", &IDError{id, "it is empty"}
	case len(id) > MaxIDLen:
		return "", &IDError{id, fmt.Sprintf("it is longer than %d bytes", MaxIDLen)}
	case !idRe().MatchString(id):
		return "", &IDError{id, "ids are prob_<name>, stmt_<name> or deb_<name> with a-z, 0-9 and _ only"}
	case strings.HasPrefix(id, "prob_"):
		return KindProblem, nil
	case strings.HasPrefix(id, "deb_"):
		return KindDebate, nil
	default:
		return KindStatement, nil
	}
}

// CheckName checks a root problem name given to new-problem.
func CheckName(name string) error {
	if !nameRe().MatchString(name) || len(name) > 64 {
		return &IDError{"prob_" + name, "a name is 1-64 characters of a-z, 0-9 and _, starting with a letter or digit"}
	}
	return nil
}

// RootProblemID is the id of the root problem called name.
func RootProblemID(name string) string { return "prob_" + name }

// SubproblemID is the id of the n-th subproblem of a problem.
func SubproblemID(parent string, n int) string { return child(parent, "_sub"+strconv.Itoa(n)) }

// WrapID is the id of the n-th wrap-up statement of a problem: stmt_<name>_wrap,
// then stmt_<name>_wrap2, ...
func WrapID(problem string, n int) string {
	suffix := "_wrap"
	if n > 1 {
		suffix += strconv.Itoa(n)
	}
	return child("stmt_"+strings.TrimPrefix(problem, "prob_"), suffix)
}

// SubStatementID is the id of the n-th sub-statement of a statement.
func SubStatementID(parent string, n int) string { return child(parent, "_sub"+strconv.Itoa(n)) }

// FixStatementID is the id of the n-th gap-filling sub-statement of a statement.
func FixStatementID(parent string, n int) string { return child(parent, "_fix"+strconv.Itoa(n)) }

// child appends suffix to parent. When that would pass MaxIDLen, the parent
// part becomes its first compressKeep bytes plus "_h" and 16 hex digits of
// the parent id's SHA-256: still deterministic, still naming the root it
// descends from, and checkable against the parent (which the document's
// context or parent field records in full).
func child(parent, suffix string) string {
	id := parent + suffix
	if len(id) <= MaxIDLen {
		return id
	}
	sum := sha256.Sum256([]byte(parent))
	head := strings.TrimRight(parent[:compressKeep], "_")
	return head + "_h" + hex.EncodeToString(sum[:8]) + suffix
}

// NextNumber returns the first n >= 1 whose id gen(n) is not in taken.
// Because the lists it is given only ever grow, numbers are never reused.
func NextNumber(taken []string, gen func(int) string) int {
	n := 1
	for slices.Contains(taken, gen(n)) {
		n++
	}
	return n
}

// maxSlugLen bounds a topic slug, so that a debate id stays short and
// readable and its transcript name fits any file system: 40 bytes for the
// id's slug, 40 characters for the file's.
const maxSlugLen = 40

// TopicSlug derives a debate's id slug from its topic. Ids stay a-z, 0-9
// and _ (DESIGN's ID rule: model ids, file names, shells), so the topic is
// transliterated to ASCII (github.com/gosimple/unidecode: Свобода воли is
// svoboda_voli, 自由意志 zi_you_yi_zhi, Straße strasse), lower-cased, a-z and
// 0-9 kept and every other run of characters made one _. A letter or digit
// the table has no spelling for (most characters beyond the Basic
// Multilingual Plane) appends a short hash of the topic (or stands alone,
// t<8 hex>), so that two such topics never share a bare slug. The result
// is trimmed of _ and cut to 40 bytes. FileSlug keeps the letters
// themselves for the transcript's name.
func TopicSlug(topic string) string {
	var b strings.Builder
	gap, lost := false, false
	for _, r := range topic {
		if r < utf8.RuneSelf {
			gap = slugASCII(&b, string(r), gap)
			continue
		}
		ascii := unidecode.Unidecode(string(r))
		switch {
		case strings.IndexFunc(ascii, isASCIIAlnum) >= 0:
			gap = slugASCII(&b, ascii, gap)
		case unicode.IsMark(r):
			// an accent of the letter before it: nothing to spell
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			lost, gap = true, true
		default:
			gap = true
		}
	}
	s := b.String()
	h := ""
	if lost || s == "" {
		sum := sha256.Sum256([]byte(topic))
		h = hex.EncodeToString(sum[:4])
	}
	if s == "" {
		return "t" + h
	}
	limit := maxSlugLen
	if h != "" {
		limit -= len(h) + 1
	}
	if len(s) > limit {
		s = strings.TrimRight(s[:limit], "_")
	}
	if h != "" {
		s += "_" + h
	}
	return s
}

// slugASCII writes the a-z and 0-9 of ascii, lower-cased, to b: a run of
// anything else between two of them becomes one _. gap says whether such a
// run is pending; it returns the new gap.
func slugASCII(b *strings.Builder, ascii string, gap bool) bool {
	for _, r := range strings.ToLower(ascii) {
		if !isASCIIAlnum(r) {
			gap = true
			continue
		}
		if gap && b.Len() > 0 {
			b.WriteByte('_')
		}
		gap = false
		b.WriteRune(r)
	}
	return gap
}

func isASCIIAlnum(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
}

// FileSlug derives the name of a debate's transcript from its topic, in the
// topic's own script: the topic in NFC, lower-cased, its letters, digits and
// combining marks kept (Свобода воли is свобода-воли, 自由意志 vs determinism
// 自由意志-vs-determinism), every other run of characters made one -, cut
// to 40 characters. Seed 001 names its files by the topic this way; the id,
// which shells and the schemas read, stays TopicSlug's ASCII. A topic with
// no letter or digit at all falls back to the id slug.
func FileSlug(topic string) string {
	var out []rune
	gap := false
	for _, r := range norm.NFC.String(strings.ToLower(topic)) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) && len(out) > 0 && !gap:
			if gap && len(out) > 0 {
				out = append(out, '-')
			}
			gap = false
			out = append(out, r)
		default:
			gap = true
		}
	}
	if len(out) == 0 {
		return strings.ReplaceAll(TopicSlug(topic), "_", "-")
	}
	if len(out) > maxSlugLen {
		out = out[:maxSlugLen]
	}
	return strings.TrimRight(string(out), "-")
}

// DebateID is the id of the n-th debate on a topic slug: deb_<slug>, then
// deb_<slug>_2, deb_<slug>_3, ...
func DebateID(slug string, n int) string {
	if n > 1 {
		return "deb_" + slug + "_" + strconv.Itoa(n)
	}
	return "deb_" + slug
}
