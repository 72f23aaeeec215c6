package model

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Span is one sentence of a proof: text[Start:End], byte offsets, trimmed of
// surrounding whitespace, never empty.
type Span struct{ Start, End int }

// ErrSentenceRange is wrapped by the error ReplaceSentences returns for a
// sentence range the proof does not have.
var ErrSentenceRange = errors.New("sentence range out of bounds")

// SplitSentences numbers a proof into sentences. Spans are ordered, disjoint,
// non-empty, and only whitespace (unicode.IsSpace) lies between and around
// them. The rules, applied in one left-to-right pass:
//
//   - A sentence ends at '.', '?' or '!' followed, after optional closing
//     ) ] " ' ’ ”, by whitespace or the end of the text; the closers belong
//     to the sentence. It does not end there when the next non-space
//     character is a lowercase letter (an unknown abbreviation, "approx.
//     equal"), nor at the '.' of a whole-word abbreviation from
//     abbreviations ("e.g.", "Thm.", "w.r.t.", ...), nor inside a decimal or
//     a reference like "Lemma 2.3" (no whitespace follows the '.'). A single
//     capital initial ("the set A. Then") does end a sentence: in proofs that
//     is far more often a named object than a person's initial.
//   - Math is never split: $..$, $$..$$, \(..\), \[..\] and
//     \begin{E}..\end{E} for the environments in displayEnvs. \$ and \\ are
//     escapes, not delimiters. Math does not run across a blank line (TeX
//     refuses that too), so a delimiter not closed before the next blank line
//     is literal text and one stray '$' cannot swallow the rest of the proof.
//   - A display block ($$, \[ or an environment) whose content ends with
//     '.', '?' or '!' ends the sentence after its closing delimiter, unless
//     the next non-space character is a lowercase letter.
//   - A blank line (only whitespace) always ends a sentence.
//   - A line break followed, after indentation, by a list item starts a new
//     sentence. Items are "- ", "* ", "+ ", "• ", "1. ", "1) ", "(1) ",
//     "(a) " (one lowercase letter or a roman numeral up to xii), "Step 1:"
//     and "Case 1." (':' or '.'), each followed by whitespace or the end of
//     the text. A marker at the start of any sentence belongs to it, and its
//     period never ends a sentence.
//
// Empty or whitespace-only text has no sentences. Invalid UTF-8 is ordinary
// non-space text. The pass is O(n): a failed search for a closing delimiter
// is remembered, so it is not repeated.
func SplitSentences(text string) []Span {
	s := splitter{text: text, start: -1, noClose: map[string]int{}}
	for i := 0; i < len(text); {
		i = s.step(i)
	}
	s.cut()
	return s.spans
}

// Sentences returns the text of each sentence of a proof, in order; an
// empty list, never nil, when there are none.
func Sentences(text string) []string { return spanTexts(text, SplitSentences(text)) }

// spanTexts returns the text of each of text's spans.
func spanTexts(text string, spans []Span) []string {
	out := make([]string, len(spans))
	for i, sp := range spans {
		out[i] = text[sp.Start:sp.End]
	}
	return out
}

// ReplaceSentences replaces sentences first..last (1-based, inclusive) with
// replacement. Every byte outside text[spans[first-1].Start:spans[last-1].End]
// is kept, including the whitespace around the replaced sentences. It
// returns an error wrapping ErrSentenceRange when first < 1, last < first or
// last is past the last sentence.
func ReplaceSentences(text string, first, last int, replacement string) (string, error) {
	return ReplaceSpans(text, SplitSentences(text), first, last, replacement)
}

// ReplaceSpans is ReplaceSentences on text already split into spans
// (SplitSentences(text), or Facts.ProofSpans).
func ReplaceSpans(text string, spans []Span, first, last int, replacement string) (string, error) {
	if first < 1 || last < first || last > len(spans) {
		return "", &sentenceRangeError{first, last, len(spans)}
	}
	return text[:spans[first-1].Start] + replacement + text[spans[last-1].End:], nil
}

// sentenceRangeError says which range was asked for and which the proof has.
type sentenceRangeError struct{ first, last, count int }

func (e *sentenceRangeError) Error() string {
	asked := fmt.Sprintf("sentences %d-%d", e.first, e.last)
	if e.first == e.last {
		asked = fmt.Sprintf("sentence %d", e.first)
	}
	why := ""
	switch {
	case e.first < 1:
		why = "sentences are numbered from 1; "
	case e.last < e.first:
		why = "the first sentence must not come after the last; "
	}
	return asked + " out of range: " + why + ProofHas(e.count)
}

