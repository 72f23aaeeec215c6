// Package formal runs a proof assistant's kernel on a statement's formal
// proof, as the engine's own check: the comparator-style acceptance rules,
// the refusal of dangerous vernacular before any run, the sandbox the
// checker runs in, and the verdict. Coq is built in; another system plugs
// in as a configured command with the result contract of docs/formal.md.
package formal

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A sentence is one Coq vernacular sentence: its words (identifiers,
// keywords, punctuation) with comments left out and each string literal one
// word, and the line it starts on.
type sentence struct {
	words []word
	line  int
}

// word is one lexeme of a sentence.
type word struct {
	text   string
	str    bool // a string literal (text is its contents)
	line   int
	column int
}

// LexError is a text that cannot be split into sentences: an unterminated
// comment or string, or a last sentence with no period.
type LexError struct {
	Line int
	Msg  string
}

func (e *LexError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// sentences splits Coq source into its sentences the way Coq's lexer
// does: comments nest, and a string inside a comment is a string (so
// `(* "*)" *)` is one comment); a string's "" is a quote; a sentence ends at
// a period followed by a blank or the end of the text, so `Nat.add` and
// `x..y` do not end one. A comment or string left open, or text after the
// last period, is refused: the engine appends its own commands after the
// text, which such a text would swallow.
func sentences(src string) ([]sentence, error) {
	l := &lexer{src: src, line: 1}
	var out []sentence
	var cur sentence
	for l.i < len(src) {
		c := src[l.i]
		switch {
		case strings.HasPrefix(src[l.i:], "(*"):
			if err := l.comment(); err != nil {
				return nil, err
			}
		case c == '"':
			w, err := l.str()
			if err != nil {
				return nil, err
			}
			cur = l.add(cur, w)
		case c == '\n':
			l.line++
			l.i++
			l.col = l.i
		case c == ' ' || c == '\t' || c == '\r' || c == '\f':
			l.i++
		case c == '.' && l.endsSentence():
			l.i++
			if len(cur.words) > 0 {
				out = append(out, cur)
			}
			cur = sentence{}
		default:
			cur = l.add(cur, l.token())
		}
	}
	if len(cur.words) > 0 {
		return nil, &LexError{cur.line, fmt.Sprintf("the text ends in the middle of a sentence (%q...): end every sentence with a period", cur.words[0].text)}
	}
	return out, nil
}

type lexer struct {
	src       string
	i         int
	line, col int // col: the offset where the current line starts
}

func (l *lexer) add(s sentence, w word) sentence {
	if len(s.words) == 0 {
		s.line = w.line
	}
	s.words = append(s.words, w)
	return s
}

// endsSentence reports whether the period at l.i ends a sentence: a blank
// or the end of the text follows it, and it is not one of `..` or `...`.
func (l *lexer) endsSentence() bool {
	next := l.i + 1
	if next < len(l.src) && l.src[next] == '.' {
		return false
	}
	if l.i > 0 && l.src[l.i-1] == '.' {
		return false
	}
	if next == len(l.src) {
		return true
	}
	r, _ := utf8.DecodeRuneInString(l.src[next:])
	return unicode.IsSpace(r)
}

// comment skips a comment, nested ones and strings inside included.
func (l *lexer) comment() error {
	start, depth := l.line, 0
	for l.i < len(l.src) {
		switch {
		case strings.HasPrefix(l.src[l.i:], "(*"):
			depth++
			l.i += 2
		case strings.HasPrefix(l.src[l.i:], "*)"):
			depth--
			l.i += 2
			if depth == 0 {
				return nil
			}
		case l.src[l.i] == '"':
			if _, err := l.str(); err != nil {
				return err
			}
		case l.src[l.i] == '\n':
			l.line++
			l.i++
			l.col = l.i
		default:
			l.i++
		}
	}
	return &LexError{start, "a comment opened here is never closed"}
}

// str reads a string literal; "" inside it is one quote.
func (l *lexer) str() (word, error) {
	w := word{str: true, line: l.line, column: l.i - l.col}
	var b strings.Builder
	l.i++
	for l.i < len(l.src) {
		c := l.src[l.i]
		switch {
		case c == '"' && l.i+1 < len(l.src) && l.src[l.i+1] == '"':
			b.WriteByte('"')
			l.i += 2
		case c == '"':
			l.i++
			w.text = b.String()
			return w, nil
		default:
			if c == '\n' {
				l.line++
				l.col = l.i + 1
			}
			b.WriteByte(c)
			l.i++
		}
	}
	return w, &LexError{w.line, "a string opened here is never closed"}
}

// token reads an identifier (qualified names included: Coq.Init.Nat) or
// one character of punctuation.
func (l *lexer) token() word {
	w := word{line: l.line, column: l.i - l.col}
	start := l.i
	for l.i < len(l.src) {
		r, n := utf8.DecodeRuneInString(l.src[l.i:])
		if identRune(r) || (r == '.' && l.i > start && l.i+1 < len(l.src) && identStart(l.src[l.i+1:])) {
			l.i += n
			continue
		}
		break
	}
	if l.i == start {
		_, n := utf8.DecodeRuneInString(l.src[l.i:])
		l.i += n
	}
	w.text = l.src[start:l.i]
	return w
}

func identRune(r rune) bool {
	return r == '_' || r == '\'' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

func identStart(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return r == '_' || unicode.IsLetter(r)
}

// ident reports whether w is an identifier (not punctuation, not a string).
func (w word) ident() bool {
	if w.str || w.text == "" {
		return false
	}
	r, _ := utf8.DecodeRuneInString(w.text)
	return r == '_' || unicode.IsLetter(r)
}

// last is the last component of a qualified identifier: admit of
// Coq.Init.Tactics.admit.
func (w word) last() string {
	if i := strings.LastIndexByte(w.text, '.'); i >= 0 {
		return w.text[i+1:]
	}
	return w.text
}
