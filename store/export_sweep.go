package store

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// exportLock is the file by which an export in progress marks its sibling
// folder as its own and alive: the export holds an flock on it until the
// rename, and the kernel drops that lock when the process dies, so a
// folder whose lock can be taken was left by a killed export.
const exportLock = ".export.lock"

// claimExportDir marks tmp, a fresh export folder, as a live export's. The
// returned release ends the mark; the lock file is removed first, so the
// copy that is renamed into place does not carry it.
func claimExportDir(tmp string) (release func(), err error) {
	f, err := os.OpenFile(filepath.Join(tmp, exportLock), os.O_CREATE|os.O_EXCL|os.O_WRONLY|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		os.Remove(f.Name())
		f.Close() // drops the lock
	}, nil
}

// sweepExports removes the folders that killed exports to dir left beside
// it (.NAME.export-*). Only ours: a real folder (not a symlink) with our
// lock file in it; only stale: its lock is free, so its export is dead.
// A folder just made by a live export, before its lock file exists, has
// no lock file and is left alone too. It returns what it removed.
func sweepExports(dir string) []string {
	parent, base := filepath.Split(filepath.Clean(dir))
	if parent == "" {
		parent = "."
	}
	entries, err := os.ReadDir(parent)
	if err != nil {
		return nil
	}
	var swept []string
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), "."+base+".export-") {
			continue // e.IsDir is false for a symlink: it is never followed
		}
		p := filepath.Join(parent, e.Name())
		if stale, err := staleExport(p); err == nil && stale && os.RemoveAll(p) == nil {
			swept = append(swept, p)
		}
	}
	return swept
}

// staleExport reports whether the export folder p holds our lock file and
// no live export holds its lock.
func staleExport(p string) (bool, error) {
	f, err := os.OpenFile(filepath.Join(p, exportLock), os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return false, nil // EWOULDBLOCK: a live export's
	}
	return true, nil
}