func (e *sentenceRangeError) Unwrap() error { return ErrSentenceRange }

// abbreviations never end a sentence. They are matched case-sensitively, as
// whole words: the character before them is not a letter or digit.
var abbreviations = []string{
	"e.g.", "E.g.", "i.e.", "I.e.", "cf.", "Cf.", "resp.", "w.r.t.", "w.l.o.g.", "W.l.o.g.",
	"etc.", "viz.", "ibid.", "vs.", "approx.", "a.e.", "a.s.",
	"Thm.", "Thms.", "Lem.", "Prop.", "Props.", "Def.", "Defs.", "Cor.", "Rem.", "Ex.",
	"Eq.", "Eqs.", "Eqn.", "Eqns.", "Fig.", "Sec.", "Ch.", "No.", "Prob.", "Conj.", "Ref.",
	"p.", "pp.", "Dr.", "Mr.", "Mrs.", "St.",
}

// displayEnvs are the LaTeX environments read as display math.
var displayEnvs = map[string]bool{
	"equation": true, "equation*": true, "align": true, "align*": true,
	"gather": true, "gather*": true, "multline": true, "multline*": true,
	"eqnarray": true, "eqnarray*": true,
}

// romanItems are the item labels "(ii)" to "(xii)" of more than one letter.
const romanItems = " ii iii iv vi vii viii ix xi xii "

type splitter struct {
	text    string
	spans   []Span
	start   int            // offset of the current sentence, -1 between sentences
	end     int            // end of the current sentence's last non-space rune
	noClose map[string]int // closer -> offset before which it is known not to occur
}

// step reads the rune at i, with whatever it opens, and returns the offset
// after it.
func (s *splitter) step(i int) int {
	t := s.text
	r, size := rune(t[i]), 1
	if r >= utf8.RuneSelf {
		r, size = utf8.DecodeRuneInString(t[i:])
	}
	if unicode.IsSpace(r) {
		if r == '\n' && s.start >= 0 && breakAfter(t, i) {
			s.cut()
		}
		return i + size
	}
	if s.start < 0 {
		s.start = i
		if m := listMarker(t, i); m > 0 {
			s.end = m
			return m
		}
	}
	next, stop := i+size, false
	switch {
	case r == '\\' && i+1 < len(t) && (t[i+1] == '\\' || t[i+1] == '$'):
		next = i + 2
	case r == '$' || r == '\\':
		open, closer, display := opener(t[i:])
		if open == "" {
			break
		}
		next = i + len(open) // unclosed: the delimiter is literal text
		if c := s.find(next, closer); c >= 0 {
			body := strings.TrimRightFunc(t[next:c], unicode.IsSpace)
			next = c + len(closer)
			stop = display && body != "" && strings.IndexByte(".?!", body[len(body)-1]) >= 0 && canEnd(t, next)
		}
	case r == '.' || r == '?' || r == '!':
		j := skipClosers(t, next)
		if canEnd(t, j) && !(r == '.' && abbreviation(t[:next])) && !(r == '.' && ellipsisGoesOn(t, next, j)) {
			next, stop = j, true
		}
	}
	s.end = next
	if stop {
		s.cut()
	}
	return next
}

// cut closes the current sentence, if any.
func (s *splitter) cut() {
	if s.start >= 0 {
		s.spans = append(s.spans, Span{s.start, s.end})
		s.start = -1
	}
}

// find returns the offset of the first closer at or after from, skipping
// escapes, or -1 when a blank line or the end of the text comes first.
func (s *splitter) find(from int, closer string) int {
	if from < s.noClose[closer] {
		return -1
	}
	t := s.text
	for i := from; i < len(t); i++ {
		switch {
		case strings.HasPrefix(t[i:], closer):
			return i
		case t[i] == '\\' && i+1 < len(t) && (t[i+1] == '\\' || t[i+1] == '$'):
			i++
		case t[i] == '\n' && blankAfter(t, i):
			s.noClose[closer] = i
			return -1
		}
	}
	s.noClose[closer] = len(t)
	return -1
}

// opener returns the math delimiter rest starts with and its closer, or
// empty strings.
func opener(rest string) (open, closer string, display bool) {
	switch {
	case strings.HasPrefix(rest, "$$"):
		return "$$", "$$", true
	case strings.HasPrefix(rest, "$"):
		return "$", "$", false
	case strings.HasPrefix(rest, `\(`):
		return `\(`, `\)`, false
	case strings.HasPrefix(rest, `\[`):
		return `\[`, `\]`, true
	case strings.HasPrefix(rest, `\begin{`):
		name := rest[len(`\begin{`):]
		name = name[:min(len(name), len("multline*}"))]
		if k := strings.IndexByte(name, '}'); k > 0 && displayEnvs[name[:k]] {
			return `\begin{` + name[:k] + "}", `\end{` + name[:k] + "}", true
		}
	}
	return "", "", false
}

