package model

import (
	"fmt"
	"strings"
)

// Count puts a number before a noun and makes the noun agree with it: "1
// issue", "0 issues", "3 sub-statements". Every noun proofloop counts takes
// a plain -s.
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// ProofHas says how many sentences a proof has, for range errors: "the proof
// has no sentences", "the proof has 1 sentence (1)", "the proof has 4
// sentences (1-4)".
func ProofHas(n int) string {
	switch n {
	case 0:
		return "the proof has no sentences"
	case 1:
		return "the proof has 1 sentence (1)"
	}
	return fmt.Sprintf("the proof has %d sentences (1-%d)", n, n)
}

// A puts "a" or "an" before a role name, by its first letter: "a
// reviewer", "an induction" (an agora position). A leading u counts as a
// consonant, for "a user".
func A(noun string) string {
	if noun != "" && strings.ContainsRune("aeio", rune(noun[0])) {
		return "an " + noun
	}
	return "a " + noun
}
