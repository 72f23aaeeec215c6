package report

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/proofloop/proofloop/store"
)

// pageCache renders each page once per store revision (the seq of the
// log's last event) and shares it among requests: concurrent requests for
// the same page wait for one render instead of each loading the whole
// store (30 concurrent GET / on 3,000 statements took 72 s and 540 MB).
// It holds the latest revision's pages only. A page is rendered with a
// random placeholder nonce, which each response replaces with its own, so
// no two responses share a nonce.
type pageCache struct {
	s       *store.Store
	problem string
	log     io.Writer // a line per render, or nil

	// work lets one load or render run at a time: when commits come
	// faster than a render, the revisions queue instead of each taking a
	// core and its memory at once.
	work chan struct{}

	mu    sync.Mutex
	seq   int
	data  *memo
	pages map[pageKey]*memo
}

type pageKey struct {
	name     string
	mainOnly bool
}

// memo is one value computed once; the callers that come while it is
// being computed wait for it.
type memo struct {
	done chan struct{}
	val  any
	err  error
}

// rendered is a page with the placeholder nonce it was rendered with.
type rendered struct {
	html  []byte
	nonce string
	found bool
}

func newPageCache(s *store.Store, problem string, log io.Writer) *pageCache {
	return &pageCache{s: s, problem: problem, log: log, seq: -1, work: make(chan struct{}, 1)}
}

// page returns page name (mainOnly: its <main> only) at the store's
// current revision, with nonce in place of the render's, and whether the
// report has that page.
func (c *pageCache) page(ctx context.Context, name string, mainOnly bool, nonce string) ([]byte, bool, error) {
	seq, err := c.s.LastSeq()
	if err != nil {
		return nil, false, err
	}
	c.mu.Lock()
	if seq != c.seq {
		c.seq, c.data, c.pages = seq, &memo{done: make(chan struct{})}, map[pageKey]*memo{}
		go c.data.run(func() (any, error) {
			c.work <- struct{}{}
			defer func() { <-c.work }()
			return Load(context.Background(), c.s, c.problem)
		})
	}
	data := c.data
	k := pageKey{name, mainOnly}
	m := c.pages[k]
	if m == nil {
		m = &memo{done: make(chan struct{})}
		c.pages[k] = m
		go m.run(func() (any, error) {
			<-data.done
			if data.err != nil {
				return nil, data.err
			}
			c.work <- struct{}{}
			defer func() { <-c.work }()
			start := time.Now()
			o := Options{Live: true, Nonce: NewNonce(), MainOnly: mainOnly}
			b, ok, err := RenderOne(data.val.(*Data), o, name)
			if ok && err == nil && c.log != nil {
				part := ""
				if mainOnly {
					part = " (its <main>)"
				}
				fmt.Fprintf(c.log, "serve: rendered %s%s at seq %d in %d ms (%d KB)\n", name, part, seq, time.Since(start).Milliseconds(), len(b)>>10)
			}
			return &rendered{html: b, nonce: o.Nonce, found: ok}, err
		})
	}
	c.mu.Unlock()
	select {
	case <-m.done:
	case <-ctx.Done():
		return nil, false, ctx.Err()
	}
	if m.err != nil || !m.val.(*rendered).found {
		// Not kept: an error is tried again by the next request, and a
		// page the report lacks costs nothing to look up again (keeping
		// it would let requests for made-up names fill the cache).
		c.mu.Lock()
		if c.pages[k] == m {
			delete(c.pages, k)
		}
		if c.data == data && data.err != nil {
			c.seq = -1
		}
		c.mu.Unlock()
		return nil, false, m.err
	}
	r := m.val.(*rendered)
	return bytes.ReplaceAll(r.html, []byte(r.nonce), []byte(nonce)), true, nil
}

// run computes the memo's value in its own goroutine, so that a request
// that goes away does not cancel what others wait for.
func (m *memo) run(fn func() (any, error)) {
	defer close(m.done)
	m.val, m.err = fn()
}
