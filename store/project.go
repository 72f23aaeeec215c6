package store

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// ProjectFile is the settings file beside a contents root that may name
// the store: {"store": "postgres://..."}. No command writes it (an export,
// a report or a debate's copy over it would stop every command that
// reads it).
const ProjectFile = "proofloop.json"

// ProjectDir is the project folder: the folder holding the contents root.
func (s *Store) ProjectDir() (string, error) {
	if s.projectDir != "" {
		return s.projectDir, nil
	}
	abs, err := filepath.Abs(s.Dir)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", err
	}
	return filepath.Dir(real), nil
}

// ProjectPath checks a path for a file the store will write in the project
// folder (debate start --artifact): relative paths are read against base
// (the working directory, or over MCP the project folder); symlinks are
// resolved, through the deepest folder that exists. It returns the path
// relative to the project folder, with slashes, or a usage error when the
// path lies outside the project folder or inside the contents root.
func (s *Store) ProjectPath(p, base, what string) (string, error) {
	project, err := s.ProjectDir()
	if err != nil {
		return "", Errorf(CodeInvalidInput, "the project folder of %s: %v", s.Dir, err)
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
	}
	real, err := resolveExisting(filepath.Clean(p))
	if err != nil {
		return "", Errorf(CodeUsage, "%s %q: %v", what, p, err).WithHint("nothing was written; give a file path inside the project folder " + project)
	}
	rel, err := filepath.Rel(project, real)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", Errorf(CodeUsage, "%s %q is outside the project folder %s (symlinks resolved)", what, p, project).
			WithHint("nothing was written; give a file inside the project folder (the folder holding the contents root), e.g. --artifact review.md")
	}
	// The root made absolute first: --root is relative by default
	// (contents), and Rel of a relative root against the absolute real
	// path fails, which once skipped this check (--artifact
	// contents/config.json replaced the config with the transcript). A
	// check that cannot be made refuses.
	rootReal, err := filepath.Abs(s.Dir)
	if err == nil {
		rootReal, err = filepath.EvalSymlinks(rootReal)
	}
	in, rerr := filepath.Rel(rootReal, real)
	if err != nil || rerr != nil {
		return "", Errorf(CodeUsage, "%s %q: cannot tell whether it lies inside the contents root %s", what, p, s.Dir).
			WithHint("nothing was written; give a path outside the contents root, as an absolute path")
	}
	if in != ".." && !strings.HasPrefix(in, ".."+string(filepath.Separator)) {
		return "", Errorf(CodeUsage, "%s %q lies inside the contents root %s, whose files proofloop owns", what, p, s.Dir).
			WithHint("nothing was written; the transcript is already under .debates/; give a path outside the contents root")
	}
	if fi, err := os.Stat(real); err == nil && fi.IsDir() {
		return "", Errorf(CodeUsage, "%s %q is a folder", what, p).WithHint("nothing was written; name a file, e.g. " + filepath.Join(p, "review.md"))
	}
	if rel == ProjectFile {
		return "", projectFileRefusal(what, p)
	}
	return filepath.ToSlash(rel), nil
}

// projectFileRefusal refuses a write over ProjectFile.
func projectFileRefusal(what, p string) error {
	return Errorf(CodeInvalidInput, "%s %q is %s, the project's store setting: a file written over it would stop every command that reads it", what, p, ProjectFile).
		WithHint("nothing was written; name another file")
}

// resolveExisting resolves the symlinks of p through its deepest existing
// ancestor; the rest of p is joined as written.
func resolveExisting(p string) (string, error) {
	rest := ""
	for {
		real, err := filepath.EvalSymlinks(p)
		if err == nil {
			return filepath.Join(real, rest), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(p)
		if parent == p {
			return "", err
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

// writeProjectFiles writes derived copies into the project folder through
// an os.Root of it, so no symlink leads a write outside. A failure is left
// for doctor, which rewrites a missing or stale copy.
func (s *Store) writeProjectFiles(ws []journalWrite) {
	if len(ws) == 0 {
		return
	}
	_ = s.writeProject(ws)
}

func (s *Store) writeProject(ws []journalWrite) error {
	project, err := s.ProjectDir()
	if err != nil {
		return err
	}
	root, err := os.OpenRoot(project)
	if err != nil {
		return err
	}
	defer root.Close()
	for _, w := range ws {
		if err := mkdirAllRoot(root, path.Dir(w.Path)); err != nil {
			return err
		}
		if err := writeAtomic(root, w.Path, []byte(w.Content)); err != nil {
			return err
		}
	}
	return nil
}

func mkdirAllRoot(root *os.Root, dir string) error {
	if dir == "." || dir == "" {
		return nil
	}
	if err := mkdirAllRoot(root, path.Dir(dir)); err != nil {
		return err
	}
	if err := root.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return nil
}

// WriteProjectFile writes a file of the project folder (a debate's copy
// of its transcript, debate start --artifact) as a transaction does.
func (s *Store) WriteProjectFile(name string, content []byte) error {
	return s.writeProject([]journalWrite{{Path: name, Content: string(content)}})
}
