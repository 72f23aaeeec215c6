// Package seal says where canaries' labels are kept: a folder of the
// person who runs `proofloop run`, outside every project, and it refuses
// to read a file there, or a canary set, for a command an agent could run.
// docs/eval.md says what it keeps and why there.
package seal

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/proofloop/proofloop/store"
)

// EnvDir names the seal folder when set. run passes it on to its agents,
// whose proofloop then refuses to read a file there (Guard).
const EnvDir = "PROOFLOOP_SEAL_DIR"

// Dir is the seal folder: $PROOFLOOP_SEAL_DIR, else
// $XDG_STATE_HOME/proofloop/seal, else ~/.local/state/proofloop/seal (the
// XDG base directory specification's state folder: data that lasts
// between runs and belongs to one user on one machine).
func Dir() (string, error) {
	if d := os.Getenv(EnvDir); d != "" {
		return filepath.Abs(d)
	}
	if d := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "proofloop", "seal"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", store.Errorf(store.CodeInvalidInput, "no folder for canaries' seal: %v", err).
			WithHint("set $" + EnvDir + " to a folder of yours outside every project")
	}
	return filepath.Join(home, ".local", "state", "proofloop", "seal"), nil
}

// Real is path made absolute with its symlinks resolved, through the
// deepest part of it that exists.
func Real(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	rest := ""
	for p := abs; ; p = filepath.Dir(p) {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(r, rest)
		}
		if p == filepath.Dir(p) {
			return abs
		}
		rest = filepath.Join(filepath.Base(p), rest)
	}
}

// Within reports whether path lies in folder dir (or is it), both resolved
// by Real.
func Within(path, dir string) bool {
	rel, err := filepath.Rel(Real(dir), Real(path))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// Guard refuses to read path for a command an agent may run (a text
// flag's @FILE, --input FILE, a debate's --source) when it is one of the
// canary sets of config.json or lies in the seal folder: no command an
// agent role can run reads a canary's label. A hard link or a copy made
// beforehand is beyond it (docs/eval.md).
func Guard(path string, sets []string) error {
	real := Real(path)
	same := func(p string) bool {
		if Real(p) == real {
			return true
		}
		a, errA := os.Stat(p)
		b, errB := os.Stat(path)
		return errA == nil && errB == nil && os.SameFile(a, b)
	}
	for _, s := range sets {
		if same(s) {
			return refuse(path)
		}
	}
	if dir, err := Dir(); err == nil && Within(path, dir) {
		return refuse(path)
	}
	return nil
}

func refuse(path string) error {
	return store.Errorf(store.CodeInvalidInput, "cannot read %s: it is a person's canary set or seal, which no command an agent may run reads", path).
		WithHint("give the text itself, or a file of the project")
}

// MkdirAll makes the seal folder dir, readable by its owner alone.
func MkdirAll(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return store.Errorf(store.CodeInvalidInput, "cannot make the seal folder %s: %v", dir, err).
			WithHint("set $" + EnvDir + " to a folder of yours outside every project")
	}
	return nil
}