// canEnd reports whether a sentence may end just before j: whitespace or the
// end of the text follows, and the next non-space rune is not lowercase.
func canEnd(t string, j int) bool {
	k := j
	for k < len(t) {
		r, size := utf8.DecodeRuneInString(t[k:])
		if !unicode.IsSpace(r) {
			return k > j && !unicode.IsLower(r)
		}
		k += size
	}
	return true
}

// ellipsisGoesOn reports whether the '.' ending at next closes an ellipsis
// ("1 + ... + n") that the text goes on after: an ellipsis ends a sentence
// only before an uppercase letter or at the end of the text.
func ellipsisGoesOn(t string, next, j int) bool {
	if next < 3 || t[next-3:next] != "..." {
		return false
	}
	rest := strings.TrimLeftFunc(t[j:], unicode.IsSpace)
	if rest == "" {
		return false
	}
	r, _ := utf8.DecodeRuneInString(rest)
	return !unicode.IsUpper(r)
}

// skipClosers returns the offset after the closing brackets and quotes at j.
func skipClosers(t string, j int) int {
	for j < len(t) {
		r, size := utf8.DecodeRuneInString(t[j:])
		if !strings.ContainsRune(`)]"'’”`, r) {
			return j
		}
		j += size
	}
	return j
}

// abbreviation reports whether before, which ends with '.', ends with a
// whole-word abbreviation. Each abbreviation is compared only when its
// byte before the final '.' matches: a sentence of a long proof ends at
// each of its periods, and comparing all of them there was most of the
// split's time.
func abbreviation(before string) bool {
	if len(before) < 2 {
		return false
	}
	c := before[len(before)-2]
	for _, a := range abbreviations {
		if a[len(a)-2] == c && strings.HasSuffix(before, a) {
			r, _ := utf8.DecodeLastRuneInString(before[:len(before)-len(a)])
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				return true
			}
		}
	}
	return false
}

// blankAfter reports whether the line after the '\n' at i holds only
// whitespace.
func blankAfter(t string, i int) bool {
	j := indent(t, i+1)
	return j == len(t) || t[j] == '\n'
}

// breakAfter reports whether the '\n' at i ends a sentence: a blank line or
// a list item follows.
func breakAfter(t string, i int) bool {
	j := indent(t, i+1)
	return j == len(t) || t[j] == '\n' || listMarker(t, j) > 0
}

// indent returns the offset of the first '\n' or non-space rune at or after j.
func indent(t string, j int) int {
	for j < len(t) && t[j] != '\n' {
		r, size := utf8.DecodeRuneInString(t[j:])
		if !unicode.IsSpace(r) {
			break
		}
		j += size
	}
	return j
}

// listMarker returns the offset after the list item marker at i, or -1.
func listMarker(t string, i int) int {
	rest := t[i:]
	n := 0
	switch {
	case rest == "":
		return -1
	case strings.IndexByte("-*+", rest[0]) >= 0:
		n = 1
	case strings.HasPrefix(rest, "•"):
		n = len("•")
	case strings.HasPrefix(rest, "Step "), strings.HasPrefix(rest, "Case "):
		if d := digits(rest[5:]); d > 0 && 5+d < len(rest) && (rest[5+d] == ':' || rest[5+d] == '.') {
			n = 5 + d + 1
		}
	case rest[0] == '(':
		inner := rest[1:]
		k := digits(inner)
		if k == 0 {
			for k < len(inner) && k < 4 && 'a' <= inner[k] && inner[k] <= 'z' {
				k++
			}
			if k > 1 && !strings.Contains(romanItems, " "+inner[:k]+" ") {
				k = 0
			}
		}
		if k > 0 && k < len(inner) && inner[k] == ')' {
			n = k + 2
		}
	default:
		if d := digits(rest); d > 0 && d < len(rest) && (rest[d] == '.' || rest[d] == ')') {
			n = d + 1
		}
	}
	if n == 0 {
		return -1
	}
	if r, _ := utf8.DecodeRuneInString(rest[n:]); n < len(rest) && !unicode.IsSpace(r) {
		return -1
	}
	return i + n
}

// digits counts the ASCII digits s starts with.
func digits(s string) int {
	n := 0
	for n < len(s) && '0' <= s[n] && s[n] <= '9' {
		n++
	}
	return n
}
