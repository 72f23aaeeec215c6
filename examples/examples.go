// Package examples holds the example project, embedded in the binary so
// that `proofloop init --example DIR` can write a fresh copy of it
// anywhere, and `make demo` never runs on (or changes) a tracked file.
// The committed contents/ is the same project for browsing; a test keeps
// the two identical.
//
// The scripted agents that config.json names ship in the binary too
// (agents.go): `proofloop example-agent NAME` runs agents/NAME.sh, so the
// example's `proofloop run` works from any folder.
package examples

import (
	"embed"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// ProjectDir is the example project's folder in this package.
const ProjectDir = "odd_squares"

// The project's .gitignore is named on its own: a pattern does not match
// a file whose name starts with a dot.
//
//go:embed odd_squares odd_squares/.gitignore
var project embed.FS

// Project returns the example project's files: a contents root with its
// config.json, events.jsonl and documents, and a .gitignore that keeps the
// root's derived and private files (index.db, leases/, runs/) out of git.
func Project() fs.FS {
	sub, err := fs.Sub(project, ProjectDir)
	if err != nil {
		panic(err) // the embedded tree has the folder: a build error if not
	}
	return sub
}

// WriteProject writes a fresh copy of the example project to dir, which
// must not exist, be empty or hold only a README.md (a checkout's contents/
// holds its README), and returns the paths it wrote (relative to
// dir, slash-separated). config.json comes last: its presence marks a
// finished contents root, so an interrupted copy is not taken for one.
func WriteProject(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if len(entries) == 1 && entries[0].Name() == "README.md" && entries[0].Type().IsRegular() {
		entries = nil
	}
	switch {
	case err == nil && len(entries) > 0:
		return nil, store.Errorf(store.CodeGuardFailed, "%s is not empty: init --example writes a fresh copy of the example only into a new or empty folder (or one holding only a README.md)", dir).
			WithHint("remove it first, or name another folder")
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, store.Errorf(store.CodeInvalidInput, "cannot use %s for the example", dir).Wrap(err)
	}
	for _, d := range []string{model.KindProblem.Dir(), model.KindStatement.Dir(), store.LeaseDir} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return nil, store.Errorf(store.CodeInvalidInput, "cannot create %s", filepath.Join(dir, d)).Wrap(err)
		}
	}
	src := Project()
	var files []string
	err = fs.WalkDir(src, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || p == store.ConfigFile {
			return err
		}
		files = append(files, p)
		return nil
	})
	if err != nil {
		return nil, store.Errorf(store.CodeInternal, "read the embedded example").Wrap(err)
	}
	files = append(files, store.ConfigFile)
	for _, p := range files {
		b, err := fs.ReadFile(src, p)
		if err != nil {
			return nil, store.Errorf(store.CodeInternal, "read the embedded %s", p).Wrap(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(p)), b, 0o644); err != nil {
			return nil, store.Errorf(store.CodeInternal, "write %s", filepath.Join(dir, p)).Wrap(err)
		}
	}
	return files, nil
}
