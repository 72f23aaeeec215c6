package report

import (
	"context"
	"sync"

	"github.com/proofloop/proofloop/loop"
	"github.com/proofloop/proofloop/store"
)

// DefaultMaxStreams is how many /events streams serve keeps open at once;
// the next one gets 503. Each costs a connection and a goroutine, and no
// watch: one watch serves them all (see hub).
const DefaultMaxStreams = 256

// hub is the one follower of the store that all of serve's event streams
// share: one inotify watch on the file store, one LISTEN connection on
// PostgreSQL, however many pages are open. A watch per stream exhausted
// the user's inotify instances at 128 streams (then `events --follow` and
// `debate wait` failed), and on PostgreSQL each stream held a server
// connection. It follows while any stream is open, and stops with the
// last.
type hub struct {
	s   *store.Store
	max int

	mu      sync.Mutex
	streams int
	seq     int           // the last seq seen
	changed chan struct{} // closed, and replaced, when seq moves or the follower ends
	stop    context.CancelFunc
	done    chan struct{} // closed when the follower has ended
	err     error         // why the follower ended, if it failed
}

func newHub(s *store.Store, max int) *hub {
	if max <= 0 {
		max = DefaultMaxStreams
	}
	return &hub{s: s, max: max, changed: make(chan struct{})}
}

// subscribe counts a stream in, starting the follower for the first; it
// reports false, and counts nothing, when the streams are at the cap.
func (h *hub) subscribe() (bool, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.streams >= h.max {
		return false, nil
	}
	if h.stop == nil {
		seq, err := h.s.LastSeq()
		if err != nil {
			return false, err
		}
		ctx, cancel := context.WithCancel(context.Background())
		h.seq, h.stop, h.done, h.err = seq, cancel, make(chan struct{}), nil
		go h.follow(ctx, seq, h.done)
	}
	h.streams++
	return true, nil
}

// unsubscribe counts a stream out; the last one stops the follower.
func (h *hub) unsubscribe() {
	h.mu.Lock()
	h.streams--
	var done chan struct{}
	if h.streams == 0 && h.stop != nil {
		h.stop()
		h.stop, done = nil, h.done
	}
	h.mu.Unlock()
	if done != nil {
		<-done // its watch is closed before another can start
	}
}

// follow is the one reader of the log's new events: it moves seq and wakes
// every stream.
func (h *hub) follow(ctx context.Context, since int, done chan struct{}) {
	defer close(done)
	err := loop.Events(ctx, h.s, since, true, func(seq int, _ []byte) error {
		h.mu.Lock()
		h.seq = seq
		close(h.changed)
		h.changed = make(chan struct{})
		h.mu.Unlock()
		return nil
	})
	h.mu.Lock()
	defer h.mu.Unlock()
	if ctx.Err() == nil {
		// The follower failed while streams were open: they end (the page's
		// EventSource reconnects, and the next subscribe starts anew).
		h.err = err
		if err == nil {
			h.err = store.Errorf(store.CodeInternal, "following the store ended")
		}
		h.stop()
		h.stop = nil
	}
	close(h.changed)
	h.changed = make(chan struct{})
}

// state is the last seq seen, a channel closed when it moves, and whether
// the follower is running.
func (h *hub) state() (int, <-chan struct{}, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.seq, h.changed, h.stop != nil
}
