package store

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"syscall"
	"time"

	"github.com/google/renameio/v2"
	"github.com/proofloop/proofloop/model"
)

// writeAtomic replaces name (root-relative) with content: renameio writes and
// fsyncs a temp file next to the target, then renames it over the target.
// renameio puts a WithRoot temp file in the root's top folder, so the file's
// own folder is opened as a root to keep the temp file beside its target.
func writeAtomic(root *os.Root, name string, content []byte) error {
	dir, base := path.Split(name)
	r := root
	if dir != "" {
		sub, err := root.OpenRoot(path.Clean(dir))
		if errors.Is(err, fs.ErrNotExist) {
			// A folder a root made by an older version lacks (leases/).
			if err := root.Mkdir(path.Clean(dir), 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
				return err
			}
			sub, err = root.OpenRoot(path.Clean(dir))
		}
		if err != nil {
			return err
		}
		defer sub.Close()
		r = sub
	}
	pf, err := renameio.NewPendingFile(base, renameio.WithRoot(r), renameio.WithStaticPermissions(0o644))
	if err != nil {
		return err
	}
	defer pf.Cleanup()
	if _, err := pf.Write(content); err != nil {
		return err
	}
	return pf.CloseAtomicallyReplace()
}

// syncDir fsyncs a folder so that renames and removals in it are durable.
func syncDir(root *os.Root, dir string) error {
	d, err := root.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// lock takes the store's exclusive flock, waiting at most timeout.
//
// The lock is on the root directory itself, not on a lock file inside it. A
// lock file can be deleted or replaced while it is held (a cleanup script,
// `git clean`, a person), and then the next writer creates and locks a new
// inode and runs beside the holder: no check by the newcomer can see the
// holder's deleted inode. The root directory cannot vanish from under the
// documents it holds, so every process agrees on one inode. The remaining
// case, the root path moved away and replaced while a writer waited, is
// caught by comparing the locked descriptor with the path (fstat vs stat:
// device and inode); such a command fails with a conflict, since its open
// root is no longer the store at that path.
func lock(root *os.Root, dir string, timeout time.Duration) (unlock func(), err error) {
	f, err := root.Open(".")
	if err != nil {
		return nil, damaged(".", err)
	}
	if err := flockWait(f, timeout); err != nil {
		f.Close()
		return nil, err
	}
	unlock = func() { syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }
	var held, now syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &held); err != nil {
		unlock()
		return nil, Errorf(CodeInternal, "fstat %s", dir).Wrap(err)
	}
	if err := syscall.Stat(dir, &now); err != nil || now.Dev != held.Dev || now.Ino != held.Ino {
		unlock()
		return nil, Errorf(CodeConflict, "the contents root %s was moved or replaced while this command ran", dir).
			WithHint("run the command again")
	}
	return unlock, nil
}

// flockWait flocks f, waiting at most timeout. flock has no timeout, so a
// goroutine blocks in it; if the wait times out, that goroutine releases the
// lock as soon as it gets it.
func flockWait(f *os.File, timeout time.Duration) error {
	fd := int(f.Fd())
	// Fast path: an uncontended lock needs no goroutine.
	if err := syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB); err == nil {
		return nil
	} else if !errors.Is(err, syscall.EWOULDBLOCK) {
		return Errorf(CodeInternal, "flock").Wrap(err)
	}
	got := make(chan error) // unbuffered: a send succeeds only while we still wait
	abandon := make(chan struct{})
	dup, err := syscall.Dup(fd) // the goroutine's own descriptor: f may be closed first
	if err != nil {
		return Errorf(CodeInternal, "dup").Wrap(err)
	}
	go func() {
		err := flockRetry(dup)
		select {
		case got <- err:
		case <-abandon:
			if err == nil {
				syscall.Flock(dup, syscall.LOCK_UN)
			}
		}
		syscall.Close(dup)
	}()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case err := <-got:
		if err != nil {
			return Errorf(CodeInternal, "flock").Wrap(err)
		}
		return nil
	case <-t.C:
		close(abandon)
		return Errorf(CodeLockTimeout, "the store is busy: could not take its lock within %s", timeout).
			WithHint("retry later; if no proofloop process is running, check that nothing else holds a lock on the root folder")
	}
}

func flockRetry(fd int) error {
	for {
		err := syscall.Flock(fd, syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// Lock takes the store's lock, as a transaction does, for doctor: under it
// no transaction writes. The caller calls unlock.
func (s *Store) Lock() (unlock func(), err error) { return lock(s.root, s.Dir, s.LockTimeout) }

// WriteDerived writes a derived file under the root (a transcript, the
// verified point) atomically, as the store writes its own.
func (s *Store) WriteDerived(name string, content []byte) error {
	return writeAtomic(s.root, name, content)
}

// KindDirs are the folders of documents, one per kind.
func KindDirs() []string {
	var out []string
	for _, k := range docDirs {
		out = append(out, k.Dir())
	}
	return out
}

// docDirs are the folders of documents, each holding one kind.
var docDirs = []model.Kind{model.KindProblem, model.KindStatement, model.KindDebate}

// PointFile is the last verified point: what the last clean doctor saw, so
// that the next routine doctor rechecks only what changed since. It is
// derived data in the store's private area: written atomically by a clean
// check only, never exported, and a missing or damaged one (any line that
// does not parse, or a checksum that does not match) just means the next
// doctor is a full check.
const PointFile = ".verified"
