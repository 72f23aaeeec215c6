package main

import (
	"bytes"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proofloop/proofloop/store"
)

// TestRunWithoutCobra runs prime's and next's run functions over their
// options, as a caller without the command tree would: the outputs are the
// commands' own, and a bad option is refused as the command refuses it.
func TestRunWithoutCobra(t *testing.T) {
	root := filepath.Join(t.TempDir(), "contents")
	for _, args := range [][]string{{"init"}, {"new-problem", "--name", "odd", "--objective", "show it"}} {
		var errb bytes.Buffer
		if code := run(append([]string{"--root", root}, args...), strings.NewReader(""), io.Discard, &errb); code != 0 {
			t.Fatalf("%s: exit %d: %s", args[0], code, errb.String())
		}
	}
	var out bytes.Buffer
	a := &app{root: root, actor: "tester", stdout: &out, stderr: io.Discard}
	if err := a.runNext(store.TxOptions{Command: "next", Actor: "tester"}, nextOptions{Role: "solve"}); err != nil {
		t.Fatalf("runNext: %v", err)
	}
	if want := "solve   prob_odd [pending]: needs a wrap-up statement\n"; out.String() != want {
		t.Errorf("runNext --role solve printed %q; want %q", out.String(), want)
	}
	out.Reset()
	if err := a.runPrime(primeOptions{Role: "solve"}); err != nil {
		t.Fatalf("runPrime: %v", err)
	}
	if got := out.String(); !strings.HasPrefix(got, "You are the solve agent") || !strings.Contains(got, "prob_odd [pending]") {
		t.Errorf("runPrime --role solve printed %q; want the solve orientation naming prob_odd", got)
	}
	err := a.runNext(store.TxOptions{Command: "next"}, nextOptions{Role: "solve", Claim: true})
	if store.CodeOf(err) != store.CodeUsage || !strings.Contains(err.Error(), "--claim needs --holder") {
		t.Errorf("runNext --claim without --holder = %v; want the usage refusal", err)
	}
}
