package store

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"time"

	"github.com/tidwall/gjson"

	"github.com/proofloop/proofloop/model"
)

// fileDirs are the folders of a store's files besides the documents.
var fileDirs = []string{LeaseDir, ProofsDir, model.TranscriptDir}

// exportBackend writes the backend's store, as of one snapshot, to tmp as
// a file store: the same documents, files and event lines, byte for byte.
func (s *Store) exportBackend(tmp string, r *ExportReport) error {
	start := time.Now()
	defer func() { r.LockHeldMS = time.Since(start).Milliseconds() }()
	return s.backend.View(func(sn Snapshot) error {
		write := func(name string, b []byte) error {
			p := filepath.Join(tmp, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			r.Files++
			r.Bytes += int64(len(b))
			crashPoint("export-mid-copy")
			return os.WriteFile(p, b, 0o644)
		}
		for _, k := range docDirs {
			ids, err := sn.ListDocs(k)
			if err != nil {
				return err
			}
			for _, id := range ids {
				raw, err := sn.ReadDoc(id)
				if err != nil {
					return err
				}
				if err := write(DocPath(k, id), raw); err != nil {
					return err
				}
			}
		}
		var names []string
		for _, dir := range fileDirs {
			ns, err := sn.ListFiles(dir)
			if err != nil {
				return err
			}
			names = append(names, ns...)
		}
		for _, name := range append(names, ConfigFile, CheckersFile) {
			if !exported(name) {
				continue // not a file a store holds: never written by a commit
			}
			raw, err := sn.ReadFile(name)
			if err != nil {
				return err
			}
			if raw == nil && name == CheckersFile {
				continue // no agent measured yet
			}
			if err := write(name, raw); err != nil {
				return err
			}
		}
		f, err := os.Create(filepath.Join(tmp, EventsFile))
		if err != nil {
			return err
		}
		w := bufio.NewWriterSize(f, 1<<20)
		err = sn.Events(0, func(seq int, line []byte) error {
			r.LastSeq = seq
			r.Bytes += int64(len(line) + 1)
			w.Write(line)
			return w.WriteByte('\n')
		})
		if err == nil {
			err = w.Flush()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		r.Files++
		return err
	})
}

// ImportReport says what Import loaded.
type ImportReport struct {
	From      string `json:"from"`
	Into      string `json:"into"`
	Documents int    `json:"documents"`
	Files     int    `json:"files"`
	Events    int    `json:"events"`
	LastSeq   int    `json:"last_seq"`
}

// Import loads the file store at dir into b, which must hold no store yet
// (freshly migrated): every document, file and event line as it is, in one
// transaction, then builds b's index. dir must pass check first (the
// doctor's, doctor.Passes, which the store cannot import), and is read
// under its lock, so the load is the store as of one commit.
func Import(b Backend, dir string, check func(*Store) error) (*ImportReport, error) {
	src, err := Open(dir)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	if err := check(src); err != nil {
		return nil, err
	}
	unlock, err := lock(src.root, src.Dir, src.LockTimeout)
	if err != nil {
		return nil, err
	}
	defer unlock()
	r := &ImportReport{From: dir, Into: b.String()}
	var w []Write
	for _, k := range docDirs {
		ids, err := src.List(k)
		if err != nil {
			return nil, err
		}
		for _, id := range ids {
			d, err := src.read(id)
			if err != nil {
				return nil, err
			}
			w = append(w, Write{Path: DocPath(k, id), Content: d.Raw, Doc: id, Kind: k, Revision: d.revision})
			r.Documents++
		}
	}
	err = fs.WalkDir(src.root.FS(), ".", func(name string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dir, _ := path.Split(name)
		if e.IsDir() {
			if name != "." && !exportDir[name] {
				return fs.SkipDir
			}
			return nil
		}
		if dir == "" && name != ConfigFile && name != CheckersFile || !exported(name) || isDocDir(dir) {
			return nil
		}
		raw, err := src.root.ReadFile(name)
		if err != nil {
			return err
		}
		w = append(w, Write{Path: name, Content: raw})
		r.Files++
		return nil
	})
	if err != nil {
		return nil, Errorf(CodeInternal, "read %s", dir).Wrap(err)
	}
	log, err := src.root.ReadFile(EventsFile)
	if err != nil {
		return nil, damaged(EventsFile, err)
	}
	var lines [][]byte
	for line := range bytes.Lines(log) {
		lines = append(lines, bytes.TrimSuffix(line, []byte("\n")))
	}
	r.Events = len(lines)
	if n := len(lines); n > 0 {
		r.LastSeq = int(gjson.GetBytes(lines[n-1], "seq").Int())
	}
	bt, err := b.Begin(BeginOptions{LockTimeout: DefaultLockTimeout})
	if err != nil {
		return nil, err
	}
	defer bt.Rollback()
	if err := bt.Load(w, lines); err != nil {
		return nil, err
	}
	if _, err := bt.Commit(nil, nil); err != nil {
		return nil, err
	}
	into := &Store{backend: b, LockTimeout: DefaultLockTimeout}
	if _, err := into.Reindex(); err != nil {
		return nil, err
	}
	return r, nil
}

func isDocDir(dir string) bool {
	for _, k := range docDirs {
		if dir == k.Dir()+"/" {
			return true
		}
	}
	return false
}

// CopyToCheck exports a snapshot of a backend's store to a temporary file
// store, for doctor: a backend's doctor checks that copy as it checks a
// file store (every schema, reference, revision, the hash chain and the
// replay of every patch), then the backend's own index (CheckBackendIndex).
// done removes the copy.
func (s *Store) CopyToCheck() (c *Store, done func(), err error) {
	tmp, err := os.MkdirTemp("", "proofloop-doctor-")
	if err != nil {
		return nil, nil, Errorf(CodeInternal, "doctor").Wrap(err)
	}
	remove := func() { os.RemoveAll(tmp) }
	copyDir := filepath.Join(tmp, "store")
	if _, err := s.Export(copyDir); err != nil {
		remove()
		return nil, nil, err
	}
	if c, err = Open(copyDir); err != nil {
		remove()
		return nil, nil, err
	}
	c.ExpectHead = s.ExpectHead
	// The copies debate start --artifact writes live in this machine's
	// project folder, not the snapshot's: doctor rewrites them there.
	if c.projectDir, err = s.ProjectDir(); err != nil {
		c.Close()
		remove()
		return nil, nil, Errorf(CodeInternal, "doctor: the project folder").Wrap(err)
	}
	return c, func() { c.Close(); remove() }, nil
}
