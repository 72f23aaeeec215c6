package loop

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// checkCitedFiles checks each project file an evidence item cites
// (model.CitedFiles: every path:LINE, and under fact-based every project
// path) against the project folder, the folder holding the root: the file
// must exist there, stay inside it with every symlink followed, be a
// regular file, and have the lines cited. "Verifiable" was a shape only:
// nonexistent.go:1 and a line past the end passed (issue 34 N12, seed
// 004's A20). The check reads only the count of lines; nothing of the
// file enters the debate.
func checkCitedFiles(s *store.Store, cites []model.FileCite) error {
	if len(cites) == 0 {
		return nil
	}
	project, err := s.ProjectDir()
	if err != nil {
		return store.Errorf(store.CodeInvalidInput, "the project folder of %s: %v", s.Dir, err)
	}
	for _, c := range cites {
		if why := citeProblem(project, c); why != "" {
			return turnErr(&model.TurnError{Field: c.Field, Rule: why,
				Hint: "nothing was written; cite a file of the project folder " + project + " by its path relative to it, with lines it has (path:LINE or path:FROM-TO), or cite a pool item or an http(s) URL"})
		}
	}
	return nil
}

// citeProblem says why citation c does not hold in project, or "".
func citeProblem(project string, c model.FileCite) string {
	real, err := filepath.EvalSymlinks(filepath.Join(project, filepath.FromSlash(c.Path)))
	if err != nil {
		return fmt.Sprintf("%q cites %s, which is no file of the project folder", c.Source, c.Path)
	}
	if in, err := store.Inside(project, real); err != nil || !in {
		return fmt.Sprintf("%q cites %s, which leads outside the project folder (symlinks followed)", c.Source, c.Path)
	}
	if fi, err := os.Stat(real); err != nil || !fi.Mode().IsRegular() {
		return fmt.Sprintf("%q cites %s, which is not a regular file", c.Source, c.Path)
	}
	if !c.Lines {
		return ""
	}
	if c.From < 1 || c.To < c.From {
		return fmt.Sprintf("%q cites lines %d-%d: lines count from 1, the first before the last", c.Source, c.From, c.To)
	}
	n, err := countLines(real, c.To)
	switch {
	case err != nil:
		return fmt.Sprintf("%q cites %s, which cannot be read: %v", c.Source, c.Path, err)
	case n < c.To:
		return fmt.Sprintf("%q cites line %d of %s, which has %s", c.Source, c.To, c.Path, model.Count(n, "line"))
	}
	return ""
}

// countLines counts the lines of the file at p, a last line without its
// newline included, stopping once it has seen enough.
func countLines(p string, enough int) (int, error) {
	f, err := os.Open(p)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	n, partial := 0, false
	buf := make([]byte, 64<<10)
	for n < enough {
		k, err := f.Read(buf)
		if k > 0 {
			n += bytes.Count(buf[:k], []byte("\n"))
			partial = buf[k-1] != '\n'
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return n, err
		}
	}
	if partial && n < enough {
		n++
	}
	return n, nil
}
