package main

import (
	"os"
	"path/filepath"
	"syscall"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
	"github.com/proofloop/proofloop/store/doctor"
	"github.com/proofloop/proofloop/store/pgstore"
)

// mirrorEnv, set by TestScriptPostgres, makes the test binary's proofloop
// command copy the PostgreSQL store into $PROOFLOOP_ROOT after every
// command, with export: the stories compare the files of a root (a
// document byte for byte, the event log, "nothing was written"), and on
// PostgreSQL they then compare what the database holds.
const mirrorEnv = "PROOFLOOP_TEST_MIRROR"

// mirrored are the entries of a root that mirror replaces.
var mirrored = []string{model.KindProblem.Dir(), model.KindStatement.Dir(), model.KindDebate.Dir(), store.LeaseDir,
	store.ProofsDir, model.TranscriptDir, store.ConfigFile, store.EventsFile, store.CheckersFile}

// mirror exports the store of $PROOFLOOP_STORE into $PROOFLOOP_ROOT. It
// holds a lock beside the root, for stories that run commands at once.
func mirror() {
	root, dsn := os.Getenv("PROOFLOOP_ROOT"), os.Getenv("PROOFLOOP_STORE")
	if root == "" || dsn == "" {
		return
	}
	lf, err := os.OpenFile(root+".mirror-lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return
	}
	defer lf.Close()
	syscall.Flock(int(lf.Fd()), syscall.LOCK_EX)
	b, err := pgstore.Open(dsn)
	if err != nil {
		return
	}
	s, err := store.OpenBackend(root, b)
	if err != nil {
		b.Close()
		return // no store yet
	}
	defer s.Close()
	tmp := root + ".mirror"
	os.RemoveAll(tmp)
	defer os.RemoveAll(tmp)
	if _, err := s.Export(tmp); err != nil {
		return
	}
	for _, name := range mirrored {
		os.RemoveAll(filepath.Join(root, name))
		os.Rename(filepath.Join(tmp, name), filepath.Join(root, name))
	}
	os.Remove(filepath.Join(root, store.IndexFile)) // the file store's index, from an import
}

// loadArchiveStore imports a store that a story's archive lays out under
// contents/ (a config.json, documents, perhaps a log) into the story's
// empty database, so that the story starts from the same store.
func loadArchiveStore(env *testscript.Env, dsn string) error {
	root := filepath.Join(env.WorkDir, "contents")
	if _, err := os.Stat(filepath.Join(root, store.ConfigFile)); err != nil {
		return nil
	}
	if _, err := os.Stat(filepath.Join(root, store.EventsFile)); err != nil {
		if err := os.WriteFile(filepath.Join(root, store.EventsFile), nil, 0o644); err != nil {
			return err
		}
	}
	for _, d := range []string{model.KindProblem.Dir(), model.KindStatement.Dir(), store.LeaseDir} {
		os.MkdirAll(filepath.Join(root, d), 0o755)
	}
	b, err := pgstore.Open(dsn)
	if err != nil {
		return err
	}
	defer b.Close()
	_, err = store.Import(b, root, doctor.Passes)
	return err
}
