package model

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// TurnDigests chains a debate's turns, given as the JSON array the debate
// document holds: the i-th digest is the SHA-256 (hex) of the one before it
// and turn i's JSON, re-encoded with its keys sorted (so that whitespace and
// key order do not count, and a field a later version adds to a turn does
// not change the digest of one written before it). An edit of a turn
// changes its digest and every one after. The engine records them with
// every write of a debate and checks them before the next (EditedTurn):
// prior turns are immutable (seed 000's prior-turn immutability, issue 37
// S26).
func TurnDigests(turns []byte) ([]string, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(turns, &items); err != nil {
		return nil, fmt.Errorf("turns: %w", err)
	}
	out := make([]string, 0, len(items))
	prev := ""
	for i, raw := range items {
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("turn %d: %w", i+1, err)
		}
		canon, err := json.Marshal(v) // maps encode with sorted keys
		if err != nil {
			return nil, fmt.Errorf("turn %d: %w", i+1, err)
		}
		h := sha256.New()
		h.Write([]byte(prev))
		h.Write(canon)
		prev = hex.EncodeToString(h.Sum(nil))
		out = append(out, prev)
	}
	return out, nil
}

// EditedTurn returns the number of the first turn whose recorded digest no
// longer matches the turns as they stand (a turn edited, removed or added
// outside the engine), or 0 when they all match.
func EditedTurn(got, recorded []string) int {
	for i := range max(len(got), len(recorded)) {
		if i >= len(got) || i >= len(recorded) || got[i] != recorded[i] {
			return i + 1
		}
	}
	return 0
}
