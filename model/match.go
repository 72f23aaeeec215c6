package model

import (
	"fmt"
	"strings"
	"unicode"
)

// MatchSentence checks that quote is sentence n of proof, or a part of it.
// The comparison ignores whitespace, so a quote copied across a line break
// still matches. On a mismatch the error shows the actual sentence and, if
// the quote appears in another sentence, that sentence's number.
func MatchSentence(proof string, n int, quote string) error {
	return matchSpans(proof, SplitSentences(proof), n, quote)
}

// matchSpans is MatchSentence on a proof already split into spans.
func matchSpans(proof string, spans []Span, n int, quote string) error {
	sents := spanTexts(proof, spans)
	if n < 1 || n > len(sents) {
		return fmt.Errorf("sentence %d is out of range: %s", n, ProofHas(len(sents)))
	}
	q := squash(strings.Trim(strings.TrimSpace(quote), "\"“”'‘’"))
	if q == "" {
		return fmt.Errorf("sentence_text is empty; quote sentence %d or a part of it", n)
	}
	if strings.Contains(squash(sents[n-1]), q) {
		return nil
	}
	msg := fmt.Sprintf("sentence_text does not match sentence %d, which reads: %q", n, sents[n-1])
	for i, s := range sents {
		if strings.Contains(squash(s), q) {
			return fmt.Errorf("%s; the quoted text is in sentence %d", msg, i+1)
		}
	}
	return fmt.Errorf("%s; the quoted text appears in no sentence of the proof", msg)
}

// squash removes every whitespace character.
func squash(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}
