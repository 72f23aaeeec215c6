package model

import "testing"

// TestTurnDigests: the chain ignores whitespace and key order, and an edit
// of a turn changes its digest and every one after (EditedTurn names it).
func TestTurnDigests(t *testing.T) {
	was, err := TurnDigests([]byte(`[{"turn_number": 1, "body": "Keep it."}, {"turn_number": 2, "body": "Why?"}]`))
	if err != nil || len(was) != 2 {
		t.Fatalf("TurnDigests = %v, %v", was, err)
	}
	same, _ := TurnDigests([]byte(`[{"body":"Keep it.","turn_number":1},{"body":"Why?","turn_number":2}]`))
	if EditedTurn(same, was) != 0 {
		t.Errorf("a turn re-encoded with other whitespace and key order reads as edited")
	}
	for _, tc := range []struct {
		turns string
		want  int
	}{
		{`[{"turn_number": 1, "body": "Drop it."}, {"turn_number": 2, "body": "Why?"}]`, 1},
		{`[{"turn_number": 1, "body": "Keep it."}, {"turn_number": 2, "body": "Why not?"}]`, 2},
		{`[{"turn_number": 1, "body": "Keep it."}]`, 2},
		{`[]`, 1},
	} {
		got, err := TurnDigests([]byte(tc.turns))
		if err != nil {
			t.Fatal(err)
		}
		if n := EditedTurn(got, was); n != tc.want {
			t.Errorf("EditedTurn(%s) = %d; want %d", tc.turns, n, tc.want)
		}
	}
	if _, err := TurnDigests([]byte(`{`)); err == nil {
		t.Errorf("TurnDigests of malformed JSON: no error")
	}
}
