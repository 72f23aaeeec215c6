package model

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// TurnDigests chains a debate's turns: the i-th digest is the SHA-256 (hex)
// of the one before it and turn i's JSON, so an edit of a turn changes its
// digest and every one after. The engine records them with every write of
// a debate and checks them before the next (EditedTurn): prior turns are
// immutable (seed 000's prior-turn immutability, issue 37 S26).
func TurnDigests(turns []DebateTurn) []string {
	out := make([]string, 0, len(turns))
	prev := ""
	for _, t := range turns {
		b, _ := json.Marshal(t) // a struct of strings, numbers and slices: it always encodes
		h := sha256.New()
		h.Write([]byte(prev))
		h.Write(b)
		prev = hex.EncodeToString(h.Sum(nil))
		out = append(out, prev)
	}
	return out
}

// EditedTurn returns the number of the first turn whose recorded digest no
// longer matches the turns as they stand (a turn edited, removed or added
// outside the engine), or 0 when they match or the debate records no
// digests (one written before they were kept).
func EditedTurn(turns []DebateTurn, recorded []string) int {
	if recorded == nil {
		return 0
	}
	got := TurnDigests(turns)
	for i := range max(len(got), len(recorded)) {
		if i >= len(got) || i >= len(recorded) || got[i] != recorded[i] {
			return i + 1
		}
	}
	return 0
}
