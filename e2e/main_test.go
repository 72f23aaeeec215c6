// Package e2e runs the real proofloop binary as many concurrent agents, with
// and without kill -9, and checks the store's invariants afterwards. Every
// call is a separate process, as in production: the lock, the journal and
// recovery are exercised across processes, not goroutines.
package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/proofloop/proofloop/internal/pgtest"
)

// bin is the proofloop binary that TestMain builds once for all tests: the
// lean build, with proofloop-full beside it, as make build writes them.
var bin string

func TestMain(m *testing.M) {
	code := buildAndRun(m)
	cluster.Done()
	os.Exit(code)
}

// cluster is the PostgreSQL cluster of the tests that run on that store,
// started by the first of them.
var cluster pgtest.Shared

func buildAndRun(m *testing.M) int {
	dir, err := os.MkdirTemp("", "proofloop-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	bin = filepath.Join(dir, "proofloop")
	// As make build does: the lean build, and the full one beside it.
	for out, tags := range map[string]string{bin: "lean", filepath.Join(dir, "proofloop-full"): ""} {
		// go test puts its own go command first on PATH.
		build := exec.Command("go", "build", "-tags", tags, "-o", out, "github.com/proofloop/proofloop/cmd/proofloop")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if err := build.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "e2e: building proofloop:", err)
			return 1
		}
	}
	return m.Run()
}

// scale is 10 under PROOFLOOP_SOAK=1, else 1: the soak mode runs ten times
// as many calls.
func scale() int {
	if os.Getenv("PROOFLOOP_SOAK") == "1" {
		return 10
	}
	return 1
}
