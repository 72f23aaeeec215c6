package model

import "slices"

// Nearest returns up to n of candidates nearest to word by edit distance,
// nearest first (ties in the candidates' order), keeping only those within
// a third of word's length (at least 2 edits): the "did you mean" of an
// unknown id or flag.
func Nearest(word string, candidates []string, n int) []string {
	return NearestWithin(word, candidates, n, NearLimit(word))
}

// NearestWithin is Nearest with the number of edits allowed given.
func NearestWithin(word string, candidates []string, n, limit int) []string {
	type near struct {
		s string
		d int
	}
	var found []near
	for _, c := range candidates {
		if d := EditDistance(word, c, limit); d <= limit && c != word {
			found = append(found, near{c, d})
		}
	}
	slices.SortStableFunc(found, func(a, b near) int { return a.d - b.d })
	var out []string
	for _, f := range found[:min(n, len(found))] {
		out = append(out, f.s)
	}
	return out
}

// NearLimit is how many edits away a suggestion for word may be.
func NearLimit(word string) int { return max(2, len(word)/3) }

// EditDistance is the Levenshtein distance of a and b (bytes), or limit+1
// as soon as it must exceed limit.
func EditDistance(a, b string, limit int) int {
	if d := len(a) - len(b); d > limit || -d > limit {
		return limit + 1
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		best := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			best = min(best, cur[j])
		}
		if best > limit {
			return limit + 1
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
