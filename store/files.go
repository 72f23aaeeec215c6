package store

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"syscall"
	"time"

	"github.com/google/renameio/v2"
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

// lock takes the exclusive flock on the lock file, waiting at most timeout.
// The lock file is never renamed or rewritten, so the lock always guards the
// same inode. flock has no timeout, so a goroutine blocks in it; if the wait
// times out, that goroutine releases the lock as soon as it gets it.
func lock(root *os.Root, timeout time.Duration) (unlock func(), err error) {
	f, err := root.OpenFile(LockFile, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	fd := int(f.Fd())
	// Fast path: an uncontended lock needs no goroutine.
	if err := syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB); err == nil {
		return func() { syscall.Flock(fd, syscall.LOCK_UN); f.Close() }, nil
	} else if !errors.Is(err, syscall.EWOULDBLOCK) {
		f.Close()
		return nil, err
	}
	got := make(chan error) // unbuffered: a send succeeds only while we still wait
	abandon := make(chan struct{})
	go func() {
		err := flockRetry(fd)
		select {
		case got <- err:
		case <-abandon:
			if err == nil {
				syscall.Flock(fd, syscall.LOCK_UN)
			}
			f.Close()
		}
	}()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case err := <-got:
		if err != nil {
			f.Close()
			return nil, err
		}
		return func() { syscall.Flock(fd, syscall.LOCK_UN); f.Close() }, nil
	case <-t.C:
		close(abandon)
		return nil, Errorf(CodeLockTimeout, "the store is busy: could not take its lock within %s", timeout).
			WithHint("retry later; if no proofloop process is running, check that nothing else holds " + LockFile)
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
