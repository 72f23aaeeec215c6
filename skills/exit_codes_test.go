package skills

import (
	"testing"

	"github.com/proofloop/proofloop/store"
)

func TestExitOf(t *testing.T) {
	for c, want := range map[store.Code]int{store.CodeInvalidInput: 2, store.CodeNotFound: 3, store.CodeGuardFailed: 4, store.CodeLeaseHeld: 5, store.CodeStoreDamaged: 6, "bogus": 1} {
		if got := ExitOf(c); got != want {
			t.Errorf("ExitOf(%s) = %d; want %d", c, got, want)
		}
	}
}
