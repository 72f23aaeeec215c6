package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// needCoq skips a test that runs Coq's kernel, loudly, when coqc is not
// installed (make test installs it: the Makefile's coq step).
func needCoq(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("coqc"); err != nil {
		t.Skipf("\n%s\nSKIPPED: NO COQC FOUND. The kernel checks of the formal track did not run.\n"+
			"Install Coq with `apt-get install -y coq` (make test tries).\n%s", strings.Repeat("!", 70), strings.Repeat("!", 70))
	}
}

// contractChecker writes a checker of the result contract (docs/formal.md)
// that prints result as its last line, and returns its path: a script in a
// folder of its own that any user may read, since the sandbox runs the
// checker as nobody when the tests run as root.
func contractChecker(t testing.TB, result string) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "proofloop-checker-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "check.sh")
	script := "#!/bin/sh\n# $1 Statement file, $2 Proof file, $3 the theorem\ntest -f \"$1\" && test -f \"$2\" && test -n \"$3\" || exit 9\necho '" + result + "'\n"
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}
