package model

import (
	"strings"
	"testing"
)

func TestIDs(t *testing.T) {
	tests := []struct{ got, want string }{
		{RootProblemID("goldbach"), "prob_goldbach"},
		{SubproblemID("prob_goldbach", 1), "prob_goldbach_sub1"},
		{SubproblemID("prob_goldbach_sub1", 12), "prob_goldbach_sub1_sub12"},
		{WrapID("prob_goldbach", 1), "stmt_goldbach_wrap"},
		{WrapID("prob_goldbach", 2), "stmt_goldbach_wrap2"},
		{WrapID("prob_goldbach_sub2", 1), "stmt_goldbach_sub2_wrap"},
		{SubStatementID("stmt_goldbach_wrap", 3), "stmt_goldbach_wrap_sub3"},
		{FixStatementID("stmt_goldbach_wrap", 1), "stmt_goldbach_wrap_fix1"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("id = %q; want %q", tt.got, tt.want)
		}
		if _, err := KindOf(tt.got); err != nil {
			t.Errorf("KindOf(%q) = %v; want valid", tt.got, err)
		}
	}
}

func TestKindOf(t *testing.T) {
	for _, id := range []string{"", "prob_", "stmt", "prob_../x", "stmt_a/b", "stmt_A", "statement_x", "prob_x.json", "stmt_x y", "prob_é", strings.Repeat("a", 200)} {
		if k, err := KindOf(id); err == nil {
			t.Errorf("KindOf(%q) = %s, nil; want an error", id, k)
		}
	}
	if k, err := KindOf("prob_a_1"); k != KindProblem || err != nil {
		t.Errorf("KindOf(prob_a_1) = %s, %v; want problem", k, err)
	}
	if k, err := KindOf("stmt_a_wrap_fix2"); k != KindStatement || err != nil {
		t.Errorf("KindOf(stmt_a_wrap_fix2) = %s, %v; want statement", k, err)
	}
}

func TestCheckName(t *testing.T) {
	for _, ok := range []string{"a", "goldbach_weak", "p1"} {
		if err := CheckName(ok); err != nil {
			t.Errorf("CheckName(%q) = %v; want nil", ok, err)
		}
	}
	for _, bad := range []string{"", "_a", "Goldbach", "a-b", "a/b", "..", strings.Repeat("a", 65)} {
		if err := CheckName(bad); err == nil {
			t.Errorf("CheckName(%q) = nil; want an error", bad)
		}
	}
}

// TestDeepChain builds a chain 60 levels deep, alternating sub- and
// gap-filling statements under subproblems, and checks every id stays a
// valid, unique file name that still names its root.
func TestDeepChain(t *testing.T) {
	name := strings.Repeat("long_name", 7)
	prob := RootProblemID(name)
	seen := map[string]bool{prob: true}
	for i := 0; i < 60; i++ {
		prob = SubproblemID(prob, i%3+1)
		check(t, prob, seen)
	}
	stmt := WrapID(prob, 2)
	check(t, stmt, seen)
	for i := 0; i < 60; i++ {
		parent := stmt
		if i%2 == 0 {
			stmt = SubStatementID(stmt, i%4+1)
		} else {
			stmt = FixStatementID(stmt, 9)
		}
		check(t, stmt, seen)
		if stmt == parent {
			t.Fatalf("level %d: child id equals parent id %q", i, stmt)
		}
		if again := SubStatementID(parent, i%4+1); i%2 == 0 && again != stmt {
			t.Fatalf("level %d: SubStatementID is not deterministic: %q then %q", i, stmt, again)
		}
	}
}

func check(t *testing.T, id string, seen map[string]bool) {
	t.Helper()
	if _, err := KindOf(id); err != nil {
		t.Fatalf("KindOf(%q) = %v", id, err)
	}
	if n := len(id + ".json"); n > 255 || len("."+id+".json12345678901234567890") > 255 {
		t.Fatalf("%q: file name %d bytes; want at most 255 with temp suffix", id, n)
	}
	if !strings.Contains(id, "long_name") {
		t.Fatalf("%q no longer names its root problem", id)
	}
	if seen[id] {
		t.Fatalf("id %q generated twice", id)
	}
	seen[id] = true
}

func TestNextNumber(t *testing.T) {
	taken := []string{"stmt_a_sub1", "stmt_a_fix1", "stmt_a_sub2"}
	if got := NextNumber(taken, func(n int) string { return SubStatementID("stmt_a", n) }); got != 3 {
		t.Errorf("NextNumber(subs) = %d; want 3", got)
	}
	if got := NextNumber(taken, func(n int) string { return FixStatementID("stmt_a", n) }); got != 2 {
		t.Errorf("NextNumber(fixes) = %d; want 2", got)
	}
}
