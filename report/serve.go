package report

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// ServeOptions say what serve serves and to whom.
type ServeOptions struct {
	Problem string // only this problem's subtree, unless ""
	// Hosts are the Host headers answered; others get 421 (see Hosts).
	Hosts Hosts
	// MaxStreams caps the open /events streams (DefaultMaxStreams when 0);
	// the next gets 503.
	MaxStreams int
	// Log gets a line per page rendered (nil: none).
	Log io.Writer
}

// Handler serves the report of s live and read-only: GET / (and
// /index.html, and /<root problem>.html of a split report) serves the
// pages, rendered once per store revision and shared among requests, and
// GET /run the view of the latest run (RenderRun), GET /events streams the
// seq of each new event as server-sent events, all
// streams fed by one follower of the store (loop.Events: inotify, or
// LISTEN), so the page reloads its <main> when the store changes. Nothing
// writes: any method but GET and HEAD gets 405, any other path 404, a Host
// that is not this server's 421.
type Handler struct {
	o     ServeOptions
	hub   *hub
	cache *pageCache
	run   *runState // /run: the view of a run in progress
}

// NewHandler is the Handler of s.
func NewHandler(s *store.Store, o ServeOptions) *Handler {
	return &Handler{o: o, hub: newHub(s, o.MaxStreams), cache: newPageCache(s, o.Problem, o.Log), run: &runState{s: s}}
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("Cache-Control", "no-store")
	if !h.o.Hosts.Allow(r.Host) {
		http.Error(w, "misdirected request: this server answers only the host of its --addr and localhost", http.StatusMisdirectedRequest)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		hd.Set("Allow", "GET, HEAD")
		http.Error(w, "read-only: only GET and HEAD", http.StatusMethodNotAllowed)
		return
	}
	switch p := r.URL.Path; {
	case p == "/events":
		h.events(w, r)
	case p == "/run":
		h.runPage(w, r)
	case p == "/" || strings.HasSuffix(p, ".html") && !strings.Contains(p[1:], "/"):
		h.page(w, r, strings.TrimPrefix(p, "/"))
	default:
		http.NotFound(w, r)
	}
}

// page renders one page of the report; a store error is shown as text with
// the status that best fits its contract code.
func (h *Handler) page(w http.ResponseWriter, r *http.Request, name string) {
	if name == "" {
		name = "index.html"
	}
	if root := strings.TrimSuffix(name, ".html"); name != "index.html" {
		if k, err := model.KindOf(root); err != nil || k != model.KindProblem {
			http.NotFound(w, r)
			return
		}
	}
	nonce := NewNonce()
	b, ok, err := h.cache.page(r.Context(), name, r.URL.Query().Get("part") == "main", nonce)
	if err != nil {
		status := http.StatusInternalServerError
		if store.CodeOf(err) == store.CodeNotFound {
			status = http.StatusNotFound
		}
		http.Error(w, err.Error(), status)
		return
	}
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Security-Policy", CSP(nonce)+"; frame-ancestors 'none'")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	if r.Method == http.MethodGet {
		_, _ = w.Write(b)
	}
}

// events sends "data: SEQ" when the log moves above ?since=, until the
// client goes away or the server stops. Events that commit close together
// may come as one message, of the last seq: the page reloads once for
// them. Beyond MaxStreams open streams it answers 503.
func (h *Handler) events(w http.ResponseWriter, r *http.Request) {
	since, _ := strconv.Atoi(r.URL.Query().Get("since"))
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming is not supported here", http.StatusInternalServerError)
		return
	}
	in, err := h.hub.subscribe()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	if !in {
		w.Header().Set("Retry-After", "10")
		http.Error(w, fmt.Sprintf("too many event streams: this server keeps at most %d open (serve --max-streams)", h.hub.max), http.StatusServiceUnavailable)
		return
	}
	defer h.hub.unsubscribe()
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	fl.Flush()
	if r.Method == http.MethodHead {
		return
	}
	for {
		seq, changed, running := h.hub.state()
		if seq > since {
			if _, err := fmt.Fprintf(w, "id: %d\ndata: %d\n\n", seq, seq); err != nil {
				return
			}
			fl.Flush()
			since = seq
		}
		if !running {
			return // the follower failed; the page's EventSource reconnects
		}
		select {
		case <-r.Context().Done():
			return
		case <-changed:
		}
	}
}

// Serve serves h on ln until ctx ends, then stops: the open event streams
// end with ctx (their requests' context derives from it), and the server
// waits a few seconds for the other requests.
func Serve(ctx context.Context, ln net.Listener, h *Handler) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return ctx }}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return store.Errorf(store.CodeInternal, "serve").Wrap(err)
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shut); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return store.Errorf(store.CodeInternal, "stop serving").Wrap(err)
	}
	return nil
}
