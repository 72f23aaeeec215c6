package model

import "testing"

func TestA(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"reviewer", "a reviewer"}, {"induction", "an induction"}, {"agora", "an agora"},
		{"editor", "an editor"}, {"opponent", "an opponent"}, {"user", "a user"}, {"main", "a main"},
	} {
		if got := A(c.in); got != c.want {
			t.Errorf("A(%q) = %q; want %q", c.in, got, c.want)
		}
	}
}
