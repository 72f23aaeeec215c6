package store

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/proofloop/proofloop/model"
)

// Export copies the store to a new file store at dir, consistently: it
// holds the store's lock for the whole copy, after finishing any journal,
// so the copy is the store as of one commit, whatever other agents are
// doing (they wait, as for a long transaction). Copying the folder by hand
// while agents write can catch a document newer than the log, or the
// reverse.
//
// What a store is, and so what is copied: config.json, the event log and
// its quarantine, the documents, the leases, the kept proof revisions and
// the debate transcripts. The index is derived and rebuilt by the first
// command on the copy; a journal is finished before the copy, so none is
// left; any other file is not the store's and is left out.
//
// The copy is made in a sibling folder and renamed to dir at the end, so
// dir is either absent or whole: an interrupted export leaves no half
// store under dir. dir must not exist, or be an empty folder.
func (s *Store) Export(dir string) (*ExportReport, error) {
	if err := s.exportTarget(dir); err != nil {
		return nil, err
	}
	parent := filepath.Dir(filepath.Clean(dir))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, Errorf(CodeInvalidInput, "cannot create %s", parent).Wrap(err)
	}
	r := &ExportReport{Dir: dir, Swept: sweepExports(dir)}
	if r.Swept == nil {
		r.Swept = []string{}
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".export-")
	if err != nil {
		return nil, Errorf(CodeInvalidInput, "cannot create a folder beside %s", dir).Wrap(err)
	}
	defer os.RemoveAll(tmp)
	release, err := claimExportDir(tmp)
	if err != nil {
		return nil, Errorf(CodeInvalidInput, "cannot create a folder beside %s", dir).Wrap(err)
	}
	defer release()
	if s.backend != nil {
		err = s.exportBackend(tmp, r)
	} else {
		err = s.exportFiles(tmp, r)
	}
	if err != nil {
		if CodeOf(err) != "" {
			return nil, err
		}
		return nil, Errorf(CodeInternal, "export to %s", dir).Wrap(err)
	}
	for _, d := range []string{string(model.KindProblem), string(model.KindStatement), LeaseDir} {
		if err := os.MkdirAll(filepath.Join(tmp, d), 0o755); err != nil {
			return nil, Errorf(CodeInternal, "export to %s", dir).Wrap(err)
		}
	}
	// Every byte on disk before the rename makes it visible: a crash after
	// the rename cannot leave a copy with empty files.
	syscall.Sync()
	crashPoint("export-before-rename")
	// An empty target folder gives way to the copy (os.Rename will not
	// replace a folder); Remove fails, and so the export, if it filled up.
	if err := os.Remove(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, Errorf(CodeInvalidInput, "cannot replace the empty folder %s", dir).Wrap(err)
	}
	release()
	if err := os.Rename(tmp, dir); err != nil {
		return nil, Errorf(CodeInvalidInput, "cannot move the copy to %s", dir).Wrap(err)
	}
	return r, nil
}

// exportFiles copies the file store's files to tmp under its lock.
func (s *Store) exportFiles(tmp string, r *ExportReport) error {
	unlock, err := lock(s.root, s.Dir, s.LockTimeout)
	if err != nil {
		return err
	}
	locked := time.Now()
	defer func() {
		unlock()
		r.LockHeldMS = time.Since(locked).Milliseconds()
	}()
	if _, err := s.recover(); err != nil {
		return err
	}
	err = fs.WalkDir(s.root.FS(), ".", func(name string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() {
			if name != "." && !exportDir[name] {
				return fs.SkipDir
			}
			return os.MkdirAll(filepath.Join(tmp, filepath.FromSlash(name)), 0o755)
		}
		if !e.Type().IsRegular() || !exported(name) {
			return nil
		}
		n, err := s.copyOut(name, filepath.Join(tmp, filepath.FromSlash(name)))
		r.Files++
		r.Bytes += n
		crashPoint("export-mid-copy")
		return err
	})
	if err != nil {
		return err
	}
	t, err := s.tail()
	r.LastSeq = t.Seq
	return err
}

// ExportReport says what Export copied.
type ExportReport struct {
	Dir     string `json:"dir"`
	Files   int    `json:"files"`
	Bytes   int64  `json:"bytes"`
	LastSeq int    `json:"last_seq"` // the last event of the copy's log
	// LockHeldMS is how long the store's lock was held: the longest any
	// writer waited for the copy.
	LockHeldMS int64 `json:"lock_held_ms"`
	// Swept lists the folders of killed exports to the same target that
	// this one removed (see sweepExports).
	Swept []string `json:"swept"`
}

// exportDir lists the folders of a store, by slash path under the root.
var exportDir = map[string]bool{
	string(model.KindProblem): true, string(model.KindStatement): true, string(model.KindDebate): true,
	LeaseDir: true, ProofsDir: true, model.TranscriptDir: true,
}

// exported reports whether the file at name is part of the store.
func exported(name string) bool {
	dir, base := path.Split(name)
	if strings.HasPrefix(base, ".") {
		return false // a pending atomic write's temporary file
	}
	switch strings.TrimSuffix(dir, "/") {
	case "":
		return name == ConfigFile || name == EventsFile || name == QuarantineFile || name == CheckersFile
	case ProofsDir:
		return strings.HasSuffix(base, ".jsonl")
	case model.TranscriptDir:
		return strings.HasSuffix(base, ".md")
	}
	return strings.HasSuffix(base, ".json")
}

// exportTarget refuses a target inside the store, and one that exists and
// is not an empty folder.
func (s *Store) exportTarget(dir string) error {
	if s.Dir != "" {
		if err := CheckOutput(s.Dir, dir, "the export", "--to"); err != nil {
			return err
		}
	}
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return Errorf(CodeInvalidInput, "cannot export to %s: it is not a folder", dir).Wrap(err)
	case len(entries) > 0:
		return Errorf(CodeInvalidInput, "cannot export to %s: it is not empty", dir).
			WithHint("name a new folder; export never overwrites a store")
	}
	return nil
}

// copyOut copies the root's file name to the path dst.
func (s *Store) copyOut(name, dst string) (int64, error) {
	in, err := s.root.Open(name)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return n, fmt.Errorf("copy %s: %w", name, err)
	}
	return n, nil
}
