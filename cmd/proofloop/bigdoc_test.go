package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBigDocumentHandEdit: a statement past 32 KB, whose commits check only
// what they change and whose reads skip the whole check for the bytes the
// last commit checked (docs/decisions.md), is still refused with exit 6 and
// store_damaged, nothing written, once a hand edit breaks a part no call
// touches (an issue's error type deep in the list).
func TestBigDocumentHandEdit(t *testing.T) {
	t.Setenv("PROOFLOOP_LEASE", "")
	c := emptyFolder(t)
	c.must("", "human", "init")
	c.must("", "solver", "new-problem", "--name", "big", "--objective", "The sum of the first n odd numbers is n^2.")
	c.must("", "solver", "prob-wrapup-statement", "--problem-path", "prob_big", "--claim", "The sum of the first n odd numbers is n^2.",
		"--premises", "n is a positive integer", "--purpose", "This is the objective itself.")
	var proof strings.Builder
	proof.WriteString("Step 1: The first odd number is 1, a square. Step 2: If the sum up to 2n-1 is n^2, adding 2n+1 gives (n+1)^2.")
	for k := 3; proof.Len() < 40<<10; k++ {
		fmt.Fprintf(&proof, " Step %d: The %d-th odd number is %d, so the partial sum up to it is %d, a square.", k, k, 2*k-1, k*k)
	}
	c.must("", "prover", "state-complete-proof", "--statement-path", "stmt_big_wrap", "--strategy", "induction", "--proof-text", proof.String())
	reject := []string{"--json", "check-reject-proof", "--statement-path", "stmt_big_wrap", "--sentence-number", "2",
		"--sentence-text", "adding 2n+1 gives (n+1)^2", "--error-type", "unjustified_leap",
		"--explanation", "The identity is used without being shown."}
	c.must("", "checker", reject...)
	again := append(reject[:len(reject)-1:len(reject)-1], "The identity is used, again, without being shown.")
	c.must("", "checker", again...) // read as its last commit checked it (a word-for-word repeat would be refused)

	p := filepath.Join(c.root, "statement", "stmt_big_wrap.json")
	raw, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(raw), `"error_type": "unjustified_leap"`, `"error_type": "no_such_type"`, 1)
	if len(raw) < 40<<10 || edited == string(raw) {
		t.Fatalf("the statement is %d bytes and the edit changed nothing: %t", len(raw), edited == string(raw))
	}
	if err := os.WriteFile(p, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	before := treeOf(t, c.root)
	code, out, _ := c.do("", "checker", reject...)
	if code != 6 || !strings.Contains(out, `"store_damaged"`) {
		t.Errorf("check-reject-proof on a hand-edited big statement: exit %d, %s; want exit 6, store_damaged", code, out)
	}
	after := treeOf(t, c.root)
	for name, b := range before {
		if after[name] != b {
			t.Errorf("%s changed", name)
		}
	}
	for name := range after {
		if _, ok := before[name]; !ok {
			t.Errorf("%s was created", name)
		}
	}
}

// treeOf is every file under root with its content.
func treeOf(t *testing.T, root string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		m[strings.TrimPrefix(p, root)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}
