package loop

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/proofloop/proofloop/store"
)

// Events calls fn with each line of events.jsonl whose seq is above since,
// in order. With follow it then waits for new lines, using inotify rather
// than polling, until ctx ends; it returns nil then.
func Events(ctx context.Context, s *store.Store, since int, follow bool, fn func(seq int, line []byte) error) error {
	if b := s.Backend(); b != nil {
		return backendEvents(ctx, b, since, follow, fn)
	}
	f, err := s.OpenEvents()
	if err != nil {
		return err
	}
	defer f.Close()
	var wake <-chan struct{}
	if follow {
		// Watch before reading, so a line appended in between still wakes us.
		w, err := watch(f)
		if err != nil {
			return store.Errorf(store.CodeInternal, "watch %s", store.EventsFile).Wrap(err)
		}
		defer w.Close()
		wake = w.c
	}
	r := bufio.NewReader(f)
	var partial []byte
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 && line[len(line)-1] == '\n' {
			line = append(partial, line[:len(line)-1]...)
			partial = nil
			var head struct{ Seq int }
			if json.Unmarshal(line, &head) != nil {
				return store.Errorf(store.CodeStoreDamaged, "%s has a line that does not parse: %.80q", store.EventsFile, line)
			}
			if head.Seq > since {
				if err := fn(head.Seq, line); err != nil {
					return err
				}
			}
			continue
		}
		partial = append(partial, line...) // a line still being written
		if !errors.Is(err, io.EOF) {
			return store.Errorf(store.CodeInternal, "read %s", store.EventsFile).Wrap(err)
		}
		if !follow {
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case _, ok := <-wake:
			if !ok {
				return store.Errorf(store.CodeInternal, "the watch on %s ended", store.EventsFile)
			}
		}
	}
}

// watcher delivers a value on c whenever the watched file is written.
type watcher struct {
	f *os.File // the inotify instance, read through Go's poller
	c chan struct{}
	// stop ends a watch that is not an inotify one.
	stop func()
}

// watchStore wakes on every commit: an inotify watch on events.jsonl for
// the file store, LISTEN for a backend's notifications.
func watchStore(s *store.Store) (*watcher, error) {
	if b := s.Backend(); b != nil {
		return watchBackend(b)
	}
	f, err := s.OpenEvents()
	if err != nil {
		return nil, err
	}
	w, err := watch(f)
	if err != nil {
		f.Close()
		return nil, store.Errorf(store.CodeInternal, "watch %s", store.EventsFile).Wrap(err)
	}
	w.stop = func() { w.f.Close(); f.Close() }
	return w, nil
}

// watchBackend wakes on every commit to b after the moment it is called.
func watchBackend(b store.Backend) (*watcher, error) {
	seq, _, err := b.Tail()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	w := &watcher{c: make(chan struct{}, 1), stop: cancel}
	go func() {
		defer close(w.c)
		for {
			if err := b.Wait(ctx, seq); err != nil || ctx.Err() != nil {
				return
			}
			if seq, _, err = b.Tail(); err != nil {
				return
			}
			select {
			case w.c <- struct{}{}:
			default: // a wake-up is already pending
			}
		}
	}()
	return w, nil
}

// backendEvents is Events on a backend: it reads the log's table, then
// waits for the NOTIFY of the next commit.
func backendEvents(ctx context.Context, b store.Backend, since int, follow bool, fn func(seq int, line []byte) error) error {
	for {
		err := b.Events(since, func(seq int, line []byte) error {
			since = seq
			return fn(seq, line)
		})
		if err != nil || !follow {
			return err
		}
		if err := b.Wait(ctx, since); err != nil || ctx.Err() != nil {
			return err
		}
	}
}

// watch sets an inotify watch on the open file f. It names the file through
// /proc/self/fd, so it watches exactly the file the store opened inside its
// root. The inotify descriptor is non-blocking and read through an
// *os.File, so that Close wakes the reading goroutine: a goroutine left
// blocked in a raw read(2) would, once its descriptor number is reused by a
// later watch in the same process, steal that watch's events.
func watch(f *os.File) (*watcher, error) {
	fd, err := syscall.InotifyInit1(syscall.IN_CLOEXEC | syscall.IN_NONBLOCK)
	if err != nil {
		return nil, err
	}
	path := fmt.Sprintf("/proc/self/fd/%d", f.Fd())
	if _, err := syscall.InotifyAddWatch(fd, path, syscall.IN_MODIFY); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	w := &watcher{f: os.NewFile(uintptr(fd), "inotify"), c: make(chan struct{}, 1)}
	go func() {
		buf := make([]byte, 4096)
		for {
			if _, err := w.f.Read(buf); err != nil && !errors.Is(err, syscall.EINTR) {
				close(w.c)
				return
			}
			select {
			case w.c <- struct{}{}:
			default: // a wake-up is already pending
			}
		}
	}()
	return w, nil
}

// Close ends the watch; the reading goroutine's Read returns at once.
func (w *watcher) Close() error {
	if w.stop != nil {
		w.stop()
		return nil
	}
	return w.f.Close()
}
